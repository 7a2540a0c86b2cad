package tasks

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

// defaultMaxArtifactBytes bounds the artifact bytes the store keeps per task when Config.MaxArtifactBytes is 0.
const defaultMaxArtifactBytes = 8 << 20

// truncatedKey is the artifact metadata entry counting the bytes dropped from the front of a stored artifact.
const truncatedKey = "a2a-cli/truncated"

// A long --chunk stream appends to one artifact without end. The store keeps at most maxArtifactBytes of a
// task's artifacts: past that, the oldest parts of the artifact being appended to are dropped (its newest part
// is always kept) and the artifact's metadata counts the dropped bytes. Live streams still get every event;
// only what a later GetTask returns is cut to the tail.

// What one artifact keeps is bounded in parts as well as in bytes, since each part costs about a hundred bytes of
// memory besides its payload: a --chunk of one byte would otherwise keep a 4 MB output as 4 million parts, half a
// gigabyte. Past coalesceAfter parts, a part appended to an artifact is joined to the one before it when both are
// plain text (or plain raw bytes of one media type) and that one holds less than coalesceBlock bytes: GetTask
// returns the same output in fewer, longer parts (live streams still get every chunk as it came). Parts that cannot
// be joined count against maxStoredParts, past which the oldest are dropped as the byte budget drops them.
const (
	coalesceAfter  = 1000
	coalesceBlock  = 256
	maxStoredParts = 20000
)

// appendPart appends p to an artifact's parts, joining it to the last one as described above. The parts already
// stored are never modified (snapshots share them): a join stores a new part in the last slot.
func appendPart(parts []*a2a.Part, p *a2a.Part) []*a2a.Part {
	if len(parts) < coalesceAfter || p == nil {
		return append(parts, p)
	}
	last := parts[len(parts)-1]
	if j := joined(last, p); j != nil {
		parts[len(parts)-1] = j
		return parts
	}
	return append(parts, p)
}

// joined is the part holding a's payload then b's, or nil when they are not both plain parts of one kind, or a is
// already coalesceBlock bytes long.
func joined(a, b *a2a.Part) *a2a.Part {
	if a == nil || len(a.Metadata) > 0 || len(b.Metadata) > 0 || a.Filename != "" || b.Filename != "" ||
		a.MediaType != b.MediaType || partSize(a) >= coalesceBlock {
		return nil
	}
	switch x := a.Content.(type) {
	case a2a.Text:
		if y, ok := b.Content.(a2a.Text); ok {
			j := a2a.NewTextPart(string(x) + string(y))
			j.MediaType = a.MediaType
			return j
		}
	case a2a.Raw:
		if y, ok := b.Content.(a2a.Raw); ok {
			j := a2a.NewRawPart(append(append(make([]byte, 0, len(x)+len(y)), x...), y...))
			j.MediaType = a.MediaType
			return j
		}
	}
	return nil
}

// partSize is the payload size of a part: the bytes of text, raw and URL parts, the JSON size of data parts.
func partSize(p *a2a.Part) int64 {
	if p == nil {
		return 0
	}
	switch c := p.Content.(type) {
	case a2a.Text:
		return int64(len(c))
	case a2a.Raw:
		return int64(len(c))
	case a2a.URL:
		return int64(len(c))
	case a2a.Data:
		b, err := json.Marshal(c.Value)
		if err != nil {
			return 0 // a part that cannot be encoded is not sent either: it takes no room
		}
		return int64(len(b))
	}
	return 0
}

func partsSize(ps []*a2a.Part) int64 {
	var n int64
	for _, p := range ps {
		n += partSize(p)
	}
	return n
}

// messageCost is what a message kept costs: its parts' payload and partOverhead for each part and for the message.
func messageCost(m *a2a.Message) int64 {
	if m == nil {
		return 0
	}
	return partsSize(m.Parts) + partOverhead*int64(len(m.Parts)+1)
}

// artifactCost is what an artifact kept costs, counted as messageCost counts a message.
func artifactCost(a *a2a.Artifact) int64 {
	return partsSize(a.Parts) + partOverhead*int64(len(a.Parts)+1)
}

// artifactsSize is what a task's artifacts cost together (artifactCost): record.artBytes.
func artifactsSize(as []*a2a.Artifact) int64 {
	var n int64
	for _, a := range as {
		n += artifactCost(a)
	}
	return n
}

// applyArtifact integrates an artifact event into r's task, keeping r.artBytes in step and the task within
// the budget. Appended parts are added to the stored artifact without copying what is already there.
func (s *Store) applyArtifact(r *record, ev *a2a.TaskArtifactUpdateEvent) {
	t := r.task
	i := slices.IndexFunc(t.Artifacts, func(a *a2a.Artifact) bool { return a.ID == ev.Artifact.ID })
	if i >= 0 && ev.Append {
		a := t.Artifacts[i]
		before := len(a.Parts)
		for _, p := range ev.Artifact.Parts {
			a.Parts = appendPart(a.Parts, p)
		}
		// appendPart may join parts: what is kept is the payload and the overhead of the parts really added.
		added := partsSize(ev.Artifact.Parts) + partOverhead*int64(len(a.Parts)-before)
		if ev.Artifact.Metadata != nil {
			if a.Metadata == nil {
				a.Metadata = map[string]any{}
			}
			maps.Copy(a.Metadata, ev.Artifact.Metadata)
		}
		r.artBytes += added
		s.trimLocked(r, a)
		return
	}
	// The event is shared with subscribers: store our own copy of the artifact, since its parts
	// slice will grow with later appends.
	a := *ev.Artifact
	a.Parts = slices.Clone(ev.Artifact.Parts)
	a.Metadata = maps.Clone(ev.Artifact.Metadata)
	if i >= 0 {
		r.artBytes -= artifactCost(t.Artifacts[i])
		t.Artifacts[i] = &a
	} else {
		t.Artifacts = append(t.Artifacts, &a)
	}
	r.artBytes += artifactCost(&a)
	s.trimLocked(r, &a)
}

// trimLocked keeps r's task within the budget after a, one of its artifacts, grew: while the task holds more than
// maxArtifacts artifacts, or they cost more than the budget (artifactCost: payload and overhead), the oldest other
// artifacts are dropped first (the task's metadata counts them), then the oldest parts of a (a's metadata counts
// their bytes). The dropped slots are cleared, so the parts can be collected at once; the slice's backing array is
// replaced on a later growth.
func (s *Store) trimLocked(r *record, a *a2a.Artifact) {
	overBudget := func(dropped int64) bool { return s.maxArtifactBytes > 0 && r.artBytes-dropped > s.maxArtifactBytes }
	t := r.task
	gone := 0
	for i := 0; i < len(t.Artifacts) && (len(t.Artifacts) > maxArtifacts || overBudget(0)); {
		if t.Artifacts[i] == a {
			i++
			continue
		}
		r.artBytes -= artifactCost(t.Artifacts[i])
		t.Artifacts = slices.Delete(t.Artifacts, i, i+1)
		gone++
	}
	if gone > 0 {
		countDropped(t, artifactsDroppedKey, int64(gone))
	}
	over := func(n int, dropped int64) bool { return len(a.Parts)-n > maxStoredParts || overBudget(dropped) }
	if !over(0, 0) {
		return
	}
	n, dropped, payload := 0, int64(0), int64(0)
	for n < len(a.Parts)-1 && over(n, dropped) {
		size := partSize(a.Parts[n])
		payload += size
		dropped += size + partOverhead
		n++
	}
	if n == 0 {
		return
	}
	clear(a.Parts[:n])
	a.Parts = a.Parts[n:]
	r.artBytes -= dropped
	if a.Metadata == nil {
		a.Metadata = map[string]any{}
	}
	prev, _ := a.Metadata[truncatedKey].(int64)
	a.Metadata[truncatedKey] = prev + payload
}

// historyMessage is msg as the task's history keeps it: within maxArtifactBytes (messageCost: payload and overhead),
// parts past the budget replaced by a note of their number and size (one note for each run of them), so that a large
// request, or one of many tiny parts, cannot pin its bytes in memory for as long as the task is kept. The turn itself
// still gets the whole message.
func (s *Store) historyMessage(msg *a2a.Message) *a2a.Message {
	if s.maxArtifactBytes <= 0 || messageCost(msg) <= s.maxArtifactBytes {
		return msg
	}
	c := *msg
	c.Parts = nil
	type run struct {
		at           int // its note's index in c.Parts
		parts, bytes int64
	}
	var runs []run
	used, dropped := int64(partOverhead), int64(0)
	for _, p := range msg.Parts {
		n := partSize(p)
		if used+n+partOverhead <= s.maxArtifactBytes {
			c.Parts = append(c.Parts, p)
			used += n + partOverhead
			continue
		}
		dropped += n
		if len(runs) == 0 || runs[len(runs)-1].at != len(c.Parts)-1 {
			runs = append(runs, run{at: len(c.Parts)})
			c.Parts = append(c.Parts, nil)
		}
		runs[len(runs)-1].parts++
		runs[len(runs)-1].bytes += n
	}
	for _, r := range runs {
		note := fmt.Sprintf("[%d bytes not kept: over the server's --max-artifact-bytes]", r.bytes)
		if r.parts > 1 {
			note = fmt.Sprintf("[%d parts, %d bytes not kept: over the server's --max-artifact-bytes]", r.parts, r.bytes)
		}
		c.Parts[r.at] = a2a.NewTextPart(note)
	}
	c.Metadata = maps.Clone(msg.Metadata)
	if c.Metadata == nil {
		c.Metadata = map[string]any{}
	}
	c.Metadata[truncatedKey] = dropped
	return &c
}

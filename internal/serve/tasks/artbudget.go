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

func artifactsSize(as []*a2a.Artifact) int64 {
	var n int64
	for _, a := range as {
		n += partsSize(a.Parts)
	}
	return n
}

// applyArtifact integrates an artifact event into r's task, keeping r.artBytes in step and the task within
// the budget. Appended parts are added to the stored artifact without copying what is already there.
func (s *Store) applyArtifact(r *record, ev *a2a.TaskArtifactUpdateEvent) {
	t := r.task
	added := partsSize(ev.Artifact.Parts)
	i := slices.IndexFunc(t.Artifacts, func(a *a2a.Artifact) bool { return a.ID == ev.Artifact.ID })
	if i >= 0 && ev.Append {
		a := t.Artifacts[i]
		for _, p := range ev.Artifact.Parts {
			a.Parts = appendPart(a.Parts, p)
		}
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
		r.artBytes -= partsSize(t.Artifacts[i].Parts)
		t.Artifacts[i] = &a
	} else {
		t.Artifacts = append(t.Artifacts, &a)
	}
	r.artBytes += added
	s.trimLocked(r, &a)
}

// trimLocked drops the oldest parts of a, the artifact that just grew, while r's task holds more artifact
// bytes than the budget, and counts them in a's metadata. The dropped slots are cleared, so the parts can be
// collected at once; the slice's backing array is replaced on a later growth.
func (s *Store) trimLocked(r *record, a *a2a.Artifact) {
	over := func(n int, dropped int64) bool {
		return len(a.Parts)-n > maxStoredParts || (s.maxArtifactBytes > 0 && r.artBytes-dropped > s.maxArtifactBytes)
	}
	if !over(0, 0) {
		return
	}
	n, dropped := 0, int64(0)
	for n < len(a.Parts)-1 && over(n, dropped) {
		dropped += partSize(a.Parts[n])
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
	a.Metadata[truncatedKey] = prev + dropped
}

// historyMessage is msg as the task's history keeps it: within maxArtifactBytes, parts past the budget replaced by a
// note of their size, so that a large request cannot pin its bytes in memory for as long as the task is kept. The
// turn itself still gets the whole message.
func (s *Store) historyMessage(msg *a2a.Message) *a2a.Message {
	if s.maxArtifactBytes <= 0 || partsSize(msg.Parts) <= s.maxArtifactBytes {
		return msg
	}
	c := *msg
	c.Parts = make(a2a.ContentParts, len(msg.Parts))
	var used, dropped int64
	for i, p := range msg.Parts {
		n := partSize(p)
		if used+n <= s.maxArtifactBytes {
			c.Parts[i] = p
			used += n
			continue
		}
		c.Parts[i] = a2a.NewTextPart(fmt.Sprintf("[%d bytes not kept: over the server's --max-artifact-bytes]", n))
		dropped += n
	}
	c.Metadata = maps.Clone(msg.Metadata)
	if c.Metadata == nil {
		c.Metadata = map[string]any{}
	}
	c.Metadata[truncatedKey] = dropped
	return &c
}

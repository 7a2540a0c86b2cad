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
		a.Parts = append(a.Parts, ev.Artifact.Parts...)
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
	if s.maxArtifactBytes <= 0 || r.artBytes <= s.maxArtifactBytes {
		return
	}
	n, dropped := 0, int64(0)
	for n < len(a.Parts)-1 && r.artBytes-dropped > s.maxArtifactBytes {
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

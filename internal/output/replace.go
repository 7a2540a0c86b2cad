package output

import (
	"bytes"
	"crypto/sha256"
	"hash"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

// An artifact update without append replaces the artifact (so does the artifact in a task snapshot, say a
// resubscription's): what a stream shows must be what the artifact finally is, never the same content twice. When
// the replacement extends what was shown, only the rest is shown; when it does not, it is shown whole (raw: from a
// line of its own, after what was written). To tell, a stream keeps per artifact the length and a digest of what it
// showed (shown), not the content: memory stays bounded by the artifacts, not their length.

// shown is what a stream showed of one artifact, as a key (raw: the bytes written; text: see textKey).
type shown struct {
	n        int
	h        hash.Hash
	startMid bool // raw: the artifact began mid-line (a data part then starts with a newline)
}

func newShown() *shown { return &shown{h: sha256.New()} }

func (s *shown) add(b []byte) {
	s.h.Write(b) //nolint:errcheck // a hash never fails to write
	s.n += len(b)
}

func (s *shown) reset() {
	s.h.Reset()
	s.n = 0
}

// extends reports whether whole, the key of a whole artifact, begins with what was shown; what was shown is its
// first s.n bytes.
func (s *shown) extends(whole []byte) bool {
	if len(whole) < s.n {
		return false
	}
	d := sha256.Sum256(whole[:s.n])
	return bytes.Equal(d[:], s.h.Sum(nil))
}

// partKey is what text output shows of a part, as a key: a text part's text as it is (chunks of text join), any other
// part its rendering on a line of its own.
func (p *Printer) partKey(part *a2a.Part) []byte {
	if t, ok := part.Content.(a2a.Text); ok {
		return []byte(t)
	}
	return []byte("\x00" + p.partText(part, len(indent)) + "\n")
}

// textKey is the key of parts (see partKey).
func (p *Printer) textKey(parts a2a.ContentParts) []byte {
	var b []byte
	for _, part := range parts {
		if part != nil {
			b = append(b, p.partKey(part)...)
		}
	}
	return b
}

// partsFrom is what parts hold past the first n bytes of their key: a text part cut there, the parts after it.
func (p *Printer) partsFrom(parts a2a.ContentParts, n int) a2a.ContentParts {
	for i, part := range parts {
		if part == nil {
			continue
		}
		k := len(p.partKey(part))
		if n < k {
			if t, ok := part.Content.(a2a.Text); ok && n > 0 {
				return append(a2a.ContentParts{a2a.NewTextPart(string(t)[n:])}, parts[i+1:]...)
			}
			return parts[i:]
		}
		n -= k
	}
	return nil
}

// textArtifact records that text output shows parts of artifact id, appended to it (more) or replacing it, and returns
// the parts to show and whether they continue what was shown of it (no label needed when it is the open artifact).
func (p *Printer) textArtifact(id a2a.ArtifactID, parts a2a.ContentParts, more bool) (a2a.ContentParts, bool) {
	if p.shownArts == nil {
		p.shownArts = map[a2a.ArtifactID]*shown{}
	}
	s := p.shownArts[id]
	key := p.textKey(parts)
	switch {
	case s == nil:
		s = newShown()
		p.shownArts[id] = s
	case more:
		s.add(key)
		return parts, true
	case len(parts) == 0:
		return nil, true // a snapshot listing the artifact without its content says nothing of it
	case s.extends(key):
		n := s.n
		s.add(key[n:])
		return p.partsFrom(parts, n), true
	default:
		s.reset()
	}
	s.add(key)
	return parts, false
}

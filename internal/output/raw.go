package output

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

// rawState is what a raw stream remembers: what was written of each artifact, so that a replacement (an update
// without append, a task snapshot arriving later in the stream, as on a resubscription) writes only what it adds
// (see replace.go), and whether any content was written at all.
type rawState struct {
	arts    map[a2a.ArtifactID]*shown
	wrote   bool
	midLine bool // the last byte written was not a newline
}

// rawParts appends the agent's content of parts to b, byte for byte: text as it is, raw (file) bytes decoded,
// data as one line of compact JSON, a file URL as one line. A line of its own starts on a new line.
func (p *Printer) rawParts(b *bytes.Buffer, parts a2a.ContentParts) error {
	defer func() {
		if b.Len() > 0 {
			p.raw.midLine = b.Bytes()[b.Len()-1] != '\n'
		}
	}()
	ownLine := func() {
		if (b.Len() == 0 && p.raw.midLine) || (b.Len() > 0 && b.Bytes()[b.Len()-1] != '\n') {
			b.WriteByte('\n')
		}
	}
	for _, part := range parts {
		if part == nil {
			continue
		}
		switch c := part.Content.(type) {
		case a2a.Text:
			b.WriteString(string(c))
		case a2a.Raw:
			b.Write(c)
		case a2a.Data:
			line, err := json.Marshal(c.Value)
			if err != nil {
				return fmt.Errorf("render data part: %w", err)
			}
			ownLine()
			b.Write(line)
			b.WriteByte('\n')
		case a2a.URL:
			ownLine()
			b.WriteString(string(c))
			b.WriteByte('\n')
		}
	}
	return nil
}

// rawTask writes a task's artifacts, or, when it has none, the message of a status that is not a failure (an
// agent answering in its status, or asking for input). A failure's message goes to stderr with the outcome.
func (p *Printer) rawTask(b *bytes.Buffer, t *a2a.Task) error {
	if t == nil {
		return nil
	}
	written := false
	for _, a := range t.Artifacts {
		if a == nil {
			continue
		}
		written = true
		if err := p.rawArtifact(b, a, false); err != nil {
			return err
		}
	}
	if !written && !p.raw.wrote {
		return p.rawStatus(b, t.Status)
	}
	return nil
}

// rawStatus writes the message of a status that ends or pauses a task without failing it.
func (p *Printer) rawStatus(b *bytes.Buffer, s a2a.TaskStatus) error {
	switch s.State {
	case a2a.TaskStateCompleted, a2a.TaskStateInputRequired, a2a.TaskStateAuthRequired:
		if s.Message != nil {
			return p.rawParts(b, s.Message.Parts)
		}
	}
	return nil
}

// rawArtifact writes the content of artifact a: all of it when new, the parts when they are appended (more), and
// when they replace it, what they add to what was written, or, when they do not begin with what was written, all
// of it again from a line of its own (bytes written cannot be taken back).
func (p *Printer) rawArtifact(b *bytes.Buffer, a *a2a.Artifact, more bool) error {
	if p.raw.arts == nil {
		p.raw.arts = map[a2a.ArtifactID]*shown{}
	}
	s := p.raw.arts[a.ID]
	if s != nil && !more && len(a.Parts) == 0 {
		return nil // a snapshot listing the artifact without its content says nothing of it
	}
	if s != nil && !more {
		// The replacement as it would have been written from the artifact's start.
		var whole bytes.Buffer
		mid := p.raw.midLine
		p.raw.midLine = s.startMid
		err := p.rawParts(&whole, a.Parts)
		p.raw.midLine = mid
		if err != nil {
			return err
		}
		if s.extends(whole.Bytes()) {
			if rest := whole.Bytes()[s.n:]; len(rest) > 0 {
				b.Write(rest)
				s.add(rest)
				p.raw.midLine = rest[len(rest)-1] != '\n'
			}
			return nil
		}
		if p.raw.midLine || (b.Len() > 0 && b.Bytes()[b.Len()-1] != '\n') {
			b.WriteByte('\n')
			p.raw.midLine = false
		}
		s = nil
	}
	if s == nil {
		s = newShown()
		s.startMid = p.raw.midLine || (b.Len() > 0 && b.Bytes()[b.Len()-1] != '\n')
		p.raw.arts[a.ID] = s
	}
	start := b.Len()
	if err := p.rawParts(b, a.Parts); err != nil {
		return err
	}
	s.add(b.Bytes()[start:])
	return nil
}

// rawEvent writes the content one stream event carries: artifact chunks the moment they arrive, a message's parts,
// a task snapshot's artifacts not written yet, and the message of a final status when nothing else was written.
func (p *Printer) rawEvent(b *bytes.Buffer, e a2a.Event) error {
	switch v := e.(type) {
	case *a2a.TaskArtifactUpdateEvent:
		if v.Artifact == nil {
			return nil
		}
		return p.rawArtifact(b, v.Artifact, v.Append)
	case *a2a.Message:
		return p.rawParts(b, v.Parts)
	case *a2a.Task:
		return p.rawTask(b, v)
	case *a2a.TaskStatusUpdateEvent:
		if !p.raw.wrote && len(p.raw.arts) == 0 {
			return p.rawStatus(b, v.Status)
		}
		return nil
	}
	return fmt.Errorf("render event: unsupported type %T", e)
}

// rawEmit writes what a raw rendering produced and remembers that content was written.
func (p *Printer) rawEmit(b *bytes.Buffer, err error) error {
	if err != nil {
		return err
	}
	if b.Len() > 0 {
		p.raw.wrote = true
	}
	return p.emit(b.Bytes())
}

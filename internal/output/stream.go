package output

import (
	"bytes"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/a2acli/a2a/third_party/charmbracelet/x/ansi"
)

// streamState is what a text stream remembers between events: the artifact whose chunks are
// being written and where the cursor stands on the current line.
type streamState struct {
	inArtifact  bool
	artifact    a2a.ArtifactID
	atLineStart bool
	col         int
	dev         *devState // development-tool traffic; survives endPartial
}

// event renders one stream event in text. Artifact chunks of the same artifact continue the
// same content; any other event first ends a partial line.
func (p *Printer) event(b *bytes.Buffer, e a2a.Event) error {
	if v, ok := e.(*a2a.TaskArtifactUpdateEvent); ok {
		p.artifactEvent(b, v)
		return nil
	}
	p.closeBlock(b)
	switch v := e.(type) {
	case *a2a.Task:
		p.task(b, v, false)
		for _, a := range v.Artifacts {
			if a == nil {
				continue
			}
			// A snapshot's artifact replaces what the stream showed of it: only what is new is shown.
			parts, _ := p.textArtifact(a.ID, a.Parts, false)
			if len(parts) > 0 {
				p.artifactLabel(b, a)
				p.parts(b, parts, indent)
				b.WriteByte('\n') // the block's end
			}
		}
	case *a2a.TaskStatusUpdateEvent:
		if s := v.Status.State; !p.o.NoRestate && (s.Terminal() || s == a2a.TaskStateInputRequired || s == a2a.TaskStateAuthRequired) {
			p.field(b, "Task ID", string(v.TaskID))
			p.field(b, "Context ID", v.ContextID)
		}
		p.styledField(b, "State", p.st.stateWord(v.Status.State))
		if msg := messageText(v.Status.Message); msg != "" {
			p.field(b, "Status Message", msg)
		}
	case *a2a.Message:
		p.message(b, v)
	default:
		return fmt.Errorf("render event: unsupported type %T", e)
	}
	return nil
}

// artifactEvent writes a label line when a new artifact starts, then the chunk's content.
// Text is written as it arrives, without newlines between chunks. An update that replaces the artifact shows only
// what it adds to what was shown (see replace.go).
func (p *Printer) artifactEvent(b *bytes.Buffer, v *a2a.TaskArtifactUpdateEvent) {
	a := v.Artifact
	if a == nil {
		a = &a2a.Artifact{}
	}
	parts, cont := p.textArtifact(a.ID, a.Parts, v.Append)
	if cont && len(parts) == 0 {
		if v.LastChunk {
			p.closeBlock(b)
		}
		return
	}
	if !cont || !p.stream.inArtifact || p.stream.artifact != a.ID {
		p.closeBlock(b)
		p.artifactLabel(b, a)
		p.stream.inArtifact, p.stream.artifact = true, a.ID
	}
	for _, part := range parts {
		if part == nil {
			continue
		}
		if t, ok := part.Content.(a2a.Text); ok {
			p.streamText(b, Sanitize(string(t)))
			continue
		}
		if !p.stream.atLineStart { // the line ends; the artifact's block goes on
			b.WriteByte('\n')
			p.stream.atLineStart, p.stream.col = true, 0
		}
		b.WriteString(indentLines(p.partText(part, len(indent)), indent, true))
		b.WriteByte('\n')
	}
	if v.LastChunk {
		p.closeBlock(b)
	}
}

// streamText writes sanitised text, indenting each line it starts. With a width set it breaks
// at the space before a word of this chunk that would pass the width, and mid-word only when
// a word is longer than a line or continues from an earlier chunk.
func (p *Printer) streamText(b *bytes.Buffer, s string) {
	st := &p.stream
	if p.width == 0 {
		p.streamLines(b, s)
		return
	}
	for i, r := range s {
		if r == '\n' {
			b.WriteByte('\n')
			st.atLineStart, st.col = true, 0
			continue
		}
		if st.atLineStart {
			b.WriteString(indent)
			st.atLineStart, st.col = false, len(indent)
		}
		w := runeWidth(r)
		if r == '\t' {
			w = 8 - st.col%8
		}
		if p.width > 0 && st.col > len(indent) {
			if r == ' ' && st.col+w+wordWidth(s[i+1:]) > p.width {
				b.WriteString("\n" + indent) // break at the space and drop it
				st.col = len(indent)
				continue
			}
			if st.col+w > p.width {
				b.WriteString("\n" + indent)
				st.col = len(indent)
			}
		}
		b.WriteRune(r)
		st.col += w
	}
}

// streamLines is streamText without wrapping (a pipe): whole lines at a time, with no column to track.
func (p *Printer) streamLines(b *bytes.Buffer, s string) {
	st := &p.stream
	for len(s) > 0 {
		if st.atLineStart {
			if s[0] == '\n' {
				b.WriteByte('\n')
				s = s[1:]
				continue
			}
			b.WriteString(indent)
			st.atLineStart = false
		}
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			b.WriteString(s)
			return
		}
		b.WriteString(s[:i+1])
		st.atLineStart = true
		s = s[i+1:]
	}
}

// wordWidth is the display width of the word that s starts with.
func wordWidth(s string) int {
	w := 0
	for _, r := range s {
		if r == ' ' || r == '\n' || r == '\t' {
			break
		}
		w += runeWidth(r)
	}
	return w
}

// closeBlock ends an open artifact block with a blank line (the a2a-cli specification, §11.2), and any partial line.
func (p *Printer) closeBlock(b *bytes.Buffer) {
	open := p.stream.inArtifact
	p.endPartial(b)
	if open {
		b.WriteByte('\n')
	}
}

// endPartial ends the current line if text was left on it, and forgets the open artifact.
func (p *Printer) endPartial(b *bytes.Buffer) {
	if !p.stream.atLineStart {
		b.WriteByte('\n')
	}
	p.stream = streamState{atLineStart: true, dev: p.stream.dev}
}

// runeWidth is the width of r in terminal cells, as a grapheme of its own: 0 for a combining mark or a zero-width
// character, 2 for a wide one.
func runeWidth(r rune) int {
	if r >= 0x20 && r < 0x7f { // printable ASCII, most of any text: one cell, without the grapheme tables
		return 1
	}
	var b [utf8.UTFMax]byte
	return ansi.StringWidth(string(b[:utf8.EncodeRune(b[:], r)]))
}

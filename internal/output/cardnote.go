package output

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

// CardNote is what a2a found out about a card beyond its content (its signatures, a validation): in text, lines
// under Label after the card's fields; in JSON, a member named Member of the checks document (CardChecks) beside
// the card, never a member of the card itself, so that the card's JSON stays an AgentCard.
type CardNote struct {
	Label  string
	Lines  []string // the first on the label's line, the others indented under it
	Member string
	JSON   any
	// Quiet notes say nothing a user must hear about when stdout carries the card alone (an unsigned card).
	Quiet bool
}

// CardNotes renders an agent card with notes: in text, the notes' lines after the card's fields; in JSON and raw,
// the card alone (an AgentCard, as Card writes it). A caller that wants the notes as JSON asks CardChecks.
func (p *Printer) CardNotes(c *a2a.AgentCard, notes ...CardNote) error {
	if p.o.Format == JSON || p.o.Format == Raw || len(notes) == 0 {
		return p.Card(c)
	}
	var b bytes.Buffer
	p.card(&b, c)
	for _, n := range notes {
		if len(n.Lines) == 0 {
			continue
		}
		p.field(&b, n.Label, n.Lines[0])
		for _, l := range n.Lines[1:] {
			b.WriteString(indent + Sanitize(l) + "\n")
		}
	}
	return p.emit(b.Bytes())
}

// CardChecks writes the checks document: {"card": AgentCard, <Member>: note, ...}, the card first, then the notes
// in their order. In text it is CardNotes.
func (p *Printer) CardChecks(c *a2a.AgentCard, notes ...CardNote) error {
	if p.o.Format != JSON && p.o.Format != Raw {
		return p.CardNotes(c, notes...)
	}
	card, err := json.Marshal(c)
	if err != nil {
		return fmt.Errorf("encode card: %w", err)
	}
	doc := checksDoc{{"card", card}}
	for _, n := range notes {
		b, err := json.Marshal(n.JSON)
		if err != nil {
			return fmt.Errorf("encode %s: %w", n.Member, err)
		}
		doc = append(doc, member{n.Member, b})
	}
	return p.writeJSON(doc)
}

// WriteNotes writes notes, but quiet ones, as text lines ("Label: first line", the others indented), sanitised:
// what a card's notes say on stderr when stdout carries the card alone.
func WriteNotes(w io.Writer, notes ...CardNote) error {
	var b bytes.Buffer
	for _, n := range notes {
		if len(n.Lines) == 0 || n.Quiet {
			continue
		}
		b.WriteString(n.Label + ": " + Sanitize(n.Lines[0]) + "\n")
		for _, l := range n.Lines[1:] {
			b.WriteString(indent + Sanitize(l) + "\n")
		}
	}
	_, err := w.Write(b.Bytes())
	return err
}

type member struct {
	name string
	json json.RawMessage
}

// checksDoc is an object whose members keep their order.
type checksDoc []member

func (d checksDoc) MarshalJSON() ([]byte, error) {
	out := []byte{'{'}
	for i, m := range d {
		if i > 0 {
			out = append(out, ',')
		}
		name, _ := json.Marshal(m.name)
		out = append(append(append(out, name...), ':'), m.json...)
	}
	return append(out, '}'), nil
}

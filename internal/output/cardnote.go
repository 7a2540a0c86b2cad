package output

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

// CardNote is what a2a found out about a card beyond its content (its signatures, a validation): in text, lines
// under Label after the card's fields; in JSON, one more member of the card object, named Member (a name the
// protocol does not use, so the document still reads as an AgentCard).
type CardNote struct {
	Label  string
	Lines  []string // the first on the label's line, the others indented under it
	Member string
	JSON   any
}

// CardNotes renders an agent card with notes.
func (p *Printer) CardNotes(c *a2a.AgentCard, notes ...CardNote) error {
	if len(notes) == 0 {
		return p.Card(c)
	}
	if p.o.Format == JSON || p.o.Format == Raw {
		b, err := json.Marshal(c)
		if err != nil {
			return fmt.Errorf("encode card: %w", err)
		}
		doc := map[string]json.RawMessage{}
		if err := json.Unmarshal(b, &doc); err != nil {
			return fmt.Errorf("encode card: %w", err)
		}
		for _, n := range notes {
			if doc[n.Member], err = json.Marshal(n.JSON); err != nil {
				return fmt.Errorf("encode %s: %w", n.Member, err)
			}
		}
		return p.writeJSON(orderedCard{card: b, notes: notes, doc: doc})
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

// orderedCard writes the card's members in the card's order, then the notes: `jq` users and transcripts see the
// card first.
type orderedCard struct {
	card  []byte
	notes []CardNote
	doc   map[string]json.RawMessage
}

func (o orderedCard) MarshalJSON() ([]byte, error) {
	out := bytes.TrimSuffix(bytes.TrimSpace(o.card), []byte("}"))
	for _, n := range o.notes {
		if len(out) > 1 {
			out = append(out, ',')
		}
		name, _ := json.Marshal(n.Member)
		out = append(append(append(out, name...), ':'), o.doc[n.Member]...)
	}
	return append(out, '}'), nil
}

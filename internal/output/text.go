package output

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/tidwall/pretty"

	"github.com/a2acli/a2a/third_party/charmbracelet/x/ansi"
)

const indent = "  "

// field writes "Label: value". The value is sanitised; a multi-line value continues on
// following lines indented by two spaces, so every line that starts unindented is a label.
func (p *Printer) field(b *bytes.Buffer, label, value string) {
	p.styledField(b, label, indentLines(Sanitize(value), indent, false))
}

// styledField writes "Label: value" with a value that is already safe (sanitised or styled).
func (p *Printer) styledField(b *bytes.Buffer, label, value string) {
	b.WriteString(p.st.paint(p.st.label, label+":"))
	if value != "" {
		b.WriteByte(' ')
		b.WriteString(value)
	}
	b.WriteByte('\n')
}

// indentLines prefixes lines with pre (the first too when first is set); empty lines get
// no prefix so that no line ends in spaces.
func indentLines(s, pre string, first bool) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		if l != "" && (i > 0 || first) {
			lines[i] = pre + l
		}
	}
	return strings.Join(lines, "\n")
}

// task writes a task's fields, artifacts and, when full, its history.
func (p *Printer) task(b *bytes.Buffer, t *a2a.Task, full bool) {
	if t == nil {
		t = &a2a.Task{}
	}
	p.field(b, "Task ID", string(t.ID))
	p.field(b, "Context ID", t.ContextID)
	p.styledField(b, "State", p.st.stateWord(t.Status.State))
	if msg := messageText(t.Status.Message); msg != "" {
		p.field(b, "Status Message", msg)
	}
	if ts := t.Status.Timestamp; ts != nil {
		p.field(b, "Updated", ts.UTC().Format(time.RFC3339))
	}
	if !full {
		return
	}
	// A block (its label, its content) is closed by a blank line (the a2a-cli specification, §11.2): a reader can
	// skip it whole.
	for _, a := range t.Artifacts {
		p.artifactLabel(b, a)
		p.parts(b, a.Parts, indent)
		b.WriteByte('\n')
	}
	if len(t.History) > 0 {
		p.styledField(b, "History", "")
		for _, m := range t.History {
			if m == nil {
				continue
			}
			fmt.Fprintf(b, "%s%s (%s):\n", indent, shortRole(m.Role), Sanitize(m.ID))
			p.parts(b, m.Parts, indent+indent)
		}
		b.WriteByte('\n')
	}
}

// artifactLabel writes "Artifact: <name>", or the id when the artifact is unnamed.
func (p *Printer) artifactLabel(b *bytes.Buffer, a *a2a.Artifact) {
	if a == nil {
		a = &a2a.Artifact{}
	}
	name := a.Name
	if name == "" {
		name = string(a.ID)
	}
	p.field(b, "Artifact", name)
}

// message writes a message that came back instead of a task.
func (p *Printer) message(b *bytes.Buffer, m *a2a.Message) {
	if m == nil {
		m = &a2a.Message{}
	}
	p.field(b, "Message ID", m.ID)
	if m.ContextID != "" {
		p.field(b, "Context ID", m.ContextID)
	}
	if m.TaskID != "" {
		p.field(b, "Task ID", string(m.TaskID))
	}
	p.field(b, "Role", shortRole(m.Role))
	p.styledField(b, "Content", "")
	p.parts(b, m.Parts, indent)
	b.WriteByte('\n')
}

// taskList writes an aligned table of the tasks, then the total and the next page token.
func (p *Printer) taskList(b *bytes.Buffer, r *a2a.ListTasksResponse) {
	if r == nil {
		r = &a2a.ListTasksResponse{}
	}
	if len(r.Tasks) > 0 {
		p.taskTable(b, r.Tasks)
		b.WriteByte('\n')
	}
	total := max(r.TotalSize, len(r.Tasks))
	p.field(b, "Total", strconv.Itoa(total))
	if r.NextPageToken != "" {
		p.field(b, "Next Page Token", r.NextPageToken)
	}
}

// parts writes content parts, each line prefixed with pre. Adjacent text parts are joined first: they are
// pieces of one text (the chunks of a streamed artifact), shown as the agent wrote them.
func (p *Printer) parts(b *bytes.Buffer, parts a2a.ContentParts, pre string) {
	var text strings.Builder
	joined := false
	flush := func() {
		if joined {
			part := a2a.NewTextPart(text.String())
			b.WriteString(indentLines(p.partText(part, len(pre)), pre, true))
			b.WriteByte('\n')
			text.Reset()
			joined = false
		}
	}
	for _, part := range parts {
		if part == nil {
			continue
		}
		if t, ok := part.Content.(a2a.Text); ok {
			text.WriteString(string(t))
			joined = true
			continue
		}
		flush()
		b.WriteString(indentLines(p.partText(part, len(pre)), pre, true))
		b.WriteByte('\n')
	}
	flush()
}

// partText renders one part without indentation; margin is the indentation it will get, for
// wrapping. File contents are never printed, only described.
func (p *Printer) partText(part *a2a.Part, margin int) string {
	switch c := part.Content.(type) {
	case a2a.Text:
		return p.wrap(strings.TrimRight(Sanitize(string(c)), "\n"), margin)
	case a2a.Data:
		return p.dataJSON(c.Value)
	case a2a.Raw:
		name, media := part.Filename, part.MediaType
		if name == "" {
			name = "-"
		}
		if media == "" {
			media = "application/octet-stream"
		}
		return p.st.paint(p.st.faint, Sanitize(fmt.Sprintf("[file %s %s, %d bytes]", name, media, len(c))))
	case a2a.URL:
		s := "[file " + string(c)
		if part.MediaType != "" {
			s += " " + part.MediaType
		}
		return p.st.paint(p.st.faint, Sanitize(s+"]"))
	}
	return p.st.paint(p.st.faint, "[empty part]")
}

// dataJSON renders structured data as indented JSON, coloured when colour is on.
func (p *Printer) dataJSON(v any) string {
	raw, err := json.Marshal(v)
	if err != nil {
		return p.st.paint(p.st.faint, Sanitize(fmt.Sprintf("[data: %v]", err)))
	}
	out := pretty.PrettyOptions(raw, &pretty.Options{Width: 80, Indent: indent})
	out = []byte(Sanitize(string(escapeControls(out))))
	if p.st.on {
		out = pretty.Color(out, nil)
	}
	return strings.TrimRight(string(out), "\n")
}

// wrap word-wraps s to the configured width less margin; no width means no wrapping.
func (p *Printer) wrap(s string, margin int) string {
	limit := p.width - margin
	if p.width == 0 || limit < 10 {
		return s
	}
	return ansi.Wrap(s, limit, "")
}

// messageText joins the text parts of a message, one per line.
func messageText(m *a2a.Message) string {
	if m == nil {
		return ""
	}
	var texts []string
	for _, part := range m.Parts {
		if part == nil {
			continue
		}
		if t, ok := part.Content.(a2a.Text); ok && t != "" {
			texts = append(texts, strings.TrimRight(string(t), "\n"))
		}
	}
	return strings.Join(texts, "\n")
}

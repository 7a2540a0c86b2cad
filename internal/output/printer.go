// Package output renders A2A values (agent cards, tasks, messages, task lists, stream events
// and error documents) for the a2a CLI, as labelled text, as the protocol's own JSON, or as
// the agent's content byte for byte (raw), onto an io.Writer it is given; and it filters that
// JSON through a --jq expression (JQ) when asked.
//
// It must not decide anything about the environment: whether colour is on, how wide the
// terminal is and whether JSON is indented are all passed in through Options. It never
// writes escape codes when colour is off, never lets agent-supplied text reach a terminal
// unsanitised in text mode, and prints the bytes of file parts only in raw mode.
package output

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/a2acli/a2a/third_party/charmbracelet/x/ansi"
)

// Format selects how values are rendered.
type Format string

// The formats of the -o flag.
const (
	Text Format = "text"
	JSON Format = "json"
	// Raw writes only the agent's content: text parts as they are, file bytes decoded, data parts
	// as compact JSON lines. Values that are not content (cards, task lists) are compact JSON.
	Raw Format = "raw"
)

// errNoValue is returned when a nil result or event is passed in.
var errNoValue = errors.New("nothing to render")

// maxWidth caps wrapping on very wide terminals, where long lines are hard to read.
const maxWidth = 120

// Options configure a Printer. The zero value renders plain, unwrapped text.
type Options struct {
	// Format is Text, JSON or Raw; "" means Text.
	Format Format
	// Color allows escape codes (SGR styles, coloured JSON). The caller decides it from
	// the terminal, NO_COLOR and CLICOLOR_FORCE; false means no escape code is ever written.
	Color bool
	// Indent, for JSON only, indents documents (for a terminal); false writes each document
	// compactly on one line.
	Indent bool
	// Width wraps long text lines to min(Width, 120) columns; 0 never wraps (pipes).
	Width int
	// NoRestate: a streamed status that ends the wait (terminal or interrupted) shows only its state, not the task
	// and context ids again (the chat, whose header shows them once per task). By default the last event restates
	// them (the a2a-cli specification, §11.2: a reader of the tail alone has them).
	NoRestate bool
}

// Printer writes rendered values to one writer. It is not safe for concurrent use; stream
// events must be passed in order and followed by Close.
type Printer struct {
	w      io.Writer
	o      Options
	st     styles
	width  int
	stream streamState
	raw    rawState
	// shownArts is what a text stream showed of each artifact (see replace.go).
	shownArts map[a2a.ArtifactID]*shown
	buf       []byte // reused by the fast JSON encoding of stream chunks
}

// New returns a Printer writing to w.
func New(w io.Writer, o Options) *Printer {
	if o.Format == "" {
		o.Format = Text
	}
	width := o.Width
	if width > maxWidth {
		width = maxWidth
	}
	if width < 0 {
		width = 0
	}
	p := &Printer{w: w, o: o, width: width, stream: streamState{atLineStart: true}}
	p.st = newStyles(o.Color)
	return p
}

// Card renders an agent card.
func (p *Printer) Card(c *a2a.AgentCard) error {
	if p.o.Format == JSON || p.o.Format == Raw {
		return p.writeJSON(c)
	}
	var b bytes.Buffer
	p.card(&b, c)
	return p.emit(b.Bytes())
}

// Result renders the outcome of a non-streaming send: a *a2a.Task or a *a2a.Message.
//
// In JSON it writes the protocol's SendMessageResponse, {"task": …} or {"message": …}, so that
// `jq .task.status.state` works whatever the agent answered with.
func (p *Printer) Result(r a2a.SendMessageResult) error {
	if p.o.Format == JSON && r != nil {
		return p.writeJSON(a2a.StreamResponse{Event: r})
	}
	switch v := r.(type) {
	case *a2a.Task:
		return p.Task(v)
	case *a2a.Message:
		return p.Message(v)
	case nil:
		return fmt.Errorf("render result: %w", errNoValue)
	}
	return fmt.Errorf("render result: unsupported type %T", r)
}

// Task renders a task with its status, artifacts and history.
func (p *Printer) Task(t *a2a.Task) error {
	if p.o.Format == JSON {
		return p.writeJSON(t)
	}
	if p.o.Format == Raw {
		var b bytes.Buffer
		return p.rawEmit(&b, p.rawTask(&b, t))
	}
	var b bytes.Buffer
	p.task(&b, t, true)
	return p.emit(b.Bytes())
}

// Message renders a message returned instead of a task.
func (p *Printer) Message(m *a2a.Message) error {
	if p.o.Format == JSON {
		return p.writeJSON(m)
	}
	if p.o.Format == Raw {
		var b bytes.Buffer
		if m != nil {
			return p.rawEmit(&b, p.rawParts(&b, m.Parts))
		}
		return nil
	}
	var b bytes.Buffer
	p.message(&b, m)
	return p.emit(b.Bytes())
}

// TaskList renders one page of a task listing.
func (p *Printer) TaskList(r *a2a.ListTasksResponse) error {
	if p.o.Format == JSON || p.o.Format == Raw {
		return p.writeJSON(r)
	}
	var b bytes.Buffer
	p.taskList(&b, r)
	return p.emit(b.Bytes())
}

// TaskListFields renders one page of a task listing as the a2a-cli specification's text floor has it (§11.2): each
// task's Task ID, Context ID, State (and Status Message, Updated) as Label: value lines, a blank line after each;
// then the total and the next page token. `task list` prints this; `list tasks` keeps its table (TaskList).
func (p *Printer) TaskListFields(r *a2a.ListTasksResponse) error {
	if p.o.Format == JSON || p.o.Format == Raw {
		return p.writeJSON(r)
	}
	if r == nil {
		r = &a2a.ListTasksResponse{}
	}
	var b bytes.Buffer
	for _, t := range r.Tasks {
		if t == nil {
			continue
		}
		p.task(&b, t, false)
		b.WriteByte('\n')
	}
	p.field(&b, "Total", strconv.Itoa(max(r.TotalSize, len(r.Tasks))))
	if r.NextPageToken != "" {
		p.field(&b, "Next Page Token", r.NextPageToken)
	}
	return p.emit(b.Bytes())
}

// Event renders one streaming event. In JSON it writes one StreamResponse document (one line
// unless Indent); in text it continues the running transcript of the stream, rendering
// development-tool traffic (see DevTool) as thoughts, text and tool call lines.
func (p *Printer) Event(e a2a.Event) error {
	if e == nil {
		return fmt.Errorf("render event: %w", errNoValue)
	}
	if p.o.Format == Raw {
		var b bytes.Buffer
		return p.rawEmit(&b, p.rawEvent(&b, e))
	}
	ups, dev := p.devTrack(e)
	if p.o.Format == JSON {
		if au, ok := e.(*a2a.TaskArtifactUpdateEvent); ok && !p.o.Indent && !p.o.Color {
			if b, ok := appendArtifactUpdate(p.buf[:0], au); ok {
				p.buf = b
				return p.emit(escapeControls(b))
			}
		}
		return p.writeJSON(a2a.StreamResponse{Event: e})
	}
	var b bytes.Buffer
	if dev {
		p.devRender(&b, ups)
	} else if err := p.event(&b, e); err != nil {
		return err
	}
	return p.emit(b.Bytes())
}

// Close ends a partial line left by a text stream. It writes nothing for JSON and raw.
func (p *Printer) Close() error {
	if p.o.Format == JSON || p.o.Format == Raw {
		return nil
	}
	var b bytes.Buffer
	p.closeBlock(&b)
	return p.emit(b.Bytes())
}

// emit writes rendered bytes and flushes a buffered writer, so that a stream shows each
// event as it arrives.
func (p *Printer) emit(b []byte) error {
	if len(b) > 0 {
		if _, err := p.w.Write(b); err != nil {
			return fmt.Errorf("write output: %w", err)
		}
	}
	if f, ok := p.w.(interface{ Flush() error }); ok {
		if err := f.Flush(); err != nil {
			return fmt.Errorf("flush output: %w", err)
		}
	}
	return nil
}

// styles holds the styles of one Printer. A style is the parameter of an SGR escape sequence: what lipgloss
// v1.1.0 writes for the same style with the 256-colour profile (TestStylesAreLipgloss holds them to it). They are
// written here because lipgloss brought x/ansi's parser table, go-runewidth, termenv and colorprofile into the
// init of every a2a run, for six escape sequences (third_party/charmbracelet/x/ansi/PATCHED.md).
type styles struct {
	on    bool
	label style
	faint style
	state map[string]style
}

// style is an SGR parameter: "1" bold, "2" faint, "3N" the foreground colour N of the terminal's 8.
type style string

const (
	bold  style = "1"
	faint style = "2"
	red   style = "31"
	green style = "32"
	amber style = "33"
	cyan  style = "36"
)

// stateStyles colours a state word by its meaning.
var stateStyles = map[string]style{
	"completed":      green,
	"failed":         red,
	"rejected":       red,
	"canceled":       red,
	"input-required": amber,
	"auth-required":  amber,
	"working":        cyan,
}

func newStyles(color bool) styles {
	return styles{on: color, label: bold, faint: faint, state: stateStyles}
}

// render writes v in style s, as lipgloss's Render does: tabs as four spaces, each line opened with the style and
// closed with a reset, and lines narrower than the widest padded with plain spaces after it.
func (s style) render(v string) string {
	lines := strings.Split(strings.ReplaceAll(v, "\t", "    "), "\n")
	widest := 0
	for _, l := range lines {
		widest = max(widest, ansi.StringWidth(l))
	}
	var b strings.Builder
	for i, l := range lines {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(s.wrap(l) + strings.Repeat(" ", widest-ansi.StringWidth(l)))
	}
	return b.String()
}

// wrap opens v with the style and closes it with a reset.
func (s style) wrap(v string) string { return "\x1b[" + string(s) + "m" + v + "\x1b[0m" }

// paint applies s only when colour is on. It is never handed agent content, only labels and short words.
func (st styles) paint(s style, v string) string {
	if !st.on || v == "" {
		return v
	}
	return s.render(v)
}

// stateWord returns the short state, coloured by its meaning when colour is on.
func (st styles) stateWord(s a2a.TaskState) string {
	w := ShortState(s)
	if c, ok := st.state[w]; ok {
		return st.paint(c, w)
	}
	return w
}

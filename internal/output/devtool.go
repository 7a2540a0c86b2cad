package output

import (
	"bytes"
	"strings"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/a2acli/a2a/internal/devtool"
)

// devState is what a text stream remembers about development-tool traffic: the session that
// normalises it and what has been printed of each tool call.
type devState struct {
	session   *devtool.Session
	workspace string              // set by SetWorkspace; else the session's
	explained map[string]bool     // calls whose confirmation details were printed
	screens   map[string][]string // live output lines printed so far, per call
}

// DevTool returns the session following the stream's development-tool traffic: Event feeds it every event in
// text and JSON (not raw), and Active reports whether such traffic was seen. A caller that needs the session too
// (the CLI's coding-agent turn asks it what is pending) reads it here instead of decoding every event twice.
func (p *Printer) DevTool() *devtool.Session { return p.devState().session }

// FeedsDevTool reports whether Event feeds DevTool's session: every format but raw.
func (p *Printer) FeedsDevTool() bool { return p.o.Format != Raw }

// SetWorkspace tells the Printer the workspace the agent works in, so that tool calls on
// files inside it show relative paths. Without it the Gemini server's persisted setting, when
// the stream's Task carries one, is used.
func (p *Printer) SetWorkspace(dir string) {
	p.devState().workspace = strings.TrimRight(dir, "/")
}

func (p *Printer) devState() *devState {
	if p.stream.dev == nil {
		p.stream.dev = &devState{
			session:   devtool.NewSession(),
			explained: map[string]bool{},
			screens:   map[string][]string{},
		}
	}
	return p.stream.dev
}

// devTrack feeds an event to the stream's dev-tool session, in every format, and reports what
// is new in it and whether it was dev-tool traffic.
func (p *Printer) devTrack(e a2a.Event) ([]devtool.Update, bool) {
	return p.devState().session.Feed(e)
}

// sgr writes s in style code when colour is on. Agent content (diffs, commands, thoughts) goes through here, as it
// is, tabs included (styles.paint writes them as spaces).
func (p *Printer) sgr(code style, s string) string {
	if !p.st.on || s == "" {
		return s
	}
	return code.wrap(s)
}

// devRender writes the updates of one dev-tool event. Text deltas continue the current line;
// everything else starts on a line of its own.
func (p *Printer) devRender(b *bytes.Buffer, ups []devtool.Update) {
	for _, u := range ups {
		if u.Kind == devtool.KindText {
			p.streamText(b, Sanitize(u.Text))
			continue
		}
		p.endPartial(b)
		switch u.Kind {
		case devtool.KindThought:
			p.devThought(b, u.Thought)
		case devtool.KindTool:
			p.devTool(b, u.Tool)
		case devtool.KindLiveOutput:
			p.devLive(b, u.CallID, u.Screen)
		case devtool.KindError:
			p.devBlock(b, indent, p.sgr(red, "error:")+" ", Sanitize(u.Text))
		case devtool.KindCitation:
			p.devBlock(b, indent, p.sgr(faint, "citation:")+" ", Sanitize(u.Text))
		case devtool.KindState:
			p.devState().devTurn(p, b, u)
		}
	}
}

// devThought writes "✻ subject" and the description below it, dimmed.
func (p *Printer) devThought(b *bytes.Buffer, t devtool.Thought) {
	subject := strings.TrimSpace(Sanitize(t.Subject))
	desc := strings.TrimSpace(Sanitize(t.Description))
	if subject == "" {
		subject, desc = firstAndRest(desc)
	}
	b.WriteString(indent + p.sgr(faint, "✻ "+subject) + "\n")
	if desc != "" {
		for _, l := range strings.Split(p.wrap(desc, 2*len(indent)), "\n") {
			writeIndented(b, indent+indent, p.sgr(faint, l))
		}
	}
}

// devBlock writes a labelled, possibly multi-line value: the label on the first line, the
// following lines aligned under the value.
func (p *Printer) devBlock(b *bytes.Buffer, pre, label, value string) {
	lines := strings.Split(strings.TrimRight(value, "\n"), "\n")
	b.WriteString(pre + label + lines[0] + "\n")
	for _, l := range lines[1:] {
		writeIndented(b, pre+indent, l)
	}
}

// writeIndented writes one line with a prefix; an empty line gets none, so no line ends in
// spaces.
func writeIndented(b *bytes.Buffer, pre, line string) {
	if line != "" {
		b.WriteString(pre)
		b.WriteString(line)
	}
	b.WriteByte('\n')
}

// firstAndRest splits s at its first newline.
func firstAndRest(s string) (string, string) {
	first, rest, _ := strings.Cut(s, "\n")
	return first, strings.TrimSpace(rest)
}

// devTurn writes the line that tells the user whose move it is when a turn ends.
func (d *devState) devTurn(p *Printer, b *bytes.Buffer, u devtool.Update) {
	if !u.Final {
		return
	}
	var line string
	var code style
	switch {
	case u.State.Terminal():
		line, code = "── "+ShortState(u.State)+" ──", faint
		if u.State != a2a.TaskStateCompleted {
			code = red
		}
	case len(d.session.Pending()) > 0:
		line, code = "── waiting for permission ──", amber
	default:
		line, code = "── your turn ──", cyan
	}
	b.WriteString(p.sgr(code, line) + "\n")
}

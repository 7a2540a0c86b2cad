package output

import (
	"bytes"
	"strings"

	"github.com/a2acli/a2a/internal/devtool"
)

// toolIndent is where the details of a tool call (diff, command, output) start.
const toolIndent = indent + indent

// statusSGR colours a tool call's status by its meaning.
var statusSGR = map[devtool.Status]style{
	devtool.Pending:   amber,
	devtool.Executing: cyan,
	devtool.Succeeded: green,
	devtool.Failed:    red,
	devtool.Cancelled: red,
}

// devTool writes one line per status change of a tool call - "  ⏺ WriteFile hello.txt -
// pending" - followed by what it will do when it waits for permission, its output when it
// succeeded (unless that was already shown) or its error when it failed.
func (p *Printer) devTool(b *bytes.Buffer, c *devtool.ToolCall) {
	d := p.devState()
	word := string(c.Status)
	if c.Confirmation != nil {
		word = "awaiting approval"
	}
	code := statusSGR[c.Status]
	line := p.sgr(code, "⏺") + " " + p.sgr(bold, Sanitize(c.Label()))
	if key := d.relative(c.KeyArg); key != "" {
		line += " " + Sanitize(key)
	}
	b.WriteString(indent + line + " - " + p.sgr(code, Sanitize(word)) + "\n")
	switch {
	case c.Confirmation != nil:
		p.devConfirmation(b, c.Confirmation)
		d.explained[c.ID] = true
	case c.Status == devtool.Failed && c.Error != "":
		p.devBlock(b, toolIndent, p.sgr(red, "error:")+" ", Sanitize(c.Error))
	case c.Status == devtool.Succeeded && c.Output != "":
		if d.screens[c.ID] != nil || (d.explained[c.ID] && isDiff(c.Output)) {
			return // the live screen or the diff was shown already
		}
		p.devText(b, c.Output)
	}
}

// devConfirmation shows what a call waiting for permission will do.
func (p *Printer) devConfirmation(b *bytes.Buffer, cf *devtool.Confirmation) {
	if cf.Title != "" {
		writeIndented(b, toolIndent, p.sgr(faint, Sanitize(cf.Title)))
	}
	switch {
	case cf.Diff != "":
		p.devText(b, cf.Diff)
	case cf.Kind == "edit":
		p.devText(b, cf.NewContent)
	case cf.Command != "":
		p.devText(b, "$ "+cf.Command)
		if cf.Cwd != "" {
			writeIndented(b, toolIndent, p.sgr(faint, "in "+Sanitize(cf.Cwd)))
		}
	case cf.Server != "" || cf.Tool != "":
		writeIndented(b, toolIndent, "MCP tool "+Sanitize(cf.Tool)+" of server "+Sanitize(cf.Server))
	}
	if cf.Prompt != "" {
		p.devText(b, cf.Prompt)
	}
}

// devText writes agent text (output, a diff, a command) below a tool line; diff lines are
// coloured when colour is on.
func (p *Printer) devText(b *bytes.Buffer, s string) {
	s = strings.TrimRight(Sanitize(s), "\n")
	diff := isDiff(s)
	if diff {
		s = trimDiffPreamble(s)
	}
	for _, l := range strings.Split(s, "\n") {
		if diff {
			l = p.diffLine(l)
		}
		writeIndented(b, toolIndent, l)
	}
}

// isDiff reports whether s looks like a unified diff.
func isDiff(s string) bool {
	return strings.Contains(s, "\n@@ ") && (strings.HasPrefix(s, "--- ") || strings.Contains(s, "\n--- "))
}

// trimDiffPreamble drops the "Index:" and "=====" lines that may precede a diff's "---" line.
func trimDiffPreamble(s string) string {
	for {
		line, rest, ok := strings.Cut(s, "\n")
		if !ok || !(strings.HasPrefix(line, "Index: ") || strings.HasPrefix(line, "====")) {
			return s
		}
		s = rest
	}
}

// diffLine colours one line of a unified diff.
func (p *Printer) diffLine(l string) string {
	switch {
	case strings.HasPrefix(l, "+++ "), strings.HasPrefix(l, "--- "):
		return p.sgr(faint, l)
	case strings.HasPrefix(l, "@@"):
		return p.sgr(cyan, l)
	case strings.HasPrefix(l, "+"):
		return p.sgr(green, l)
	case strings.HasPrefix(l, "-"):
		return p.sgr(red, l)
	}
	return l
}

// devLive shows a live screen. The screen is the whole output so far: only the lines that
// extend what was printed are written; when a line already printed changed, the whole screen
// is written again (a pipe cannot redraw).
func (p *Printer) devLive(b *bytes.Buffer, callID, screen string) {
	d := p.devState()
	lines := screenLines(Sanitize(screen))
	prev := d.screens[callID]
	start := len(prev)
	if !extends(lines, prev) {
		start = 0
		if len(prev) > 0 {
			writeIndented(b, toolIndent, p.sgr(faint, "(screen redrawn)"))
		}
	}
	for _, l := range lines[start:] {
		writeIndented(b, toolIndent, p.sgr(faint, "│")+" "+l)
	}
	if lines == nil {
		lines = []string{}
	}
	d.screens[callID] = lines
}

// screenLines splits a terminal screen into lines without the padding: trailing spaces of
// each line and trailing empty lines go.
func screenLines(s string) []string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " \t")
	}
	for len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// extends reports whether lines starts with every line of prev, unchanged.
func extends(lines, prev []string) bool {
	if len(prev) > len(lines) {
		return false
	}
	for i, l := range prev {
		if lines[i] != l {
			return false
		}
	}
	return true
}

// relative shows a path inside the workspace relative to it.
func (d *devState) relative(path string) string {
	ws := d.workspace
	if ws == "" {
		ws = strings.TrimRight(d.session.Workspace(), "/")
	}
	if ws != "" {
		if rest, ok := strings.CutPrefix(path, ws+"/"); ok && rest != "" {
			return rest
		}
	}
	return path
}

package output

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/a2acli/a2a/internal/devtool"
	"github.com/a2acli/a2a/third_party/charmbracelet/x/ansi"
)

// SlashCommand and SlashArgument are devtool's: the command list is the dialects' (devtool.ParseCommands).
type (
	SlashCommand  = devtool.SlashCommand
	SlashArgument = devtool.SlashArgument
)

// Commands renders a command list: in text, one line per command and subcommand (its full path, its arguments as
// <required> and [optional], its description), argument descriptions below; in JSON, raw (the agent's own
// document) as it came.
func (p *Printer) Commands(cmds []SlashCommand, raw json.RawMessage) error {
	if p.o.Format == JSON || p.o.Format == Raw {
		return p.writeJSON(raw)
	}
	var rows [][2]string
	var walk func(prefix string, depth int, cs []SlashCommand)
	walk = func(prefix string, depth int, cs []SlashCommand) {
		for _, c := range cs {
			path := strings.TrimSpace(prefix + " " + Sanitize(c.Name))
			head := strings.Repeat("  ", depth) + "/" + path
			for _, a := range c.Arguments {
				if a.Required {
					head += " <" + Sanitize(a.Name) + ">"
				} else {
					head += " [" + Sanitize(a.Name) + "]"
				}
			}
			rows = append(rows, [2]string{head, oneLine(Sanitize(c.Description))})
			for _, a := range c.Arguments {
				if a.Description != "" {
					rows = append(rows, [2]string{"", strings.Repeat("  ", depth+2) + Sanitize(a.Name) + ": " + oneLine(Sanitize(a.Description))})
				}
			}
			walk(path, depth+1, c.SubCommands)
		}
	}
	walk("", 0, cmds)
	width := 0
	for _, r := range rows {
		if r[0] != "" {
			width = max(width, ansi.StringWidth(r[0]))
		}
	}
	var b bytes.Buffer
	if len(rows) == 0 {
		b.WriteString("(no commands)\n")
	}
	for _, r := range rows {
		switch {
		case r[0] == "":
			fmt.Fprintf(&b, "%s\n", r[1])
		case r[1] == "":
			fmt.Fprintf(&b, "%s\n", p.st.paint(p.st.label, r[0]))
		default:
			pad := strings.Repeat(" ", width-ansi.StringWidth(r[0])+2)
			fmt.Fprintf(&b, "%s%s%s\n", p.st.paint(p.st.label, r[0]), pad, r[1])
		}
	}
	return p.emit(b.Bytes())
}

// CommandResult renders what a slash command answered in one document: in text, the string fields that carry its
// output (data, message, output, text) as they are and anything else as indented JSON; in JSON, raw as it came.
func (p *Printer) CommandResult(raw json.RawMessage) error {
	if p.o.Format == JSON || p.o.Format == Raw {
		return p.writeJSON(raw)
	}
	var b bytes.Buffer
	p.endPartial(&b)
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return fmt.Errorf("render command result: %w", err)
	}
	text := resultText(v)
	if text == "" {
		ind, _ := json.MarshalIndent(v, "", "  ") // cannot fail: v came from JSON
		text = string(ind)
	}
	b.WriteString(Sanitize(strings.TrimRight(text, "\n")))
	b.WriteByte('\n')
	return p.emit(b.Bytes())
}

func resultText(v any) string {
	switch t := v.(type) {
	case string:
		return t
	case map[string]any:
		for _, k := range []string{"data", "output", "text", "message", "content"} {
			if s, ok := t[k].(string); ok && s != "" {
				return s
			}
		}
	}
	return ""
}

package coder

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/a2acli/a2a/internal/devtool"
	"github.com/a2acli/a2a/internal/termsafe"
	"golang.org/x/term"
)

// FDReader is a reader with a file descriptor (a terminal).
type FDReader interface {
	io.Reader
	Fd() uintptr
}

// Asker asks the user one question and returns the answer line; io.EOF when the input ended.
type Asker interface {
	Ask(ctx context.Context, prompt string) (string, error)
}

// LineAsker asks on w and reads answers from r line by line. The read runs in a goroutine so that an interrupt
// ends the wait; the goroutine reads one line per question and stays blocked on r otherwise.
type LineAsker struct {
	w     io.Writer
	br    *bufio.Reader
	tty   int // r's descriptor when it is a terminal, else -1
	lines chan lineResult
	busy  bool
}

type lineResult struct {
	line string
	err  error
}

func NewLineAsker(r io.Reader, w io.Writer) *LineAsker {
	a := &LineAsker{w: w, br: bufio.NewReader(r), tty: -1, lines: make(chan lineResult, 1)}
	if f, ok := r.(FDReader); ok && term.IsTerminal(int(f.Fd())) {
		a.tty = int(f.Fd())
	}
	return a
}

// Ask asks prompt and reads the answer. What was typed on the terminal before the question showed is not its
// answer (an Enter pressed early would approve): it is dropped first.
func (a *LineAsker) Ask(ctx context.Context, prompt string) (string, error) {
	if !a.busy {
		a.br.Discard(a.br.Buffered()) //nolint:errcheck // discarding what is buffered cannot fail
		if a.tty >= 0 {
			discardTypeahead(a.tty)
		}
	}
	fmt.Fprint(a.w, prompt)
	if !a.busy {
		a.busy = true
		go func() {
			line, err := a.br.ReadString('\n')
			if line != "" && err == io.EOF {
				err = nil
			}
			a.lines <- lineResult{line: strings.TrimRight(line, "\r\n"), err: err}
		}()
	}
	select {
	case r := <-a.lines:
		a.busy = false
		return r.line, r.err
	case <-ctx.Done():
		fmt.Fprintln(a.w)
		return "", ctx.Err()
	}
}

// AskPermission asks whether call may run: yes once (the default on Enter), always, no, or one of the agent's own
// options by number. ok is false when the input ended: the turn stops at the prompt.
func AskPermission(ctx context.Context, a Asker, call *devtool.ToolCall) (devtool.Choice, string, bool, error) {
	prompt := PermissionPrompt(call)
	for {
		line, err := a.Ask(ctx, prompt)
		if err == io.EOF {
			return "", "", false, nil
		}
		if err != nil {
			return "", "", false, fmt.Errorf("read answer: %w", err)
		}
		if choice, optionID, ok := ParseAnswer(line, ListedOptions(call)); ok {
			return choice, optionID, true, nil
		}
		prompt = "answer y (yes once), a (always), n (no) or an option number: "
	}
}

// ListedOptions are the agent's own options worth offering by number: the RFC's list, and Gemini's when it has
// more than the three that y/a/n already cover (MCP tools: allow the server, allow the tool).
func ListedOptions(call *devtool.ToolCall) []devtool.Option {
	if call.Confirmation == nil {
		return nil
	}
	opts := call.Confirmation.Options
	if call.Shape == devtool.RFC || len(opts) > 3 {
		return opts
	}
	return nil
}

func PermissionPrompt(call *devtool.ToolCall) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Allow %s? [Y]es once / [a]lways / [n]o", termsafe.Sanitize(CallLabel(call)))
	if opts := ListedOptions(call); len(opts) > 0 {
		b.WriteString("\n  agent options:")
		for i, o := range opts {
			name := o.Name
			if name == "" {
				name = o.ID
			}
			fmt.Fprintf(&b, " %d) %s", i+1, termsafe.Sanitize(name))
		}
	}
	b.WriteString(" ")
	return b.String()
}

// CallLabel is "<DisplayName> <KeyArg>".
func CallLabel(call *devtool.ToolCall) string {
	name := call.DisplayName
	if name == "" {
		name = call.Name
	}
	if name == "" {
		name = call.ID
	}
	if call.KeyArg != "" {
		return name + " " + call.KeyArg
	}
	return name
}

// ParseAnswer reads one answer line: empty or y/yes approve once, a/always approve always, n/no reject, a number
// picks an agent option.
func ParseAnswer(line string, opts []devtool.Option) (devtool.Choice, string, bool) {
	s := strings.ToLower(strings.TrimSpace(line))
	switch s {
	case "", "y", "yes":
		return devtool.ApproveOnce, "", true
	case "a", "always":
		return devtool.ApproveAlways, "", true
	case "n", "no":
		return devtool.Reject, "", true
	}
	if n, err := strconv.Atoi(s); err == nil && n >= 1 && n <= len(opts) {
		return devtool.ApproveOnce, opts[n-1].ID, true
	}
	return "", "", false
}

// ParseOption reads OPTION of --confirm: approve/always/reject (and their short forms) or a verbatim option id.
func ParseOption(s string) (devtool.Choice, string) {
	switch s {
	case "approve", "yes", "y", "once":
		return devtool.ApproveOnce, ""
	case "always", "a":
		return devtool.ApproveAlways, ""
	case "reject", "no", "n":
		return devtool.Reject, ""
	}
	return devtool.ApproveOnce, s
}

func DescribeOptions(opts []devtool.Option) string {
	ids := make([]string, 0, len(opts))
	for _, o := range opts {
		ids = append(ids, o.ID)
	}
	return fmt.Sprintf("approve, always, reject, or one of: %s", strings.Join(ids, ", "))
}

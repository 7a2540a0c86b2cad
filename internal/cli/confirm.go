package cli

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"golang.org/x/term"

	"github.com/a2acli/a2a/internal/devtool"
	"github.com/a2acli/a2a/internal/output"
)

// asker asks the user one question and returns the answer line; io.EOF when the input ended.
type asker interface {
	ask(ctx context.Context, prompt string) (string, error)
}

// lineAsker asks on w and reads answers from r line by line. The read runs in a goroutine so that an interrupt
// ends the wait; the goroutine reads one line per question and stays blocked on r otherwise.
type lineAsker struct {
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

func newLineAsker(r io.Reader, w io.Writer) *lineAsker {
	a := &lineAsker{w: w, br: bufio.NewReader(r), tty: -1, lines: make(chan lineResult, 1)}
	if f, ok := r.(fdReader); ok && term.IsTerminal(int(f.Fd())) {
		a.tty = int(f.Fd())
	}
	return a
}

// ask asks prompt and reads the answer. What was typed on the terminal before the question showed is not its
// answer (an Enter pressed early would approve): it is dropped first.
func (a *lineAsker) ask(ctx context.Context, prompt string) (string, error) {
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

// askPermission asks whether call may run: yes once (the default on Enter), always, no, or one of the agent's own
// options by number. ok is false when the input ended: the turn stops at the prompt.
func askPermission(ctx context.Context, a asker, call *devtool.ToolCall) (devtool.Choice, string, bool, error) {
	prompt := permissionPrompt(call)
	for {
		line, err := a.ask(ctx, prompt)
		if err == io.EOF {
			return "", "", false, nil
		}
		if err != nil {
			return "", "", false, fmt.Errorf("read answer: %w", err)
		}
		if choice, optionID, ok := parseAnswer(line, listedOptions(call)); ok {
			return choice, optionID, true, nil
		}
		prompt = "answer y (yes once), a (always), n (no) or an option number: "
	}
}

// listedOptions are the agent's own options worth offering by number: the RFC's list, and Gemini's when it has
// more than the three that y/a/n already cover (MCP tools: allow the server, allow the tool).
func listedOptions(call *devtool.ToolCall) []devtool.Option {
	if call.Confirmation == nil {
		return nil
	}
	opts := call.Confirmation.Options
	if call.Shape == devtool.RFC || len(opts) > 3 {
		return opts
	}
	return nil
}

func permissionPrompt(call *devtool.ToolCall) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Allow %s? [Y]es once / [a]lways / [n]o", output.Sanitize(callLabel(call)))
	if opts := listedOptions(call); len(opts) > 0 {
		b.WriteString("\n  agent options:")
		for i, o := range opts {
			name := o.Name
			if name == "" {
				name = o.ID
			}
			fmt.Fprintf(&b, " %d) %s", i+1, output.Sanitize(name))
		}
	}
	b.WriteString(" ")
	return b.String()
}

// callLabel is "<DisplayName> <KeyArg>".
func callLabel(call *devtool.ToolCall) string {
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

// parseAnswer reads one answer line: empty or y/yes approve once, a/always approve always, n/no reject, a number
// picks an agent option.
func parseAnswer(line string, opts []devtool.Option) (devtool.Choice, string, bool) {
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

// idleCloseBound bounds the wait for the agent to close idle connections after a turn stopped at a prompt.
const idleCloseBound = 10 * time.Second

// stopAtPrompt tells the user which tool calls wait and the exact commands that answer them, then keeps the process
// alive until the agent has closed the idle connection (the connection rule: see connTracker).
// wait is false when the turn was not started by this process (subscribe).
func (t *turn) stopAtPrompt(ctx context.Context, wait bool) error {
	pending := t.unanswered()
	taskID, _ := t.ids()
	w := t.f.io.Err
	fmt.Fprintf(w, "permission needed: %d tool call(s) wait for an answer\n", len(pending))
	for _, c := range pending {
		fmt.Fprintf(w, "  %s  %s\n", output.Sanitize(c.ID), output.Sanitize(callLabel(c)))
	}
	fmt.Fprintln(w, "answer with:")
	for _, c := range pending {
		for _, opt := range []string{"approve", "reject"} {
			fmt.Fprintf(w, "  a2a send %s --task %s --confirm %s\n", shellQuote(t.url), shellQuote(string(taskID)), shellQuote(c.ID+"="+opt))
		}
	}
	if len(pending) > 0 && pending[0].Confirmation != nil {
		fmt.Fprintf(w, "  (OPTION: %s)\n", output.Sanitize(describeOptions(pending[0].Confirmation.Options)))
	}
	if wait {
		t.f.waitIdleClosed(ctx)
	}
	if t.f.opts.fail {
		return &taskOutcomeError{state: t.view.state(), code: exitTaskPaused}
	}
	return nil
}

// waitIdleClosed waits, bounded, until the agent closed every connection of the process.
func (f *factory) waitIdleClosed(ctx context.Context) {
	conns := f.dialer().Conns()
	if conns == nil || conns.Open() == 0 {
		return
	}
	f.log.Printf("waiting up to %s for the agent to close %d idle connection(s): closing them ourselves would abort the turn on some agents",
		idleCloseBound, conns.Open())
	start := time.Now()
	if conns.WaitClosed(ctx, idleCloseBound) {
		f.log.Printf("the agent closed the connection after %s", time.Since(start).Round(time.Millisecond))
		return
	}
	f.log.Printf("connections still open after %s: exiting anyway", idleCloseBound)
}

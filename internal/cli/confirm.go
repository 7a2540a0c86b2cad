package cli

import (
	"context"
	"fmt"
	"time"

	"github.com/a2acli/a2a/internal/coder"
	"github.com/a2acli/a2a/internal/exitcode"
	"github.com/a2acli/a2a/internal/follow"
	"github.com/a2acli/a2a/internal/output"
	"github.com/a2acli/a2a/internal/termsafe"
)

// idleCloseBound bounds the wait for the agent to close idle connections after a turn stopped at a prompt.
const idleCloseBound = 10 * time.Second

// stopAtPrompt tells the user which tool calls wait and the exact commands that answer them, then keeps the process
// alive until the agent has closed the idle connection (the connection rule: see connTracker).
// wait is false when the turn was not started by this process (subscribe).
func (f *factory) stopAtPrompt(ctx context.Context, t *follow.Turn, wait bool) error {
	pending := t.Unanswered()
	taskID, _ := t.IDs()
	w := f.io.Err
	fmt.Fprintf(w, "permission needed: %d tool call(s) wait for an answer\n", len(pending))
	for _, c := range pending {
		fmt.Fprintf(w, "  %s  %s\n", output.Sanitize(c.ID), output.Sanitize(coder.CallLabel(c)))
	}
	fmt.Fprintln(w, "answer with:")
	for _, c := range pending {
		for _, opt := range []string{"approve", "reject"} {
			fmt.Fprintf(w, "  a2a send %s --task %s --confirm %s\n", t.Env.Ref(t.URL), termsafe.ShellQuote(string(taskID)), termsafe.ShellQuote(c.ID+"="+opt))
		}
	}
	if len(pending) > 0 && pending[0].Confirmation != nil {
		fmt.Fprintf(w, "  (OPTION: %s)\n", output.Sanitize(coder.DescribeOptions(pending[0].Confirmation.Options)))
	}
	if wait {
		f.waitIdleClosed(ctx)
	}
	if f.opts.fail {
		return &exitcode.TaskOutcome{ID: taskID, State: t.View.State(), Exit: exitcode.TaskPaused}
	}
	return nil
}

// waitIdleClosed waits, bounded, until the agent closed every connection of the process.
func (f *factory) waitIdleClosed(ctx context.Context) {
	bound := f.idleClose
	if bound == 0 {
		bound = idleCloseBound
	}
	conns := f.dialer().Conns()
	if conns == nil || conns.Open() == 0 {
		return
	}
	f.log.Printf("waiting up to %s for the agent to close %d idle connection(s): closing them ourselves would abort the turn on some agents",
		bound, conns.Open())
	start := time.Now()
	if conns.WaitClosed(ctx, bound) {
		f.log.Printf("the agent closed the connection after %s", time.Since(start).Round(time.Millisecond))
		return
	}
	f.log.Printf("connections still open after %s: exiting anyway", bound)
}

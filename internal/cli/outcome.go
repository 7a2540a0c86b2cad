package cli

import (
	"fmt"
	"strings"

	"github.com/a2acli/a2a/internal/exitcode"
	"github.com/a2acli/a2a/internal/output"
	"github.com/a2acli/a2a/internal/termsafe"
	"github.com/a2aproject/a2a-go/v2/a2a"
)

func shortState(s a2a.TaskState) string { return output.ShortState(s) }

// outcome reports how a task ended: a warning on stderr for a bad end, the command that continues a paused task,
// and under --fail the matching error (exit 6 or 7).
func (f *factory) outcome(agentURL string, t *a2a.Task) error {
	if t == nil {
		return nil
	}
	switch t.Status.State {
	case a2a.TaskStateFailed, a2a.TaskStateRejected, a2a.TaskStateCanceled:
		msg := ""
		if t.Status.Message != nil {
			msg = ": " + oneLine(messageText(t.Status.Message))
		}
		fmt.Fprintf(f.io.Err, "warning: task %s %s%s\n", output.Sanitize(string(t.ID)), shortState(t.Status.State), output.Sanitize(msg))
		if f.opts.fail {
			return &exitcode.TaskOutcome{ID: t.ID, State: t.Status.State, Exit: exitcode.TaskFailed, Msg: msg}
		}
	case a2a.TaskStateInputRequired, a2a.TaskStateAuthRequired:
		what := "input"
		if t.Status.State == a2a.TaskStateAuthRequired {
			what = "authentication"
			fmt.Fprintf(f.io.Err, "hint: the task needs authentication: if the agent's card asks for OAuth, log in with:\n  a2a auth login %s\n",
				termsafe.ShellQuote(agentURL))
		}
		ref := f.env().Ref(agentURL) // with the opt-in of an agent that speaks only 0.3: the follow-up needs it too
		fmt.Fprintf(f.io.Err, "hint: the task needs %s; continue it with:\n  a2a send %s --task %s \"…\"\n",
			what, ref, termsafe.ShellQuote(string(t.ID)))
		if f.opts.fail {
			return &exitcode.TaskOutcome{ID: t.ID, State: t.Status.State, Exit: exitcode.TaskPaused}
		}
	}
	return nil
}

// failReplacesResult reports whether the result t is not printed because, under --fail with -o json, its outcome is
// a failure: the error document is printed instead (docs/CONTRACT.md, "Errors and exit codes": one document, the
// error instead of a result, as curl --fail prints no body).
// A stream (--stream, subscribe) is not replaced: its last line already carries the state, --fail sets the exit code.
func (f *factory) failReplacesResult(t *a2a.Task) bool {
	if t == nil || !f.opts.fail || f.opts.output != string(output.JSON) {
		return false
	}
	switch t.Status.State {
	case a2a.TaskStateFailed, a2a.TaskStateRejected, a2a.TaskStateCanceled, a2a.TaskStateInputRequired, a2a.TaskStateAuthRequired:
		f.failDoc = true
		return true
	}
	return false
}

func messageText(m *a2a.Message) string {
	var parts []string
	for _, p := range m.Parts {
		if t := p.Text(); t != "" {
			parts = append(parts, t)
		}
	}
	return strings.Join(parts, " ")
}

package follow

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/a2acli/a2a/internal/client"
	"github.com/a2acli/a2a/internal/termsafe"
	"github.com/a2aproject/a2a-go/v2/a2a"
)

// In-task authorization (A2A §7.6): a task at auth-required waits for credentials the agent receives out of band;
// the agent SHOULD take messages sent to the task meanwhile, and MAY go on as soon as it has the credentials,
// without one, refusing the message (a2a-go's handler refuses a message while the task's execution waits at
// auth-required, and goes on with the credentials the refused call carried). A client that sends a follow-up to
// such a task follows the task to its end either way: send --task, a chat's turn and the MCP bridge's continue tool
// alike, through AfterRefusal; they differ only in how they show it.

// ErrStillWaitsForCredentials ends AfterRefusal's wait for a task that did not move within --timeout.
var ErrStillWaitsForCredentials = errors.New("the task still waits for credentials")

// Refusal is a follow-up message the agent did not take, before any event of it arrived.
type Refusal struct {
	URL string     // the agent, as the user named it: for the commands a hint or a lost wait names
	ID  a2a.TaskID // the task the message went to
	// Prior is the task before the message when the caller asked (AuthPrior), nil when it did not: the task is then
	// asked about after the refusal, and only a status newer than Sent tells that it went on since the message.
	Prior *a2a.Task
	Sent  time.Time // when the message went out
	Err   error     // the refusal
	// Following, when set, is told once that the task is followed (given it as it stood), before any wait.
	Following func(*a2a.Task)
}

// AuthPrior is task id before a follow-up to it, when it waits at auth-required; nil otherwise (or when the agent
// cannot tell). Knowing it before the message, a follow is not ended by the agent's echo of it (FollowUp.Prior), and
// AfterRefusal needs not guess whether the task went on since.
func (e *Env) AuthPrior(ctx context.Context, c *client.Conn, id a2a.TaskID) *a2a.Task {
	task, err := e.getTask(ctx, c, id)
	if err != nil {
		e.Log.Printf("task %s before the follow-up: %v", id, err)
		return nil
	}
	if task == nil || task.Status.State != a2a.TaskStateAuthRequired {
		return nil
	}
	return task
}

// AfterRefusal is what follows a follow-up message the agent did not take (r). A task that waits at auth-required
// (r.Prior, or as asked after the refusal) is followed: the first change is awaited for --timeout (c.Timeout) at
// most (an agent that does nothing with the credentials by then will not), what follows a change by ctx (--wait)
// alone; so is a task whose status changed since r.Sent (it went on already). followed is false otherwise (or when
// the task cannot be asked about, or r.Err is no answer of the agent: the call cut short, timed out, out of reach
// or its credentials turned away): r.Err stands. A task that did not move is r.Err with ErrStillWaitsForCredentials
// and a hint naming the command that shows what the agent asks for; a wait that ends after a change names the task
// (GiveUp). onChange sees every new state.
func (e *Env) AfterRefusal(ctx context.Context, c *client.Conn, r Refusal, onChange func(*a2a.Task)) (final *a2a.Task, err error, followed bool) {
	if r.ID == "" || r.Err == nil || ctx.Err() != nil || !Refused(r.Err) {
		return nil, r.Err, false
	}
	prior := r.Prior
	if prior == nil {
		var gerr error
		prior, gerr = e.getTask(ctx, c, r.ID)
		if gerr != nil {
			e.Log.Printf("task %s after the refused message: %v", r.ID, gerr)
			return nil, r.Err, false
		}
		if prior == nil {
			return nil, r.Err, false
		}
	}
	if prior.Status.State != a2a.TaskStateAuthRequired {
		// Gone on since the message: the credentials it carried were what the task waited for.
		if ts := prior.Status.Timestamp; ts == nil || ts.Before(r.Sent.Add(-time.Second)) {
			return nil, r.Err, false
		}
		e.Log.Printf("the agent did not take the message (%v): task %s went on since", r.Err, r.ID)
		if r.Following != nil {
			r.Following(prior)
		}
		if onChange != nil {
			onChange(prior)
		}
		if Settled(prior.Status.State) {
			return prior, nil, true
		}
		state := prior.Status.State // the last state seen, for the message when the wait ends
		final, err := e.PollTask(ctx, c, r.ID, state, func(t *a2a.Task) {
			state = t.Status.State
			if onChange != nil {
				onChange(t)
			}
		})
		if err != nil {
			return prior, e.GiveUp(r.URL, r.ID, state, false, err), true
		}
		return final, nil, true
	}
	e.Log.Printf("the agent did not take the message (%v): following task %s, which waits for credentials", r.Err, r.ID)
	if r.Following != nil {
		r.Following(prior)
	}
	wctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	var timer *time.Timer
	if c.Timeout > 0 {
		timer = time.AfterFunc(c.Timeout, func() { cancel(ErrStillWaitsForCredentials) })
		defer timer.Stop()
	}
	state := prior.Status.State // the last state seen, for the message when the wait ends
	final, err = e.PollTaskPast(wctx, c, prior, func(t *a2a.Task) {
		state = t.Status.State
		if timer != nil {
			timer.Stop() // the agent moved: from here ctx alone bounds the wait
		}
		if onChange != nil {
			onChange(t)
		}
	})
	switch {
	case errors.Is(context.Cause(wctx), ErrStillWaitsForCredentials):
		return prior, client.WithHint(fmt.Errorf("%w (task %s: %w)", r.Err, r.ID, ErrStillWaitsForCredentials),
			fmt.Sprintf("check what the agent asks for with: a2a get task %s %s", e.Ref(r.URL), termsafe.ShellQuote(string(r.ID)))), true
	case err != nil:
		return prior, e.GiveUp(r.URL, r.ID, state, false, err), true
	}
	return final, nil, true
}

// Refused reports whether err, the end of a call that sent a message, is the agent's answer to it (it refused the
// message), not a call that got none: cut short, timed out, out of reach, turned away before the agent saw it (an
// HTTP status, unauthenticated or unauthorized: the credentials refused), or not made for want of credentials (none
// fits, the stored token could not be renewed). Only an agent that answered may have taken the credentials the call
// carried. It is exitcode.Classify's Failure for such an error (follow cannot import exitcode; its test checks).
func Refused(err error) bool {
	var he *client.HTTPStatusError
	var le *client.LoginError
	var ce *client.CredentialsError
	switch {
	case errors.Is(err, client.ErrInterrupted), errors.Is(err, client.ErrTimeout), client.IsUnreachable(err):
		return false
	case errors.Is(err, a2a.ErrUnauthenticated), errors.Is(err, a2a.ErrUnauthorized):
		return false
	}
	return !errors.As(err, &he) && !errors.As(err, &le) && !errors.As(err, &ce)
}

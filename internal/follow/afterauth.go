package follow

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/a2acli/a2a/internal/client"
	"github.com/a2aproject/a2a-go/v2/a2a"
)

// ErrStillWaitsForCredentials ends AfterRefusal's wait for a task that did not move within --timeout.
var ErrStillWaitsForCredentials = errors.New("the task still waits for credentials")

// AfterRefusal is what follows a follow-up message sent at sent on task id that the agent did not take (sendErr),
// before any event of it arrived. In-task authorization (A2A §7.6): a task at auth-required waits for credentials
// the agent receives out of band, and MAY go on as soon as it has them, refusing the message meanwhile (a2a-go's
// handler does, and goes on with the credentials the refused call carried). A task at auth-required is followed:
// the first change is awaited for c.Timeout at most (an agent that does nothing with the credentials by then will
// not), what follows a change by ctx alone; so is a task whose status changed since sent (it went on already).
// followed is false otherwise (or when the task cannot be asked about): sendErr stands. A task that did not move
// is sendErr with ErrStillWaitsForCredentials; onChange sees every new state.
func (e *Env) AfterRefusal(ctx context.Context, c *client.Conn, id a2a.TaskID, sent time.Time, sendErr error, onChange func(*a2a.Task)) (final *a2a.Task, err error, followed bool) {
	if id == "" || sendErr == nil || ctx.Err() != nil || errors.Is(sendErr, client.ErrInterrupted) {
		return nil, sendErr, false
	}
	prior, gerr := client.Unary(ctx, c, func(ctx context.Context) (*a2a.Task, error) {
		return c.GetTask(ctx, &a2a.GetTaskRequest{ID: id, Tenant: e.Tenant})
	})
	if gerr != nil {
		e.Log.Printf("task %s after the refused message: %v", id, gerr)
		return nil, sendErr, false
	}
	if prior == nil {
		return nil, sendErr, false
	}
	if prior.Status.State != a2a.TaskStateAuthRequired {
		// Gone on since the message: the credentials it carried were what the task waited for.
		if ts := prior.Status.Timestamp; ts == nil || ts.Before(sent.Add(-time.Second)) {
			return nil, sendErr, false
		}
		e.Log.Printf("the agent did not take the message (%v): task %s went on since", sendErr, id)
		if onChange != nil {
			onChange(prior)
		}
		if Settled(prior.Status.State) {
			return prior, nil, true
		}
		final, err := e.PollTask(ctx, c, id, prior.Status.State, onChange)
		if err != nil {
			return prior, err, true
		}
		return final, nil, true
	}
	e.Log.Printf("the agent did not take the message (%v): following task %s, which waits for credentials", sendErr, id)
	wctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	var timer *time.Timer
	if c.Timeout > 0 {
		timer = time.AfterFunc(c.Timeout, func() { cancel(ErrStillWaitsForCredentials) })
		defer timer.Stop()
	}
	final, err = e.PollTaskPast(wctx, c, prior, func(t *a2a.Task) {
		if timer != nil {
			timer.Stop() // the agent moved: from here ctx alone bounds the wait
		}
		if onChange != nil {
			onChange(t)
		}
	})
	if errors.Is(context.Cause(wctx), ErrStillWaitsForCredentials) {
		return prior, fmt.Errorf("%w (task %s: %w)", sendErr, id, ErrStillWaitsForCredentials), true
	}
	if err != nil {
		return prior, err, true
	}
	return final, nil, true
}

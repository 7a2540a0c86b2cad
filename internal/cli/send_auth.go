package cli

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/a2acli/a2a/internal/client"
	"github.com/a2acli/a2a/internal/exitcode"
	"github.com/a2acli/a2a/internal/termsafe"
	"github.com/a2aproject/a2a-go/v2/a2a"
)

// In-task authorization (A2A §7.6): a task at auth-required waits for credentials the agent receives out of band;
// the agent SHOULD take messages sent to the task meanwhile, and MAY go on as soon as it has the credentials,
// without one. After `a2a auth login`, `a2a send URL --task ID …` carries the new token either way: an agent that
// takes the message answers it; one that goes on by itself (a2a-go's handler refuses a message while the task's
// execution waits at auth-required) is followed until the task ends, as the specification asks of a client.

// authPrior is the task a follow-up goes to, when it waits at auth-required and this send carries credentials (the
// stored token of `auth login`, or the user's own); nil otherwise. Knowing it, an agent's answer that is the task as
// it stood is not taken for its reaction.
func (o *sendOptions) authPrior(ctx context.Context, c *client.Conn, req *a2a.SendMessageRequest) *a2a.Task {
	if o.followUp == nil || o.push.own || (!o.f.storedToken && !o.f.opts.hasCredentials()) {
		return nil
	}
	task, err := client.Unary(ctx, c, func(ctx context.Context) (*a2a.Task, error) {
		return c.GetTask(ctx, &a2a.GetTaskRequest{ID: req.Message.TaskID, Tenant: o.f.opts.Tenant})
	})
	if err != nil || task == nil || task.Status.State != a2a.TaskStateAuthRequired {
		if err != nil {
			o.f.log.Printf("task %s before the follow-up: %v", req.Message.TaskID, err)
		}
		return nil
	}
	o.followUp.Prior = &task.Status
	return task
}

// continueAfterAuth is what follows a follow-up to a task at auth-required (prior) that the agent did not take
// (sendErr): when the agent goes on with the task now that it has the credentials, the task is followed to its end
// and printed as the answer. A task still at auth-required --timeout later, or an error of another kind (the
// credentials refused, the agent unreachable), is sendErr.
func (o *sendOptions) continueAfterAuth(ctx context.Context, c *client.Conn, prior *a2a.Task, sendErr error) error {
	if o.sawEvent || exitcode.Classify(sendErr).Exit != exitcode.Failure || ctx.Err() != nil {
		return sendErr
	}
	o.f.log.Printf("the agent did not take the message (%v): following task %s, which waited for credentials", sendErr, prior.ID)
	fmt.Fprintf(o.f.io.Err, "The agent did not take the message; task %s waited for credentials: following it\n", termsafe.Line(string(prior.ID)))
	sp := o.f.startSpinner("waiting for the agent")
	defer sp.Stop()
	// An agent that does nothing with the credentials within --timeout will not: the wait for a first change is
	// bounded by it, and what follows a change by --wait alone.
	wctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	var timer *time.Timer
	if o.f.opts.Timeout > 0 {
		timer = time.AfterFunc(o.f.opts.Timeout, func() { cancel(errStillWaiting) })
		defer timer.Stop()
	}
	state := prior.Status.State
	final, err := o.f.env().PollTaskPast(wctx, c, prior, func(t *a2a.Task) {
		state = t.Status.State
		sp.Set(spinnerTask(t))
		if timer != nil {
			timer.Stop() // the agent moved: from here --wait alone bounds the wait
		}
	})
	sp.Stop()
	switch {
	case errors.Is(context.Cause(wctx), errStillWaiting):
		return client.WithHint(sendErr, fmt.Sprintf("task %s still waits for credentials: check what the agent asks for with: a2a get task %s %s",
			termsafe.Line(string(prior.ID)), o.f.env().Ref(o.url), termsafe.ShellQuote(string(prior.ID))))
	case err != nil:
		return o.f.env().GiveUp(o.url, prior.ID, state, false, err)
	}
	return o.printAnswer(final)
}

var errStillWaiting = errors.New("the task still waits for credentials")

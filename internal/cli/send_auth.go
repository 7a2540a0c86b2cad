package cli

import (
	"context"
	"fmt"
	"time"

	"github.com/a2acli/a2a/internal/client"
	"github.com/a2acli/a2a/internal/follow"
	"github.com/a2acli/a2a/internal/spinner"
	"github.com/a2acli/a2a/internal/termsafe"
	"github.com/a2aproject/a2a-go/v2/a2a"
)

// In-task authorization (A2A §7.6, see follow.AfterRefusal): after `a2a auth login`, `a2a send URL --task ID …`
// carries the new token; an agent that takes the message answers it, one that refuses it and goes on by itself
// with the credentials (a2a-go's handler) is followed until the task ends, as chat and mcp do. What is send's own is
// how it shows it: a line on stderr, a spinner, the answer printed as any other.

// authPrior is the task a follow-up goes to, when it waits at auth-required and this send carries credentials (the
// stored token of `auth login`, or the user's own); nil otherwise. Knowing it, an agent's answer that is the task as
// it stood is not taken for its reaction.
func (o *sendOptions) authPrior(ctx context.Context, c *client.Conn, req *a2a.SendMessageRequest) *a2a.Task {
	if o.followUp == nil || o.push.own || (!o.f.storedToken && !o.f.opts.hasCredentials()) {
		return nil
	}
	task := o.f.env().AuthPrior(ctx, c, req.Message.TaskID)
	if task != nil {
		o.followUp.Prior = &task.Status
	}
	return task
}

// afterRefusal is what follows a follow-up (req, sent at sent) to a task at auth-required (prior, from authPrior)
// that the agent did not take before any event of it (sendErr): follow.AfterRefusal, the task it follows printed as
// the answer. A send that carries no credentials (prior nil) brings the agent none to go on with: sendErr stands.
func (o *sendOptions) afterRefusal(ctx context.Context, c *client.Conn, req *a2a.SendMessageRequest, prior *a2a.Task, sent time.Time, sendErr error) error {
	if prior == nil || o.sawEvent {
		return sendErr
	}
	var sp *spinner.Spinner // nil until the task is followed (Set and Stop do nothing then)
	final, err, followed := o.f.env().AfterRefusal(ctx, c, follow.Refusal{
		URL: o.url, ID: req.Message.TaskID, Prior: prior, Sent: sent, Err: sendErr,
		Following: func(*a2a.Task) {
			fmt.Fprintf(o.f.io.Err, "The agent did not take the message; task %s waited for credentials: following it\n", termsafe.Line(string(req.Message.TaskID)))
			sp = o.f.startSpinner("waiting for the agent")
		},
	}, func(t *a2a.Task) { sp.Set(spinnerTask(t)) })
	sp.Stop()
	if !followed || err != nil {
		return err
	}
	return o.printAnswer(final)
}

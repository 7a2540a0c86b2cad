package cli

import (
	"context"
	"errors"
	"iter"

	"github.com/a2acli/a2a/internal/client"
	"github.com/a2acli/a2a/internal/follow"
	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/spf13/cobra"
)

type subscribeOptions struct {
	f          *factory
	withClient withClientFunc
	url, id    string
	save       string
}

func newSubscribeCmd(f *factory, runF func(context.Context, *subscribeOptions) error) *cobra.Command {
	o := &subscribeOptions{f: f, withClient: f.withClient}
	cmd := &cobra.Command{
		Use:   "subscribe <url> <task-id>",
		Short: "Stream a task's events until it ends",
		Long: `Stream a task's events to stdout until the task reaches a terminal or interrupted state. Output matches
send --stream (JSON Lines with -o json). Subscribing to a task that already ended prints its final state.
A stream that breaks is resumed (resubscribe, then GetTask polling every --poll-interval); --wait bounds the wait.
An agent whose card says it does not stream is polled with GetTask the same way, each change printed as it is seen.`,
		Example: `  a2a subscribe localhost:8080 <task-id>
  a2a subscribe localhost:8080 <task-id> -o json | jq -c .statusUpdate.status.state`,
		Args: exactArgs("<url>", "<task-id>"),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.url, o.id = args[0], args[1]
			if err := o.f.opts.wait.Check(cmd.CommandPath()); err != nil {
				return err
			}
			if runF != nil {
				return runF(cmd.Context(), o)
			}
			return runSubscribe(cmd.Context(), o)
		},
	}
	cmd.Flags().StringVar(&o.save, "save", "", "write file parts of the task's artifacts into `dir`")
	cmd.Flags().BoolVar(&f.opts.fail, "fail", false, "exit 6 when the task fails, is rejected or canceled; 7 when it needs input or auth")
	addWaitFlags(cmd, &f.opts.wait)
	return cmd
}

func runSubscribe(ctx context.Context, o *subscribeOptions) error {
	return o.withClient(ctx, o.url, func(ctx context.Context, c *client.Conn) error {
		ctx, cancel := o.f.waits().Context(ctx)
		defer cancel()
		id := a2a.TaskID(o.id)
		if c.Card != nil && !c.Card.Capabilities.Streaming {
			// Nothing to subscribe to: wait for the task by polling GetTask, as a stream that cannot be resumed is
			// (docs/CONTRACT.md, "Time").
			o.f.log.Printf("the agent's card says it does not stream: polling task %s", id)
			return o.f.followTask(ctx, c, o.url, o.save, func(t *follow.Turn) error { return t.Poll(ctx, id) })
		}
		err := o.f.followTask(ctx, c, o.url, o.save, func(t *follow.Turn) error {
			return t.Run(ctx, func(ctx context.Context) iter.Seq2[a2a.Event, error] {
				return emptyStreamRefusal(c.SubscribeToTask(ctx, &a2a.SubscribeToTaskRequest{ID: id, Tenant: o.f.opts.Tenant}))
			})
		})
		if err == nil || !finishedTaskRefusal(err) && !streamRefused(err) || client.RefusedForLimit(err) != "" {
			// A server that refuses for a limit (serve's --max-subscriptions-per-task) streams, and is busy: say so
			// rather than poll it.
			return err
		}
		// Agents refuse to subscribe to a task that already ended: show its final state instead.
		task, gerr := client.Unary(ctx, c, func(ctx context.Context) (*a2a.Task, error) {
			return c.GetTask(ctx, &a2a.GetTaskRequest{ID: id, Tenant: o.f.opts.Tenant})
		})
		if gerr != nil && errors.Is(err, errEmptyStream) {
			return gerr // what the refusal was about (TaskNotFoundError, say), which the empty stream lost
		}
		if gerr == nil && !follow.Settled(task.Status.State) && streamRefused(err) {
			// A card that says the agent streams when it does not: the task lives on, so poll it as above.
			o.f.log.Printf("the agent refused the subscription (%v): polling task %s", err, id)
			return o.f.followTask(ctx, c, o.url, o.save, func(t *follow.Turn) error { return t.Poll(ctx, id) })
		}
		if gerr != nil || !task.Status.State.Terminal() {
			return err
		}
		if err := follow.SaveFiles(o.f.io.Err, o.save, task.Artifacts); err != nil {
			return err
		}
		p := o.f.printer()
		if err := p.Event(task); err != nil {
			return err
		}
		if err := p.Close(); err != nil {
			return err
		}
		return o.f.outcome(o.url, task)
	})
}

// finishedTaskRefusal reports whether err is how agents refuse a subscription to a finished task (a2a-go's own
// handler answers TaskNotFoundError "no active execution").
func finishedTaskRefusal(err error) bool {
	for _, e := range []error{a2a.ErrTaskNotFound, a2a.ErrUnsupportedOperation, a2a.ErrTaskNotCancelable, a2a.ErrInvalidRequest,
		a2a.ErrInvalidParams, a2a.ErrInternalError, a2a.ErrServerError} {
		if errors.Is(err, e) {
			return true
		}
	}
	return false
}

// emptyStreamRefusal turns a stream that ends without a single event into an error. A server refuses a subscription
// to a finished task before its stream starts (UnsupportedOperationError); over JSON-RPC that is a plain JSON answer,
// which a2a-go's client reads as an empty event stream. The error sends runSubscribe to GetTask.
var errEmptyStream = a2a.NewError(a2a.ErrUnsupportedOperation, "the agent ended the stream without sending an event")

func emptyStreamRefusal(seq iter.Seq2[a2a.Event, error]) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {
		got := false
		for ev, err := range seq {
			got = true
			if !yield(ev, err) {
				return
			}
		}
		if !got {
			yield(nil, errEmptyStream)
		}
	}
}

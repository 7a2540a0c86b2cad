package e2e

import (
	"context"
	"fmt"
	"iter"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

// TestSubscribeInputRequiredTask: the a2a-go SDK's client subscribes to a task that `serve --reference` stopped at
// input-required, on every binding, v1.0 and v0.3. The stream starts with the task as it stands and stays open; the
// follow-up message that resumes the task reaches the subscriber, and the stream ends with the task's terminal
// state (§3.1.6: SubscribeToTask "can be used with any task that is not in a terminal state", its stream "MUST
// terminate when the task reaches a terminal state"; the TCK's STREAM-SUB-002). A second subscription is ended by
// the task's cancellation. serve used to end such a stream right after the snapshot.
func TestSubscribeInputRequiredTask(t *testing.T) {
	t.Parallel()
	for _, v03 := range []bool{false, true} {
		args := []string{"--reference", "--transport", "jsonrpc,rest,grpc"}
		if v03 {
			args = append(args, "--protocol", "0.3", "--card-compat")
		}
		s := startServe(t, args...)
		for i, tr := range []a2a.TransportProtocol{a2a.TransportProtocolJSONRPC, a2a.TransportProtocolHTTPJSON, a2a.TransportProtocolGRPC} {
			t.Run(fmt.Sprintf("v03=%v/%s", v03, tr), func(t *testing.T) {
				ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
				defer cancel()
				c := libClient(t, s.url, tr, v03)
				ask := func(n int) a2a.TaskID {
					msg := a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("start"))
					msg.ID = fmt.Sprintf("tck-input-required-%d-%d", i, n)
					res, err := c.SendMessage(ctx, &a2a.SendMessageRequest{Message: msg})
					task, ok := res.(*a2a.Task)
					if err != nil || !ok || task.Status.State != a2a.TaskStateInputRequired {
						t.Fatalf("SendMessage(%s) = %#v, %v; want a task at input-required", msg.ID, res, err)
					}
					return task.ID
				}
				// subscribe returns the subscription after its first event, the task as it stands.
				subscribe := func(id a2a.TaskID) (func() (a2a.Event, error, bool), func()) {
					next, stop := iter.Pull2(c.SubscribeToTask(ctx, &a2a.SubscribeToTaskRequest{ID: id}))
					ev, err, ok := next()
					if task, isTask := ev.(*a2a.Task); err != nil || !ok || !isTask || task.ID != id || task.Status.State != a2a.TaskStateInputRequired {
						t.Fatalf("SubscribeToTask(%s): first event %#v, %v, %v; want the task at input-required", id, ev, err, ok)
					}
					return next, stop
				}
				// rest reads the subscription to its end and returns the last state it reported.
				rest := func(next func() (a2a.Event, error, bool)) (last a2a.TaskState, n int) {
					for {
						ev, err, ok := next()
						if !ok {
							return last, n
						}
						if err != nil {
							t.Fatalf("subscription: %v after %d event(s)", err, n)
						}
						n++
						switch v := ev.(type) {
						case *a2a.TaskStatusUpdateEvent:
							last = v.Status.State
						case *a2a.Task:
							last = v.Status.State
						}
					}
				}

				id := ask(1)
				next, stop := subscribe(id)
				defer stop()
				follow := a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("Ada"))
				follow.TaskID = id
				res, err := c.SendMessage(ctx, &a2a.SendMessageRequest{Message: follow})
				if task, ok := res.(*a2a.Task); err != nil || !ok || task.Status.State != a2a.TaskStateCompleted {
					t.Fatalf("follow-up: %#v, %v; want the task completed", res, err)
				}
				if last, n := rest(next); last != a2a.TaskStateCompleted {
					t.Fatalf("subscription ended after %d more event(s) at %q, want the follow-up's turn ending completed", n, last)
				}

				id = ask(2)
				next, stop2 := subscribe(id)
				defer stop2()
				if _, err := c.CancelTask(ctx, &a2a.CancelTaskRequest{ID: id}); err != nil {
					t.Fatalf("CancelTask(%s) = %v", id, err)
				}
				if last, n := rest(next); last != a2a.TaskStateCanceled {
					t.Fatalf("subscription ended after %d more event(s) at %q, want canceled", n, last)
				}
			})
		}
	}
}

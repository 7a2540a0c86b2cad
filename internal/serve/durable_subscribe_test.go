package serve_test

import (
	"context"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2aclient"

	"github.com/a2acli/a2a/internal/serve"
	"github.com/a2acli/a2a/internal/serve/reference"
	"github.com/a2acli/a2a/internal/serve/servetest"
)

// TestReplicasSubscribeIdleTask: two replicas on one PostgreSQL; a subscription to a task waiting at input-required,
// opened on either replica, stays open and ends with the turn the follow-up starts, whichever replica runs it.
func TestReplicasSubscribeIdleTask(t *testing.T) {
	t.Parallel()
	url := serve.PostgresURL(t)
	backend := reference.New(reference.Config{})
	a := startServer(t, serve.Config{Store: url, Backend: backend})
	b := startServer(t, serve.Config{Store: url, Backend: backend})
	ca := servetest.NewClient(t, a.URL, a2a.TransportProtocolHTTPJSON)
	cb := servetest.NewClient(t, b.URL, a2a.TransportProtocolHTTPJSON)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()

	for i, c := range []struct {
		name          string
		start, resume *a2aclient.Client
		subA, subB    bool
	}{
		{"resumed where it started", ca, ca, true, true},
		{"resumed on the other replica", ca, cb, true, true},
	} {
		msg := a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("start"))
		msg.ID = "tck-input-required-" + string(rune('a'+i))
		res, err := c.start.SendMessage(ctx, &a2a.SendMessageRequest{Message: msg})
		task, ok := res.(*a2a.Task)
		if err != nil || !ok || task.Status.State != a2a.TaskStateInputRequired {
			t.Fatalf("%s: SendMessage = %#v, %v; want input-required", c.name, res, err)
		}
		type outcome struct {
			last a2a.TaskState
			err  error
		}
		var dones []chan outcome
		for _, sc := range []*a2aclient.Client{ca, cb} {
			first := make(chan struct{})
			done := make(chan outcome, 1)
			dones = append(dones, done)
			go func() {
				var o outcome
				n := 0
				for ev, err := range sc.SubscribeToTask(ctx, &a2a.SubscribeToTaskRequest{ID: task.ID}) {
					if err != nil {
						o.err = err
						break
					}
					if n++; n == 1 {
						close(first)
					}
					switch v := ev.(type) {
					case *a2a.TaskStatusUpdateEvent:
						o.last = v.Status.State
					case *a2a.Task:
						o.last = v.Status.State
					}
				}
				if n == 0 {
					close(first)
				}
				done <- o
			}()
			<-first
		}
		follow := a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("Ada"))
		follow.TaskID = task.ID
		if res, err := c.resume.SendMessage(ctx, &a2a.SendMessageRequest{Message: follow}); err != nil {
			t.Fatalf("%s: follow-up = %#v, %v", c.name, res, err)
		}
		for j, done := range dones {
			select {
			case o := <-done:
				if o.err != nil || o.last != a2a.TaskStateCompleted {
					t.Errorf("%s: subscription on replica %c ended at %q, %v; want completed", c.name, 'a'+j, o.last, o.err)
				}
			case <-ctx.Done():
				t.Fatalf("%s: subscription on replica %c still open", c.name, 'a'+j)
			}
		}
	}
}

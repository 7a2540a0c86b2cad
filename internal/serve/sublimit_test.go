package serve_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/a2acli/a2a/internal/serve"
	"github.com/a2acli/a2a/internal/serve/reference"
	"github.com/a2acli/a2a/internal/serve/servetest"
	"github.com/a2acli/a2a/internal/serve/tasks"
)

// TestSubscriptionLimits: subscriptions held open over HTTP+JSON on tasks idle at input-required are bounded per task
// (the default, tasks.MaxSubscriptionsPerTask) and in all; one more is refused with UnsupportedOperationError that
// says why, and a subscriber that goes away releases its slot.
func TestSubscriptionLimits(t *testing.T) {
	t.Parallel()
	const total = tasks.MaxSubscriptionsPerTask + 16
	srv := startServer(t, serve.WithSubscriptionLimits(serve.Config{Quiet: true, Backend: reference.New(reference.Config{})}, 0, total))
	c := servetest.NewClient(t, srv.URL, a2a.TransportProtocolHTTPJSON)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	idle := func(n int) a2a.TaskID {
		msg := a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("start"))
		msg.ID = fmt.Sprintf("tck-input-required-%d", n)
		res, err := c.SendMessage(ctx, &a2a.SendMessageRequest{Message: msg})
		task, ok := res.(*a2a.Task)
		if err != nil || !ok || task.Status.State != a2a.TaskStateInputRequired {
			t.Fatalf("SendMessage = %#v, %v; want input-required", res, err)
		}
		return task.ID
	}
	// open subscribes to id and returns once the first answer came: nil and a function that closes the
	// subscription (the client going away), or the refusal.
	open := func(id a2a.TaskID) (func(), error) {
		sctx, stop := context.WithCancel(ctx)
		first := make(chan error, 1)
		ended := make(chan struct{})
		go func() {
			defer close(ended)
			n := 0
			for _, err := range c.SubscribeToTask(sctx, &a2a.SubscribeToTaskRequest{ID: id}) {
				if n++; n == 1 {
					first <- err
				}
				if err != nil {
					return
				}
			}
			if n == 0 {
				first <- fmt.Errorf("the subscription ended without an event")
			}
		}()
		err := <-first
		if err != nil {
			stop()
			<-ended
			return nil, err
		}
		return func() { stop(); <-ended }, nil
	}
	var closers []func()
	defer func() {
		for _, f := range closers {
			f()
		}
	}()
	hold := func(id a2a.TaskID, n int) []func() {
		t.Helper()
		var cs []func()
		for i := range n {
			f, err := open(id)
			if err != nil {
				t.Fatalf("subscription %d to %s: %v, want it open", i+1, id, err)
			}
			cs = append(cs, f)
		}
		closers = append(closers, cs...)
		return cs
	}
	a, b, d := idle(1), idle(2), idle(3)
	onA := hold(a, tasks.MaxSubscriptionsPerTask)
	if _, err := open(a); !servetest.ErrorIs(err, a2a.ErrUnsupportedOperation) {
		t.Fatalf("subscription %d to one task = %v, want UnsupportedOperationError", tasks.MaxSubscriptionsPerTask+1, err)
	} else {
		wantIn(t, err.Error(), "too many subscriptions to task "+string(a))
	}
	hold(b, total-tasks.MaxSubscriptionsPerTask)
	if _, err := open(d); !servetest.ErrorIs(err, a2a.ErrUnsupportedOperation) {
		t.Fatalf("subscription %d in all = %v, want UnsupportedOperationError", total+1, err)
	} else {
		wantIn(t, err.Error(), fmt.Sprintf("too many subscriptions: %d are open", total))
	}

	// Subscribers that go away release their slots: on their task, and in all.
	for _, f := range onA[:2] {
		f()
	}
	var got []func()
	if !servetest.Eventually(10*time.Second, func() bool {
		f, err := open(d)
		if err == nil {
			got = append(got, f)
		}
		return len(got) == 1
	}) {
		t.Fatal("a subscription is still refused after two subscribers went away")
	}
	if f, err := open(a); err != nil {
		t.Fatalf("subscription to %s after two of its subscribers left: %v, want it open", a, err)
	} else {
		got = append(got, f)
	}
	closers = append(closers, got...)
}

func wantIn(t *testing.T, s, want string) {
	t.Helper()
	if !strings.Contains(s, want) {
		t.Errorf("error %q, want it to say %q", s, want)
	}
}

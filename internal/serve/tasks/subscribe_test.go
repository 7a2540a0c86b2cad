package tasks

import (
	"context"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/a2acli/a2a/internal/serve/servetest"
)

// askAgent stops its first turn at input-required and completes every later one.
type askAgent struct{}

func (askAgent) Reply(*a2a.Message) *a2a.Message { return nil }

func (askAgent) Run(_ context.Context, t *Turn) (a2a.TaskState, *a2a.Message) {
	if t.Message.TaskID != "" && len(t.Message.Parts) > 0 && t.Message.Parts[0].Text() == "ask" {
		return a2a.TaskStateInputRequired, nil
	}
	return a2a.TaskStateCompleted, nil
}

// idleTask starts a task that stops at input-required and waits until it is idle.
func idleTask(t *testing.T, r *Runner) a2a.TaskID {
	t.Helper()
	sub := NewSubscriber()
	snap, err := r.Start(&a2a.Message{ID: "m1", Role: a2a.MessageRoleUser, Parts: a2a.ContentParts{a2a.NewTextPart("ask")}}, sub, StartOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for range sub.ch { // the turn's events, up to its end
	}
	return snap.ID
}

// drain reads sub's events until its channel closes, failing after a few seconds.
func drain(t *testing.T, sub *Subscriber) []a2a.Event {
	t.Helper()
	var evs []a2a.Event
	timeout := time.After(10 * time.Second)
	for {
		select {
		case ev, ok := <-sub.ch:
			if !ok {
				return evs
			}
			evs = append(evs, ev)
		case <-timeout:
			t.Fatalf("subscription still open after %d event(s)", len(evs))
		}
	}
}

func lastState(evs []a2a.Event) a2a.TaskState {
	if len(evs) == 0 {
		return a2a.TaskStateUnspecified
	}
	if st, ok := evs[len(evs)-1].(*a2a.TaskStatusUpdateEvent); ok {
		return st.Status.State
	}
	return a2a.TaskStateUnspecified
}

// TestSubscribeIdleTaskStaysOpen: a subscription to a task waiting at input-required is attached, gets the turn a
// follow-up message starts and ends with it (§3.1.6); another is ended by the task's cancellation, another by
// shutdown. It used to end after the snapshot.
func TestSubscribeIdleTaskStaysOpen(t *testing.T) {
	t.Parallel()
	r := NewRunner(NewStore(0, 0, nil), askAgent{}, nil)
	id := idleTask(t, r)
	sub := NewSubscriber()
	snap, attached, err := r.subscribe(id, sub, false)
	if err != nil || !attached || snap.Status.State != a2a.TaskStateInputRequired {
		t.Fatalf("subscribe(input-required task) = %v, attached %v, %v; want attached to the input-required task", snap, attached, err)
	}
	if _, err := r.Start(&a2a.Message{ID: "m2", TaskID: id, Role: a2a.MessageRoleUser, Parts: a2a.ContentParts{a2a.NewTextPart("done")}}, nil, StartOptions{}); err != nil {
		t.Fatal(err)
	}
	if evs := drain(t, sub); lastState(evs) != a2a.TaskStateCompleted {
		t.Fatalf("subscriber got %v, want the follow-up's turn ending completed", evs)
	}
	// A terminal task is refused, as before.
	if _, _, err := r.subscribe(id, NewSubscriber(), false); !servetest.ErrorIs(err, a2a.ErrUnsupportedOperation) {
		t.Fatalf("subscribe(completed task) = %v, want UnsupportedOperationError", err)
	}

	// Canceled while idle: the cancellation is the last event.
	id = idleTask(t, r)
	sub = NewSubscriber()
	if _, _, err := r.subscribe(id, sub, false); err != nil {
		t.Fatal(err)
	}
	if _, err := r.cancel(context.Background(), id); err != nil {
		t.Fatal(err)
	}
	if evs := drain(t, sub); len(evs) != 1 || lastState(evs) != a2a.TaskStateCanceled {
		t.Fatalf("subscriber got %v, want the cancellation alone", evs)
	}

	// A subscriber that left does not hold the follow-up's turn.
	id = idleTask(t, r)
	gone := NewSubscriber()
	if _, _, err := r.subscribe(id, gone, false); err != nil {
		t.Fatal(err)
	}
	r.Unsubscribe(id, gone)
	done := NewSubscriber()
	if _, err := r.Start(&a2a.Message{ID: "m3", TaskID: id, Role: a2a.MessageRoleUser, Parts: a2a.ContentParts{a2a.NewTextPart("x")}}, done, StartOptions{}); err != nil {
		t.Fatal(err)
	}
	if evs := drain(t, done); lastState(evs) != a2a.TaskStateCompleted {
		t.Fatalf("follow-up got %v, want completed", evs)
	}

	// Shutdown ends the subscriptions of idle tasks, which stay as they were.
	id = idleTask(t, r)
	sub = NewSubscriber()
	if _, _, err := r.subscribe(id, sub, false); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := r.shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	if evs := drain(t, sub); len(evs) != 0 {
		t.Fatalf("subscriber got %v at shutdown, want its stream ended", evs)
	}
	if task, _ := r.store.view(id, nil); task.Status.State != a2a.TaskStateInputRequired {
		t.Fatalf("after shutdown the idle task is %s, want input-required", task.Status.State)
	}
}

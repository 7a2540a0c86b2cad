package tasks

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/a2acli/a2a/internal/store"
)

// A task running on another replica (shared store) is followed and canceled through the store: its events come
// from the events table as the owner writes them, a cancel is a request the owner picks up (durable.go).

// remoteRun is the answer of subscribe and cancel for a task running on another replica.
type remoteRun struct {
	owner string
	seq   int64
	snap  *a2a.Task
	// idle: the task runs nowhere yet (input-required on a shared store); follow waits for the turn that resumes it.
	idle bool
}

func (e *remoteRun) Error() string {
	if e.idle {
		return fmt.Sprintf("task %s waits for input", e.snap.ID)
	}
	return fmt.Sprintf("task %s runs on replica %s", e.snap.ID, e.owner)
}

// finalEvent reports whether ev ends a turn: subscriptions end with it.
func finalEvent(ev a2a.Event) bool {
	st, ok := ev.(*a2a.TaskStatusUpdateEvent)
	if !ok {
		return false
	}
	s := st.Status.State
	return s.Terminal() || s == a2a.TaskStateInputRequired || s == a2a.TaskStateAuthRequired
}

// follow streams the events of a task running on another replica, as stored by it, until its turn ends; for a
// task that was idle (rr.idle), until the turn that resumes it ends, or its cancellation.
func (d *durable) follow(ctx context.Context, rr *remoteRun, yield func(a2a.Event, error) bool) {
	id := rr.snap.ID
	ch, stop := d.st.Watch(id)
	defer stop()
	if !yield(rr.snap, nil) {
		return
	}
	after := rr.seq
	started := !rr.idle                 // a turn runs (or ran) since the subscription began
	tick := time.NewTicker(time.Second) // notifications are lost while a listener reconnects: look again anyway
	defer tick.Stop()
	for {
		evs, err := d.st.Events(ctx, id, after)
		if err != nil {
			yield(nil, d.fail(err))
			return
		}
		for _, ev := range evs {
			if !yield(ev.Event, nil) {
				return
			}
			after = ev.Seq
			if finalEvent(ev.Event) {
				return
			}
		}
		select {
		case <-ch:
		case <-tick.C:
			snap, err := d.st.Load(ctx, id)
			if err == nil && snap.Owner != "" {
				started = true
			}
			if err == nil && snap.Owner == "" && snap.Seq <= after && (started || after > rr.seq) {
				// The turn ended and its events are gone (retention): end with the task as it is.
				yield(snap.Task, nil)
				return
			}
		case <-ctx.Done():
			return
		}
	}
}

// cancelRemote asks the replica running a task to cancel it and waits for its final state.
func (d *durable) cancelRemote(ctx context.Context, id a2a.TaskID) (*a2a.Task, error) {
	ch, stop := d.st.Watch(id)
	defer stop()
	if err := d.st.RequestCancel(ctx, id); err != nil {
		return nil, d.fail(err)
	}
	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()
	for {
		snap, err := d.st.Load(ctx, id)
		if err != nil && !errors.Is(err, store.ErrNotFound) {
			return nil, d.fail(err)
		}
		if err == nil && snap.Owner == "" {
			return snap.Task, nil
		}
		select {
		case <-ch:
		case <-tick.C:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

package store

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

// TestLostTaskKeepsTheSweepersEnd: a replica paused longer than its lease finds, when it comes back, that another
// replica failed its running task (and told that task's followers so). Its own end of the task is then not written
// over the other's, nor are its later events; it hears of the loss through OnLost. Without the check the paused
// replica's "completed" replaced the "failed" the others had reported: a task that ended twice, differently.
func TestLostTaskKeepsTheSweepersEnd(t *testing.T) {
	t.Parallel()
	url := pgURL(t)
	lost := make(chan a2a.TaskID, 1)
	a, ats := open(t, url, Options{OnLost: func(id a2a.TaskID) { lost <- id }})
	b, _ := open(t, url, Options{})
	ctx := context.Background()
	now := time.Now()
	tk := task("paused", a2a.TaskStateWorking, now)
	ats.put(a, &Snapshot{Task: tk, Updated: now, Owner: a.Replica(), Seq: 1}, true)
	flush(t, a)
	// a's lease runs out (as in a pause longer than it); b's sweep fails a's running task.
	if _, err := b.db.Exec(`UPDATE a2a_replicas SET lease_until = 0 WHERE id = $1`, a.Replica()); err != nil {
		t.Fatal(err)
	}
	if err := b.sweep(ctx); err != nil {
		t.Fatal(err)
	}
	// a comes back: its turn goes on, then ends.
	a.Append(tk.ID, 2, a2a.NewArtifactEvent(tk, a2a.NewTextPart("late chunk")))
	done := task("paused", a2a.TaskStateCompleted, time.Now())
	ats.put(a, &Snapshot{Task: done, Updated: time.Now(), Seq: 3}, true)
	flush(t, a)
	if id := wait(t, lost, "OnLost"); id != tk.ID {
		t.Fatalf("OnLost(%s), want %s", id, tk.ID)
	}
	got, err := b.Load(ctx, tk.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Task.Status.State != a2a.TaskStateFailed || got.Owner != "" {
		t.Fatalf("the store says %s (owner %q), want the sweeper's failed", got.Task.Status.State, got.Owner)
	}
	evs, err := b.Events(ctx, tk.ID, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range evs {
		if ev, ok := e.Event.(*a2a.TaskArtifactUpdateEvent); ok {
			t.Fatalf("the lost replica's event was written: %#v", ev)
		}
	}
	// Once lost, never written again from a, and a turn waiting for its end to be saved hears so (ErrLost): the
	// end to tell is the store's.
	ats.put(a, &Snapshot{Task: done, Updated: time.Now(), Seq: 4}, true)
	if err := a.FlushTask(ctx, tk.ID); !errors.Is(err, ErrLost) {
		t.Fatalf("FlushTask of the lost task: %v, want ErrLost", err)
	}
	if got, _ := b.Load(ctx, tk.ID); got.Task.Status.State != a2a.TaskStateFailed {
		t.Fatalf("a later write replaced the sweeper's end: %s", got.Task.Status.State)
	}
	// A task a runs and no one swept is written as before.
	ok := task("fine", a2a.TaskStateWorking, now)
	ats.put(a, &Snapshot{Task: ok, Updated: now, Owner: a.Replica()}, true)
	flush(t, a)
	ats.put(a, &Snapshot{Task: task("fine", a2a.TaskStateCompleted, time.Now()), Updated: time.Now()}, true)
	if err := a.FlushTask(ctx, "fine"); err != nil {
		t.Fatalf("FlushTask of a task no one swept: %v", err)
	}
	if got, err := b.Load(ctx, "fine"); err != nil || got.Task.Status.State != a2a.TaskStateCompleted {
		t.Fatalf("a task no one swept: %v %v", got, err)
	}
}

package store

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/a2acli/a2a/internal/store/pgtest"
)

func pgURL(t *testing.T) string {
	t.Helper()
	pgtest.Need(t, pg)
	u, err := pg.NewDB()
	if err != nil {
		t.Fatal(err)
	}
	return u
}

func wait[T any](t *testing.T, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(10 * time.Second):
		t.Fatalf("no %s within 10s", what)
		panic("unreachable")
	}
}

// TestEventsAcrossReplicas: events appended on one replica reach a watcher on another through NOTIFY, in order,
// as one batch per write.
func TestEventsAcrossReplicas(t *testing.T) {
	t.Parallel()
	url := pgURL(t)
	a, ats := open(t, url, Options{})
	b, _ := open(t, url, Options{})
	now := time.Now()
	tk := task("t", a2a.TaskStateWorking, now)
	ch, stop := b.Watch(tk.ID)
	defer stop()
	for i := int64(1); i <= 3; i++ {
		a.Append(tk.ID, i, a2a.NewArtifactEvent(tk, a2a.NewTextPart("chunk")))
	}
	ats.put(a, &Snapshot{Task: tk, Updated: now, Owner: a.Replica(), Seq: 3}, true)
	var evs []Event
	for len(evs) == 0 {
		wait(t, ch, "notification") // also sent when the listener (re)connects: look again
		var err error
		if evs, err = b.Events(context.Background(), tk.ID, 1); err != nil {
			t.Fatal(err)
		}
	}
	if len(evs) != 2 || evs[0].Seq != 2 || evs[1].Seq != 3 {
		t.Fatalf("Events after 1 = %+v, want seq 2 and 3", evs)
	}
	if ev, ok := evs[0].Event.(*a2a.TaskArtifactUpdateEvent); !ok || ev.Artifact.Parts[0].Text() != "chunk" {
		t.Fatalf("event = %#v", evs[0].Event)
	}
}

// TestCancelAcrossReplicas: a cancel request written by one replica reaches the owner's OnCancel.
func TestCancelAcrossReplicas(t *testing.T) {
	t.Parallel()
	url := pgURL(t)
	got := make(chan a2a.TaskID, 1)
	a, ats := open(t, url, Options{OnCancel: func(id a2a.TaskID) { got <- id }})
	b, _ := open(t, url, Options{})
	now := time.Now()
	ats.put(a, &Snapshot{Task: task("t", a2a.TaskStateWorking, now), Updated: now, Owner: a.Replica()}, true)
	flush(t, a)
	start := time.Now()
	if err := b.RequestCancel(context.Background(), "t"); err != nil {
		t.Fatal(err)
	}
	if id := wait(t, got, "OnCancel"); id != "t" {
		t.Fatalf("OnCancel(%s), want t", id)
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("cancel took %s, want under a second", d)
	}
}

// TestSweepFailsDeadReplicaTasks: a replica whose lease expired (it was killed: no Close) has its running tasks
// failed by another, with a message naming it; its finished tasks and other replicas' tasks are left alone.
func TestSweepFailsDeadReplicaTasks(t *testing.T) {
	t.Parallel()
	url := pgURL(t)
	b, _ := open(t, url, Options{Lease: 300 * time.Millisecond})
	ch, stop := b.Watch("orphan")
	defer stop()
	ctx := context.Background()
	past := time.Now().Add(-time.Minute)
	if _, err := b.db.Exec(`INSERT INTO a2a_replicas (id, lease_until) VALUES ('dead-1', $1)`, past.UnixNano()); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		id    string
		state a2a.TaskState
		owner string
	}{{"orphan", a2a.TaskStateWorking, "dead-1"}, {"done", a2a.TaskStateCompleted, ""}, {"mine", a2a.TaskStateWorking, b.Replica()}} {
		r, err := encodeRow(&Snapshot{Task: task(tc.id, tc.state, past), Updated: past, Owner: tc.owner, Seq: 7})
		if err != nil {
			t.Fatal(err)
		}
		tx, _ := b.db.Begin()
		if _, err := b.upsert(ctx, tx, []*taskRow{r}); err != nil {
			t.Fatal(err)
		}
		tx.Commit()
	}
	var got *Snapshot
	for got == nil || got.Task.Status.State == a2a.TaskStateWorking {
		wait(t, ch, "notification of the sweep") // also sent when the listener (re)connects: look again
		var err error
		if got, err = b.Load(ctx, "orphan"); err != nil {
			t.Fatal(err)
		}
	}
	if got.Task.Status.State != a2a.TaskStateFailed || got.Owner != "" ||
		!strings.Contains(got.Task.Status.Message.Parts[0].Text(), "replica dead-1 stopped while the task was running") {
		t.Fatalf("orphan = %+v", got.Task.Status)
	}
	evs, err := b.Events(ctx, "orphan", 7)
	if err != nil || len(evs) != 1 {
		t.Fatalf("events of the orphan = %+v, %v: want its final status", evs, err)
	}
	if mine, _ := b.Load(ctx, "mine"); mine.Task.Status.State != a2a.TaskStateWorking {
		t.Fatalf("the live replica's task = %s, want working", mine.Task.Status.State)
	}
}

// TestStoreDownAndBack: while PostgreSQL is stopped, writes fail with an error naming the store (password
// redacted) and Err reports it; once it is back, the pending changes are written and Err is nil again.
func TestStoreDownAndBack(t *testing.T) {
	pgtest.Need(t, pg)
	srv, err := pgtest.New() // its own server: stopping the shared one would break the other tests
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	url, err := srv.NewDB()
	if err != nil {
		t.Fatal(err)
	}
	s, ts := open(t, url, Options{})
	now := time.Now()
	srv.Stop()
	ts.put(s, &Snapshot{Task: task("t", a2a.TaskStateCompleted, now), Updated: now}, true)
	err = s.Flush(context.Background())
	if err == nil || !strings.Contains(err.Error(), "task store postgres://postgres:xxxxx@127.0.0.1:") || strings.Contains(err.Error(), "s3cret") {
		t.Fatalf("Flush with the store down: %v, want an error naming the store, password redacted", err)
	}
	if s.Err() == nil {
		t.Fatal("Err() = nil with the store down")
	}
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	flush(t, s)
	if s.Err() != nil {
		t.Fatalf("Err() = %v after the store came back", s.Err())
	}
	if got, err := s.Load(context.Background(), "t"); err != nil || got.Task.Status.State != a2a.TaskStateCompleted {
		t.Fatalf("Load after recovery = %+v, %v", got, err)
	}
}

package store

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/a2acli/a2a/internal/store/pgtest"
	"github.com/a2acli/a2a/internal/syncbuf"
)

// TestBacklogBounded: while PostgreSQL is away, events pile up in memory only up to MaxBacklog: past it WaitRoom
// holds the turn that would add more, and once the database is back every event is written, in order, and the turn
// goes on. Without the bound the backlog grows for as long as the database is away.
func TestBacklogBounded(t *testing.T) {
	t.Parallel()
	pgtest.Need(t, pg)
	srv, err := pgtest.New()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	url, err := srv.NewDB()
	if err != nil {
		t.Fatal(err)
	}
	const bound = 64 << 10
	logs := &syncbuf.Buffer{}
	s, ts := open(t, url, Options{MaxBacklog: bound, Logf: func(f string, a ...any) { fmt.Fprintf(logs, f, a...) }})
	now := time.Now()
	tk := task("t", a2a.TaskStateWorking, now)
	ts.put(s, &Snapshot{Task: tk, Updated: now, Owner: s.Replica()}, true)
	flush(t, s)
	if err := s.WaitRoom(context.Background()); err != nil {
		t.Fatalf("WaitRoom with an empty backlog: %v", err)
	}

	srv.Stop()
	chunk := strings.Repeat("x", 1000)
	ctx := context.Background()
	seq := int64(0)
	for s.Backlog() <= bound {
		seq++
		s.Append(tk.ID, seq, a2a.NewArtifactEvent(tk, a2a.NewTextPart(chunk)))
	}
	if got := s.Backlog(); got > bound+EventSize(a2a.NewArtifactEvent(tk, a2a.NewTextPart(chunk))) {
		t.Fatalf("backlog %d bytes, want at most one event past %d", got, bound)
	}
	short, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	err = s.WaitRoom(short)
	cancel()
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("WaitRoom past the bound with the database away = %v, want it to wait", err)
	}

	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	long, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if err := s.WaitRoom(long); err != nil {
		t.Fatalf("WaitRoom once the database is back: %v\n%s", err, logs)
	}
	flush(t, s)
	if got := s.Backlog(); got != 0 {
		t.Errorf("backlog %d bytes after a flush, want 0", got)
	}
	evs, err := s.Events(ctx, tk.ID, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(evs) != int(seq) || evs[0].Seq != 1 || evs[len(evs)-1].Seq != seq {
		t.Fatalf("%d events written (seq %d to %d), want 1 to %d", len(evs), evs[0].Seq, evs[len(evs)-1].Seq, seq)
	}
	if !strings.Contains(logs.String(), "running tasks pause") {
		t.Errorf("the full backlog was not logged: %q", logs.String())
	}
}

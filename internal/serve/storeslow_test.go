package serve

import (
	"context"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/jackc/pgx/v5"

	"github.com/a2acli/a2a/internal/serve/servetest"
)

// TestStoreSlowTurnEnd: a database that is reachable but slower than the 5 s a turn's end waits for a store that
// is away (here its tasks table locked for 7 s) delays the answer; it does not turn it into "task … ended but is
// not saved yet", which the store being away means. Under 70% load the soak saw that false error.
func TestStoreSlowTurnEnd(t *testing.T) {
	t.Parallel()
	db := postgresURL(t)
	s := startServer(t, Config{Store: db, Quiet: true})
	ctx := context.Background()
	c := servetest.NewClient(t, s.URL, a2a.TransportProtocolHTTPJSON)
	if _, err := c.SendMessage(ctx, servetest.TextMessage("warm")); err != nil {
		t.Fatal(err)
	}
	conn, err := pgx.Connect(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	tx, err := conn.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(ctx, `LOCK TABLE a2a_tasks IN ACCESS EXCLUSIVE MODE`); err != nil {
		t.Fatal(err)
	}
	// The lock is the fault, held for a fixed time longer than the hold of a store that is away.
	released := make(chan struct{})
	time.AfterFunc(7*time.Second, func() {
		tx.Rollback(ctx) //nolint:errcheck // ends the lock either way
		close(released)
	})
	defer func() { <-released }() // before conn.Close: a pgx connection is one goroutine's at a time
	start := time.Now()
	res, err := c.SendMessage(ctx, servetest.TextMessage("slow store"))
	if err != nil {
		t.Fatalf("SendMessage while the store is slow (after %s): %v", time.Since(start).Round(time.Millisecond), err)
	}
	if tk, ok := res.(*a2a.Task); !ok || tk.Status.State != a2a.TaskStateCompleted {
		t.Fatalf("SendMessage = %#v, want a completed task", res)
	}
	if d := time.Since(start); d < 6*time.Second {
		t.Errorf("answered after %s, before the lock was released: the end was not saved first", d)
	}
}

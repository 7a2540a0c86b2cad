package serve_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/jackc/pgx/v5"

	"github.com/a2acli/a2a/internal/serve"
	"github.com/a2acli/a2a/internal/serve/execbackend"

	"github.com/a2acli/a2a/internal/serve/servetest"
)

// TestGetTaskEndIsSaved: GetTask on the replica that ran a task reports its end only once the end is in the store.
// Before, it read the end from memory while the write was still under way, and a replica killed then left a client
// told "completed" about a task the other replicas failed (the soak's poll saw it). Here the write is held back by
// a lock on the tasks table; whenever GetTask says the task ended, the database says so too.
func TestGetTaskEndIsSaved(t *testing.T) {
	t.Parallel()
	db := serve.PostgresURL(t)
	gate := filepath.Join(t.TempDir(), "go")
	s := startServer(t, serve.Config{Store: db, Quiet: true, Backend: execbackend.New(execbackend.Config{
		Command: `read l; while [ ! -e ` + gate + ` ]; do sleep 0.02; done; echo done`})})
	ctx := context.Background()
	c := servetest.NewClient(t, s.URL, a2a.TransportProtocolHTTPJSON)
	id := servetest.StartTask(t, c, "go")
	conn, err := pgx.Connect(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	lock, err := pgx.Connect(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	tx, err := lock.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(ctx, `LOCK TABLE a2a_tasks IN EXCLUSIVE MODE`); err != nil { // writes wait, reads do not
		t.Fatal(err)
	}
	released := make(chan struct{})
	time.AfterFunc(3*time.Second, func() { // the fault: writes held back for a while
		tx.Rollback(ctx) //nolint:errcheck // ends the lock either way
		lock.Close(ctx)
		close(released)
	})
	defer func() { <-released }()
	if err := os.WriteFile(gate, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		got, err := c.GetTask(ctx, &a2a.GetTaskRequest{ID: id})
		if err != nil {
			t.Fatal(err)
		}
		if got.Status.State.Terminal() {
			var stored string
			if err := conn.QueryRow(ctx, `SELECT state FROM a2a_tasks WHERE id = $1`, string(id)).Scan(&stored); err != nil {
				t.Fatal(err)
			}
			if stored != string(got.Status.State) {
				t.Fatalf("GetTask says %s while the store says %s", got.Status.State, stored)
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the task did not end: %s", got.Status.State)
		}
	}
}

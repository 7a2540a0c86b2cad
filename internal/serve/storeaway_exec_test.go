package serve_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/a2acli/a2a/internal/serve"
	"github.com/a2acli/a2a/internal/serve/execbackend"
	"github.com/a2acli/a2a/internal/serve/servetest"
	"github.com/a2aproject/a2a-go/v2/a2a"
)

// TestStoreAwayCancel: a cancel while PostgreSQL is stopped stops the command but is not reported done until its end
// is saved: the caller gets "not saved yet", and the task is canceled once the store is back.
func TestStoreAwayCancel(t *testing.T) {
	t.Parallel()
	srv, db := servetest.OwnPostgres(t) // skips without PostgreSQL
	s := startServer(t, serve.Config{Store: db, Quiet: true, Backend: execbackend.New(execbackend.Config{Command: "exec sleep 60"})})
	ctx := context.Background()
	c := servetest.NewClient(t, s.URL, a2a.TransportProtocolHTTPJSON)
	id := servetest.StartTask(t, c, "slow")

	srv.Stop()
	if got, err := c.CancelTask(ctx, &a2a.CancelTaskRequest{ID: id}); err == nil || !strings.Contains(err.Error(), "not saved yet") {
		t.Fatalf("CancelTask while the store is away: %v %v", got, err)
	}
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	var got *a2a.Task
	var err error
	if !servetest.Eventually(30*time.Second, func() bool {
		got, err = c.GetTask(ctx, &a2a.GetTaskRequest{ID: id})
		return err == nil && got.Status.State == a2a.TaskStateCanceled
	}) {
		t.Fatalf("GetTask once the store is back: %v %v", got, err)
	}
}

package serve_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/a2acli/a2a/internal/serve"
	"github.com/a2acli/a2a/internal/serve/execbackend"
	"github.com/a2acli/a2a/internal/store/pgtest"
	"github.com/a2acli/a2a/internal/syncbuf"

	"github.com/a2acli/a2a/internal/serve/servetest"
)

// TestStoreBacklogPausesTurn: a command that writes more than --store-backlog while PostgreSQL is away is paused
// (its output is not read) instead of piling its chunks up in memory; once the database is back it goes on, and
// its task completes with every chunk.
func TestStoreBacklogPausesTurn(t *testing.T) {
	t.Parallel()
	serve.PostgresURL(t) // skips without PostgreSQL
	srv, err := pgtest.New()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	db, err := srv.NewDB()
	if err != nil {
		t.Fatal(err)
	}
	gate := filepath.Join(t.TempDir(), "go")
	const lines = 2000
	line := strings.Repeat("y", 199)
	script := `read l; while [ ! -e ` + gate + ` ]; do sleep 0.02; done; i=0; while [ $i -lt ` + "2000" + ` ]; do echo ` + line + `; i=$((i+1)); done`
	log := &syncbuf.Buffer{}
	s := startServer(t, serve.Config{Store: db, StoreBacklog: 64 << 10, Quiet: true, Log: log,
		Backend: execbackend.New(execbackend.Config{Command: script, Chunk: []byte("\n")})})
	ctx := context.Background()
	c := servetest.NewClient(t, s.URL, a2a.TransportProtocolHTTPJSON)
	id := servetest.StartTask(t, c, "go")

	srv.Stop()
	if err := os.WriteFile(gate, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if !servetest.Eventually(30*time.Second, func() bool { return strings.Contains(log.String(), "running tasks pause") }) {
		t.Fatalf("no pause while the store is away:\n%s", log)
	}
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	var got *a2a.Task
	if !servetest.Eventually(60*time.Second, func() bool {
		got, err = c.GetTask(ctx, &a2a.GetTaskRequest{ID: id})
		return err == nil && got.Status.State == a2a.TaskStateCompleted
	}) {
		t.Fatalf("GetTask once the store is back: %v %v\n%s", got, err, log)
	}
	var out strings.Builder
	for _, a := range got.Artifacts {
		for _, p := range a.Parts {
			out.WriteString(p.Text())
		}
	}
	if want := strings.Repeat(line+"\n", lines); out.String() != want {
		t.Fatalf("output of %d bytes, want %d (every line)", out.Len(), len(want))
	}
}

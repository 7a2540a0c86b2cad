package serve_test

import (
	"cmp"
	"fmt"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/a2acli/a2a/internal/serve"
	"github.com/a2acli/a2a/internal/serve/execbackend"
	"github.com/a2acli/a2a/internal/store/pgtest"
)

// benchStores are the task stores the store benchmarks compare, side by side in one run: memory (the baseline),
// an embedded SQLite file and PostgreSQL (skipped without its binaries).
func benchStores(b *testing.B) []struct{ name, url string } {
	stores := []struct{ name, url string }{
		{"memory", "memory"},
		{"sqlite", "sqlite:" + filepath.Join(b.TempDir(), "tasks.db")},
	}
	if srv, err := serve.PostgresServer(); srv != nil {
		stores = append(stores, struct{ name, url string }{"postgres", serve.PostgresURL(b)})
	} else {
		b.Logf("postgres left out: %v", cmp.Or(err, pgtest.ErrMissing))
	}
	return stores
}

// BenchmarkStoreEcho: non-streaming echo round trips (REST) at 1 and 16 clients on each store. Each task is
// written when it starts and when it ends (the client hears of neither before it is in the store), so the p50
// difference to memory is what a store adds per task.
func BenchmarkStoreEcho(b *testing.B) {
	for _, st := range benchStores(b) {
		srv := startServer(b, serve.Config{Backend: serve.Echo(), Quiet: true, Store: st.url})
		c := newBenchClient(b, srv.URL, a2a.TransportProtocolHTTPJSON)
		for _, n := range []int{1, 16} {
			b.Run(fmt.Sprintf("%s/c%d", st.name, n), func(b *testing.B) { runClients(b, n, true, sendOp(c)) })
		}
	}
}

// BenchmarkStoreExecChunks streams 100,000 short lines (REST) on each store: chunks are written in batches, so a
// durable store should cost little per chunk.
func BenchmarkStoreExecChunks(b *testing.B) {
	const lines = 100000
	want := func(i int) string { return strconv.Itoa(i+1) + "\n" }
	for _, st := range benchStores(b) {
		srv := startServer(b, serve.Config{Backend: execbackend.New(execbackend.Config{Command: fmt.Sprintf("seq 1 %d", lines), Chunk: []byte("\n")}),
			Quiet: true, Store: st.url})
		b.Run(st.name, func(b *testing.B) {
			c := newBenchClient(b, srv.URL, a2a.TransportProtocolHTTPJSON)
			b.ResetTimer()
			for range b.N {
				if n, _ := streamAll(b, c, want); n != lines {
					b.Fatalf("got %d chunks, want %d", n, lines)
				}
			}
			b.ReportMetric(float64(lines*b.N)/b.Elapsed().Seconds(), "chunks/s")
		})
	}
}

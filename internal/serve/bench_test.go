package serve

import (
	"context"
	"fmt"
	"io"
	"iter"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2aclient"
	"github.com/a2aproject/a2a-go/v2/a2asrv"
)

func benchSend(b *testing.B, url string, tr a2a.TransportProtocol, par int) {
	c := newClient(b, url, tr)
	b.SetParallelism(par)
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, err := c.SendMessage(context.Background(), textMessage("ping")); err != nil {
				b.Error(err)
				return
			}
		}
	})
}

// BenchmarkEchoSend: round trips of a non-streaming echo; parallelism p means p*GOMAXPROCS clients.
func BenchmarkEchoSend(b *testing.B) {
	srv := startServer(b, Config{Backend: Echo(), Quiet: true, Transports: allTransports})
	for _, tr := range allTransports {
		for _, par := range []int{1, 8, 32} {
			b.Run(fmt.Sprintf("%s/p%d", tr, par), func(b *testing.B) { benchSend(b, srv.url, tr, par) })
		}
	}
}

// BenchmarkBareHTTP is the floor: net/http returning a fixed body.
func BenchmarkBareHTTP(b *testing.B) {
	body := []byte(`{"messageId":"x","parts":[{"text":"ping"}],"role":"ROLE_AGENT"}`)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body) // the request body only needs draining
		w.Write(body)
	}))
	defer ts.Close()
	for _, par := range []int{1, 8, 32} {
		b.Run(fmt.Sprintf("p%d", par), func(b *testing.B) {
			b.SetParallelism(par)
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					resp, err := http.Post(ts.URL, "application/json", strings.NewReader(`{"message":{}}`))
					if err != nil {
						b.Error(err)
						return
					}
					_, _ = io.Copy(io.Discard, resp.Body) // drained for reuse
					resp.Body.Close()
				}
			})
		})
	}
}

func streamAll(b *testing.B, c *a2aclient.Client) (chunks int, bytes int) {
	for ev, err := range c.SendStreamingMessage(context.Background(), textMessage("x")) {
		if err != nil {
			b.Fatal(err)
		}
		if a, ok := ev.(*a2a.TaskArtifactUpdateEvent); ok {
			chunks++
			bytes += len(a.Artifact.Parts[0].Text())
		}
	}
	return chunks, bytes
}

// BenchmarkExecChunks streams 100,000 lines through a real streaming client.
func BenchmarkExecChunks(b *testing.B) {
	for _, tr := range allTransports {
		b.Run(string(tr), func(b *testing.B) {
			srv := startServer(b, Config{Backend: Exec(ExecConfig{Command: "seq 1 100000", Chunk: []byte("\n")}), Quiet: true, Transports: allTransports})
			c := newClient(b, srv.url, tr)
			b.ResetTimer()
			total := 0
			for range b.N {
				n, _ := streamAll(b, c)
				total += n
			}
			b.ReportMetric(float64(total)/b.Elapsed().Seconds(), "chunks/s")
		})
	}
}

// BenchmarkExecThroughput streams 50 MB of 1 KiB lines.
func BenchmarkExecThroughput(b *testing.B) {
	cmd := "head -c 1023 /dev/zero | tr '\\0' a > /tmp/.a2a-bench-line; for i in $(seq 1 16); do cat /tmp/.a2a-bench-line; echo; done > /tmp/.a2a-bench-16; " +
		"i=0; while [ $i -lt 3200 ]; do cat /tmp/.a2a-bench-16; i=$((i+1)); done"
	srv := startServer(b, Config{Backend: Exec(ExecConfig{Command: cmd, Chunk: []byte("\n")}), Quiet: true})
	c := newClient(b, srv.url, a2a.TransportProtocolHTTPJSON)
	b.ResetTimer()
	total := 0
	for range b.N {
		_, n := streamAll(b, c)
		total += n
	}
	b.ReportMetric(float64(total)/1e6/b.Elapsed().Seconds(), "MB/s")
}

// BenchmarkFirstChunk measures send-to-first-chunk latency for a command that keeps running.
func BenchmarkFirstChunk(b *testing.B) {
	srv := startServer(b, Config{Backend: Exec(ExecConfig{Command: "printf '1\\n'; sleep 30", Chunk: []byte("\n"), Grace: 50 * time.Millisecond}), Quiet: true})
	c := newClient(b, srv.url, a2a.TransportProtocolHTTPJSON)
	b.ResetTimer()
	for range b.N {
		var id a2a.TaskID
		for ev, err := range c.SendStreamingMessage(context.Background(), textMessage("x")) {
			if err != nil {
				b.Fatal(err)
			}
			if t, ok := ev.(*a2a.Task); ok {
				id = t.ID
			}
			if _, ok := ev.(*a2a.TaskArtifactUpdateEvent); ok {
				break
			}
		}
		b.StopTimer()
		if _, err := c.CancelTask(context.Background(), &a2a.CancelTaskRequest{ID: id}); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
	}
}

// BenchmarkProxy compares direct and proxied echo round trips at 16 clients.
func BenchmarkProxy(b *testing.B) {
	up := startServer(b, Config{Backend: Echo(), Quiet: true})
	px := startServer(b, Config{Backend: Proxy(ProxyConfig{Connect: connector(up.url)}), Quiet: true})
	b.Run("direct", func(b *testing.B) { benchSend(b, up.url, a2a.TransportProtocolHTTPJSON, 8) })
	b.Run("proxy", func(b *testing.B) { benchSend(b, px.url, a2a.TransportProtocolHTTPJSON, 8) })
}

// chunkExecutor emits n appended chunks through a2asrv's default handler.
type chunkExecutor struct{ n int }

func (e chunkExecutor) Execute(ctx context.Context, ec *a2asrv.ExecutorContext) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {
		if !yield(a2a.NewSubmittedTask(ec, ec.Message), nil) {
			return
		}
		first := a2a.NewArtifactEvent(ec, a2a.NewTextPart("0"))
		if !yield(first, nil) {
			return
		}
		for i := 1; i < e.n; i++ {
			ev := a2a.NewArtifactUpdateEvent(ec, first.Artifact.ID, a2a.NewTextPart(fmt.Sprint(i)))
			ev.Append = true
			if !yield(ev, nil) {
				return
			}
		}
		yield(a2a.NewStatusUpdateEvent(ec, a2a.TaskStateCompleted, nil), nil)
	}
}

func (chunkExecutor) Cancel(ctx context.Context, ec *a2asrv.ExecutorContext) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {}
}

type chunkAgent struct{ n int }

func (chunkAgent) reply(*a2a.Message) *a2a.Message { return nil }

func (a chunkAgent) run(ctx context.Context, t *turn) (a2a.TaskState, *a2a.Message) {
	first := a2a.NewArtifactEvent(t.info, a2a.NewTextPart("0"))
	t.emit(first)
	for i := 1; i < a.n; i++ {
		ev := a2a.NewArtifactUpdateEvent(t.info, first.Artifact.ID, a2a.NewTextPart(fmt.Sprint(i)))
		ev.Append = true
		t.emit(ev)
	}
	return a2a.TaskStateCompleted, nil
}

// BenchmarkTaskUpdates compares applying n appended chunks in a2asrv's default handler (which
// deep-copies the task per event) with our task handler, without any transport.
func BenchmarkTaskUpdates(b *testing.B) {
	for _, n := range []int{500, 1000, 2000} {
		b.Run(fmt.Sprintf("a2asrv/%d", n), func(b *testing.B) {
			h := a2asrv.NewHandler(chunkExecutor{n: n}, a2asrv.WithTaskStore(newMemStore(0, 0, nil)))
			for range b.N {
				if _, err := h.SendMessage(context.Background(), textMessage("x")); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("ours/%d", n), func(b *testing.B) {
			h := &taskHandler{ts: newTasks(newMemStore(0, 0, nil), chunkAgent{n: n})}
			for range b.N {
				if _, err := h.SendMessage(context.Background(), textMessage("x")); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

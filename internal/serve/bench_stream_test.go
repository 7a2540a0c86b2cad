package serve_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"iter"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2aclient"
	"github.com/a2aproject/a2a-go/v2/a2asrv"

	"github.com/a2acli/a2a/internal/serve"
	"github.com/a2acli/a2a/internal/serve/execbackend"
	"github.com/a2acli/a2a/internal/serve/servetest"
	"github.com/a2acli/a2a/internal/serve/tasks"
)

// streamAll drains one streaming send, checking that the chunks arrive whole and in order when
// want is non-nil (chunk i must be want(i)).
func streamAll(b *testing.B, c *a2aclient.Client, want func(i int) string) (chunks int, bytes int) {
	for ev, err := range c.SendStreamingMessage(context.Background(), servetest.TextMessage("x")) {
		if err != nil {
			b.Fatal(err)
		}
		a, ok := ev.(*a2a.TaskArtifactUpdateEvent)
		if !ok {
			continue
		}
		for _, p := range a.Artifact.Parts {
			text := p.Text()
			if a.LastChunk && text == "" {
				continue
			}
			if want != nil && text != want(chunks) {
				b.Fatalf("chunk %d = %q, want %q", chunks, text, want(chunks))
			}
			chunks++
			bytes += len(text)
		}
	}
	return chunks, bytes
}

// BenchmarkExecChunks streams 100,000 short lines through a real streaming client: one chunk per line, each
// ending with its newline, as `seq` wrote it (the chunks joined are the command's stdout).
func BenchmarkExecChunks(b *testing.B) {
	const lines = 100000
	want := func(i int) string { return strconv.Itoa(i+1) + "\n" }
	srv := startServer(b, serve.Config{Backend: execbackend.New(execbackend.Config{Command: fmt.Sprintf("seq 1 %d", lines), Chunk: []byte("\n")}), Quiet: true, Transports: servetest.AllTransports})
	for _, tr := range servetest.AllTransports {
		b.Run(string(tr), func(b *testing.B) {
			c := newBenchClient(b, srv.URL, tr)
			b.ResetTimer()
			cpu := processCPU()
			for range b.N {
				if n, _ := streamAll(b, c, want); n != lines {
					b.Fatalf("got %d chunks, want %d", n, lines)
				}
			}
			reportCPU(b, cpu, float64(lines*b.N), "chunk")
			b.ReportMetric(float64(lines*b.N)/b.Elapsed().Seconds(), "chunks/s")
		})
	}
}

// writeLines writes size bytes of 1 KiB lines to a file in dir.
func writeLines(b *testing.B, dir string, size int) string {
	line := append(bytes.Repeat([]byte("a"), 1023), '\n')
	data := bytes.Repeat(line, size/len(line))
	path := filepath.Join(dir, "lines")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		b.Fatal(err)
	}
	return path
}

// heapSampler records the peak heap in use while a stream runs.
type heapSampler struct {
	peak atomic.Uint64
	stop chan struct{}
	done chan struct{}
}

func sampleHeap(every time.Duration) *heapSampler {
	h := &heapSampler{stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(h.done)
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			if ms.HeapInuse > h.peak.Load() {
				h.peak.Store(ms.HeapInuse)
			}
			select {
			case <-h.stop:
				return
			case <-t.C:
			}
		}
	}()
	return h
}

func (h *heapSampler) end() uint64 {
	close(h.stop)
	<-h.done
	return h.peak.Load()
}

func heapInuse() uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapInuse
}

// BenchmarkExecThroughput streams 50 MB of 1 KiB lines served by `cat FILE`, and reports the heap
// (server and client share the process) before, at its peak during and after the streams.
func BenchmarkExecThroughput(b *testing.B) {
	const size = 50 << 20
	file := writeLines(b, b.TempDir(), size)
	srv := startServer(b, serve.Config{Backend: execbackend.New(execbackend.Config{Command: "cat " + file, Chunk: []byte("\n")}), Quiet: true, Transports: servetest.AllTransports, MaxTasks: 1})
	for _, tr := range servetest.AllTransports {
		b.Run(string(tr), func(b *testing.B) {
			c := newBenchClient(b, srv.URL, tr)
			before := heapInuse()
			hs := sampleHeap(50 * time.Millisecond)
			b.ResetTimer()
			cpu := processCPU()
			total := 0
			for range b.N {
				_, n := streamAll(b, c, nil)
				total += n
			}
			b.StopTimer()
			reportCPU(b, cpu, float64(total)/1e6, "MB")
			peak := hs.end()
			b.ReportMetric(float64(total)/1e6/b.Elapsed().Seconds(), "MB/s")
			b.ReportMetric(float64(before)/(1<<20), "heap-before-MiB")
			b.ReportMetric(float64(peak)/(1<<20), "heap-peak-MiB")
			b.ReportMetric(float64(heapInuse())/(1<<20), "heap-after-MiB")
		})
	}
}

// BenchmarkFirstChunk measures send-to-first-chunk latency for a command that keeps running.
func BenchmarkFirstChunk(b *testing.B) {
	srv := startServer(b, serve.Config{Backend: execbackend.New(execbackend.Config{Command: "printf '1\\n'; sleep 30", Chunk: []byte("\n"), Grace: 50 * time.Millisecond}), Quiet: true})
	c := newBenchClient(b, srv.URL, a2a.TransportProtocolHTTPJSON)
	b.ResetTimer()
	for range b.N {
		var id a2a.TaskID
		for ev, err := range c.SendStreamingMessage(context.Background(), servetest.TextMessage("x")) {
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

func (chunkAgent) Reply(*a2a.Message) *a2a.Message { return nil }

func (a chunkAgent) Run(ctx context.Context, t *tasks.Turn) (a2a.TaskState, *a2a.Message) {
	first := a2a.NewArtifactEvent(t.Info, a2a.NewTextPart("0"))
	t.Emit(first)
	for i := 1; i < a.n; i++ {
		ev := a2a.NewArtifactUpdateEvent(t.Info, first.Artifact.ID, a2a.NewTextPart(fmt.Sprint(i)))
		ev.Append = true
		t.Emit(ev)
	}
	return a2a.TaskStateCompleted, nil
}

// BenchmarkTaskUpdates compares applying n appended chunks in a2asrv's default handler and task
// store (which deep-copy the task per event) with our task handler, without any transport.
func BenchmarkTaskUpdates(b *testing.B) {
	for _, n := range []int{500, 1000, 2000} {
		b.Run(fmt.Sprintf("a2asrv/%d", n), func(b *testing.B) {
			h := a2asrv.NewHandler(chunkExecutor{n: n})
			for range b.N {
				if _, err := h.SendMessage(context.Background(), servetest.TextMessage("x")); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("ours/%d", n), func(b *testing.B) {
			h := tasks.NewHandler(tasks.NewRunner(tasks.NewStore(0, 0, nil), chunkAgent{n: n}, nil))
			for range b.N {
				if _, err := h.SendMessage(context.Background(), servetest.TextMessage("x")); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkExecThroughputRaw is BenchmarkExecThroughput over REST with a light streaming client: plain net/http
// and encoding/json into a small struct instead of the a2a-go client, whose decoding of each event costs more CPU
// than the server spends producing it. Every line carries its number, and the client checks that all of them
// arrive, whole and in order.
func BenchmarkExecThroughputRaw(b *testing.B) {
	const size = 50 << 20
	const lineLen = 1024
	var data []byte
	for i := range size / lineLen {
		data = fmt.Appendf(data, "%08d%s\n", i, bytes.Repeat([]byte("a"), lineLen-9))
	}
	file := filepath.Join(b.TempDir(), "numbered")
	if err := os.WriteFile(file, data, 0o600); err != nil {
		b.Fatal(err)
	}
	srv := startServer(b, serve.Config{Backend: execbackend.New(execbackend.Config{Command: "cat " + file, Chunk: []byte("\n")}), Quiet: true, MaxTasks: 1,
		Transports: []a2a.TransportProtocol{a2a.TransportProtocolHTTPJSON, a2a.TransportProtocolJSONRPC}})
	hc := benchHTTPClient()
	msg := `{"message":{"messageId":"m","role":"ROLE_USER","parts":[{"text":"go"}]}}`
	calls := []struct{ name, path, body string }{
		{"HTTP+JSON", "/message:stream", msg},
		{"JSONRPC", "/jsonrpc", `{"jsonrpc":"2.0","id":1,"method":"SendStreamingMessage","params":` + msg + `}`},
	}
	for _, call := range calls {
		b.Run(call.name, func(b *testing.B) {
			cpu := processCPU()
			total := 0
			for range b.N {
				n, err := rawStream(hc, srv.URL+call.path, call.body, size/lineLen)
				if err != nil {
					b.Fatal(err)
				}
				total += n
			}
			b.StopTimer()
			reportCPU(b, cpu, float64(total)/1e6, "MB")
			b.ReportMetric(float64(total)/1e6/b.Elapsed().Seconds(), "MB/s")
		})
	}
}

// rawStream reads one REST stream and checks that lines 0..want-1 arrive in order; it returns the text bytes.
func rawStream(hc *http.Client, url, body string, want int) (int, error) {
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		return 0, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "text/event-stream")
	resp, err := hc.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	type update struct {
		Artifact struct {
			Parts []struct {
				Text string `json:"text"`
			} `json:"parts"`
		} `json:"artifact"`
	}
	var ev struct {
		ArtifactUpdate *update `json:"artifactUpdate"` // REST
		Result         struct {
			ArtifactUpdate *update `json:"artifactUpdate"`
		} `json:"result"` // JSON-RPC
	}
	rd := bufio.NewReaderSize(resp.Body, 64<<10)
	next, total := 0, 0
	for {
		line, err := rd.ReadSlice('\n')
		if err == io.EOF {
			break
		}
		if err != nil {
			return total, err
		}
		data, ok := bytes.CutPrefix(line, []byte("data: "))
		if !ok {
			continue
		}
		ev.ArtifactUpdate, ev.Result.ArtifactUpdate = nil, nil
		if err := json.Unmarshal(data, &ev); err != nil {
			return total, err
		}
		au := ev.ArtifactUpdate
		if au == nil {
			au = ev.Result.ArtifactUpdate
		}
		if au == nil {
			continue
		}
		for _, p := range au.Artifact.Parts {
			if p.Text == "" {
				continue // the closing lastChunk update
			}
			if got := fmt.Sprintf("%08d", next); !strings.HasPrefix(p.Text, got) {
				return total, fmt.Errorf("chunk %d starts %.8q, want %s", next, p.Text, got)
			}
			next++
			total += len(p.Text)
		}
	}
	if next != want {
		return total, fmt.Errorf("got %d lines, want %d", next, want)
	}
	return total, nil
}

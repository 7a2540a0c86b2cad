package serve_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/a2acli/a2a/internal/serve"
	"github.com/a2acli/a2a/internal/serve/execbackend"
	"github.com/a2acli/a2a/internal/serve/proxy"
	"github.com/a2acli/a2a/internal/serve/servetest"
	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2aclient"
	"github.com/a2aproject/a2a-go/v2/a2aclient/agentcard"
)

// benchClients are the exact numbers of concurrent clients of the round-trip benchmarks.
var benchClients = []int{1, 16, 64}

// benchHTTPClient keeps enough idle connections for every benchmark client, so that the
// measurement is not about the client's connection churn (http.DefaultTransport keeps 2 per host).
func benchHTTPClient() *http.Client {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConns = 2048
	tr.MaxIdleConnsPerHost = 2048
	return &http.Client{Transport: tr}
}

// newBenchClient is newClient over a benchHTTPClient.
func newBenchClient(b testing.TB, url string, tr a2a.TransportProtocol) *a2aclient.Client {
	hc := benchHTTPClient()
	return servetest.NewClient(b, url, tr, a2aclient.WithRESTTransport(hc), a2aclient.WithJSONRPCTransport(hc))
}

// benchConnector is the proxy's upstream connector over a benchHTTPClient, like the CLI's.
func benchConnector(url string) func(ctx context.Context) (*a2aclient.Client, *a2a.AgentCard, error) {
	return func(ctx context.Context) (*a2aclient.Client, *a2a.AgentCard, error) {
		card, err := agentcard.DefaultResolver.Resolve(ctx, url)
		if err != nil {
			return nil, nil, err
		}
		hc := benchHTTPClient()
		c, err := a2aclient.NewFromCard(ctx, card, servetest.InsecureGRPC, a2aclient.WithRESTTransport(hc), a2aclient.WithJSONRPCTransport(hc))
		if err != nil {
			return nil, nil, err
		}
		return c, card, nil
	}
}

// processCPU is the user+system CPU time of this process (server and client together): under a
// noisy machine it is steadier than wall time.
func processCPU() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru) // cannot fail with RUSAGE_SELF
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// reportCPU reports the process CPU time per unit since start.
func reportCPU(b *testing.B, start time.Duration, units float64, unit string) {
	b.ReportMetric(float64((processCPU()-start).Nanoseconds())/1e3/units, "cpu-µs/"+unit)
}

// runClients shares b.N calls of op among exactly n concurrent clients and reports req/s. With
// lat, it also reports the median call latency in microseconds.
func runClients(b *testing.B, n int, lat bool, op func() error) {
	var next atomic.Int64
	var mu sync.Mutex
	var durs []time.Duration
	var wg sync.WaitGroup
	b.ResetTimer()
	cpu := processCPU()
	for range n {
		wg.Go(func() {
			var mine []time.Duration
			for next.Add(1) <= int64(b.N) {
				start := time.Now()
				if err := op(); err != nil {
					b.Error(err)
					return
				}
				if lat {
					mine = append(mine, time.Since(start))
				}
			}
			mu.Lock()
			durs = append(durs, mine...)
			mu.Unlock()
		})
	}
	wg.Wait()
	b.StopTimer()
	reportCPU(b, cpu, float64(b.N), "req")
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "req/s")
	if lat && len(durs) > 0 {
		slices.Sort(durs)
		b.ReportMetric(float64(durs[len(durs)/2].Nanoseconds())/1e3, "p50-µs")
	}
}

func sendOp(c *a2aclient.Client) func() error {
	return func() error {
		_, err := c.SendMessage(context.Background(), servetest.TextMessage("ping"))
		return err
	}
}

// BenchmarkEchoSend: round trips of a non-streaming echo at exactly 1, 16 and 64 clients.
func BenchmarkEchoSend(b *testing.B) {
	srv := startServer(b, serve.Config{Backend: serve.Echo(), Quiet: true, Transports: servetest.AllTransports})
	for _, tr := range servetest.AllTransports {
		c := newBenchClient(b, srv.URL, tr)
		for _, n := range benchClients {
			b.Run(fmt.Sprintf("%s/c%d", tr, n), func(b *testing.B) { runClients(b, n, n == 1, sendOp(c)) })
		}
	}
}

// BenchmarkEchoRaw is BenchmarkEchoSend with BenchmarkBareHTTP's load generator: the same fixed request
// bytes posted with plain net/http, so that beside BenchmarkBareHTTP the ratio is the server's own cost (an
// a2a-go client in the same process spends as much CPU as the server, and shares its 2 cores).
func BenchmarkEchoRaw(b *testing.B) {
	srv := startServer(b, serve.Config{Backend: serve.Echo(), Quiet: true, Transports: servetest.AllTransports})
	hc := benchHTTPClient()
	calls := []struct{ name, path, body string }{
		{"HTTP+JSON", "/message:send", `{"message":{"messageId":"m","role":"ROLE_USER","parts":[{"text":"ping"}]}}`},
		{"JSONRPC", "/jsonrpc", `{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"m","role":"ROLE_USER","parts":[{"text":"ping"}]}}}`},
	}
	for _, call := range calls {
		for _, n := range benchClients {
			b.Run(fmt.Sprintf("%s/c%d", call.name, n), func(b *testing.B) {
				runClients(b, n, n == 1, func() error {
					req, err := http.NewRequest(http.MethodPost, srv.URL+call.path, strings.NewReader(call.body))
					if err != nil {
						return err
					}
					req.Header.Set("Content-Type", "application/json")
					req.Header.Set("A2A-Version", "1.0")
					resp, err := hc.Do(req)
					if err != nil {
						return err
					}
					body, err := io.ReadAll(resp.Body)
					resp.Body.Close()
					if err != nil || resp.StatusCode != http.StatusOK || !bytes.Contains(body, []byte("TASK_STATE_COMPLETED")) {
						return fmt.Errorf("echo answered %d %s: %v", resp.StatusCode, body, err)
					}
					return nil
				})
			})
		}
	}
}

// BenchmarkBareHTTP is the limit: net/http returning a fixed body, at the same client counts.
func BenchmarkBareHTTP(b *testing.B) {
	body := []byte(`{"task":{"id":"x","contextId":"y","status":{"state":"TASK_STATE_COMPLETED"},"artifacts":[{"artifactId":"a","parts":[{"text":"ping"}]}]}}`)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body) // the request body only needs draining
		w.Header().Set("Content-Type", "application/json")
		w.Write(body)
	}))
	defer ts.Close()
	hc := benchHTTPClient()
	req := `{"message":{"messageId":"m","role":"ROLE_USER","parts":[{"text":"ping"}]}}`
	for _, n := range benchClients {
		b.Run(fmt.Sprintf("c%d", n), func(b *testing.B) {
			runClients(b, n, n == 1, func() error {
				resp, err := hc.Post(ts.URL, "application/json", strings.NewReader(req))
				if err != nil {
					return err
				}
				_, _ = io.Copy(io.Discard, resp.Body) // drained for reuse
				return resp.Body.Close()
			})
		})
	}
}

// BenchmarkProxy compares direct and proxied echo round trips per HTTP front (REST and JSON-RPC,
// each on the same binding upstream, so the byte-level fast path applies): throughput at 16
// clients and latency at 1 client; then the same at 16 clients with an exec upstream.
func BenchmarkProxy(b *testing.B) {
	fronts := []a2a.TransportProtocol{a2a.TransportProtocolHTTPJSON, a2a.TransportProtocolJSONRPC}
	up := startServer(b, serve.Config{Backend: serve.Echo(), Quiet: true, Transports: fronts})
	px := startServer(b, serve.Config{Backend: proxy.New(proxy.Config{Connect: benchConnector(up.URL)}), Quiet: true, Transports: fronts})
	for _, tr := range fronts {
		direct := newBenchClient(b, up.URL, tr)
		proxied := newBenchClient(b, px.URL, tr)
		for _, n := range []int{1, 16} {
			b.Run(fmt.Sprintf("%s/direct/c%d", tr, n), func(b *testing.B) { runClients(b, n, true, sendOp(direct)) })
			b.Run(fmt.Sprintf("%s/proxy/c%d", tr, n), func(b *testing.B) { runClients(b, n, true, sendOp(proxied)) })
		}
	}
	// Echo does next to nothing per call, so on a small machine the proxy's own hop (a second HTTP
	// exchange, on the same cores) weighs as much as the upstream. An upstream that does work per
	// call, here a subprocess as `serve --exec cat` runs one, shows the share the hop takes of a
	// real call.
	work := startServer(b, serve.Config{Backend: execbackend.New(execbackend.Config{Command: "cat"}), Quiet: true, Transports: fronts[:1]})
	workPx := startServer(b, serve.Config{Backend: proxy.New(proxy.Config{Connect: benchConnector(work.URL)}), Quiet: true, Transports: fronts[:1]})
	direct := newBenchClient(b, work.URL, fronts[0])
	proxied := newBenchClient(b, workPx.URL, fronts[0])
	b.Run(fmt.Sprintf("%s/exec/direct/c16", fronts[0]), func(b *testing.B) { runClients(b, 16, true, sendOp(direct)) })
	b.Run(fmt.Sprintf("%s/exec/proxy/c16", fronts[0]), func(b *testing.B) { runClients(b, 16, true, sendOp(proxied)) })
}

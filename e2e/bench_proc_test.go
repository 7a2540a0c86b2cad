package e2e

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2aclient"
	"github.com/a2aproject/a2a-go/v2/a2aclient/agentcard"
)

// The benchmarks in this file run `a2a serve` as a subprocess (the binary TestMain built), so that
// its RSS and CPU time are the server's alone; the clients are a2a-go's, in this process.

type procServer struct {
	url string
	cmd *exec.Cmd
}

// startProc runs `a2a serve --port 0 --quiet args...` and waits for its "listening on" line.
func startProc(b *testing.B, args ...string) *procServer {
	cmd := exec.Command(bin, append([]string{"serve", "--port", "0", "--quiet"}, args...)...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	s := &procServer{cmd: cmd}
	b.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGINT) // Run stops every subprocess on SIGINT
		_ = cmd.Wait()
	})
	sc := bufio.NewScanner(stderr)
	for sc.Scan() {
		if u, ok := strings.CutPrefix(sc.Text(), "listening on "); ok {
			s.url = u
			break
		}
	}
	if s.url == "" {
		b.Fatal("a2a serve exited before listening")
	}
	go func() {
		for sc.Scan() { // keep draining so that the server never blocks on stderr
		}
	}()
	return s
}

// status reads a field of /proc/PID/status, in kB for the memory fields.
func (s *procServer) status(b *testing.B, field string) float64 {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", s.cmd.Process.Pid))
	if err != nil {
		b.Fatal(err)
	}
	for _, line := range strings.Split(string(raw), "\n") {
		if v, ok := strings.CutPrefix(line, field+":"); ok {
			n, err := strconv.ParseFloat(strings.Fields(v)[0], 64)
			if err != nil {
				b.Fatal(err)
			}
			return n
		}
	}
	b.Fatalf("no %s in /proc/%d/status", field, s.cmd.Process.Pid)
	return 0
}

// cpu is the server's user+system CPU time so far.
func (s *procServer) cpu(b *testing.B) time.Duration {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", s.cmd.Process.Pid))
	if err != nil {
		b.Fatal(err)
	}
	// Fields after the parenthesised command name: state is field 3, utime 14, stime 15.
	f := strings.Fields(string(raw[strings.LastIndexByte(string(raw), ')')+2:]))
	ut, _ := strconv.ParseInt(f[11], 10, 64)
	st, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(ut+st) * time.Second / 100 // USER_HZ is 100 on Linux
}

// BenchmarkOpenStreams opens 1,000 streams on an exec agent whose command blocks, waits for
// every stream's first event and reports the server's RSS. b.N is ignored: it runs once.
func BenchmarkOpenStreams(b *testing.B) {
	const streams = 1000
	for _, limit := range []int{0, 50} {
		b.Run(fmt.Sprintf("max-concurrent=%d", limit), func(b *testing.B) {
			srv := startProc(b, "--exec", "exec sleep 60", "--chunk", "\n", "--max-concurrent", strconv.Itoa(limit))
			c := benchClient(b, srv.url)
			idle := srv.status(b, "VmRSS")
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			var wg sync.WaitGroup
			first := make(chan error, streams)
			b.ResetTimer()
			for range streams {
				wg.Go(func() {
					got := false
					for _, err := range c.SendStreamingMessage(ctx, benchText("x")) {
						if !got {
							first <- err
							got = true
						}
						if err != nil {
							return
						}
					}
				})
			}
			for range streams {
				if err := <-first; err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			b.ReportMetric(idle/1024, "idle-RSS-MiB")
			b.ReportMetric(srv.status(b, "VmRSS")/1024, "open-RSS-MiB")
			b.ReportMetric(srv.status(b, "VmHWM")/1024, "peak-RSS-MiB")
			b.ReportMetric(srv.status(b, "Threads"), "threads")
			cancel()
			wg.Wait()
		})
	}
}

// BenchmarkExecCat runs `serve --exec cat` (no --chunk) at 8 concurrent clients and reports
// tasks/s and the server's CPU time per task.
func BenchmarkExecCat(b *testing.B) {
	srv := startProc(b, "--exec", "cat")
	c := benchClient(b, srv.url)
	cpu0 := srv.cpu(b)
	runClients(b, 8, func() error {
		_, err := c.SendMessage(context.Background(), benchText("ping"))
		return err
	})
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "tasks/s")
	b.ReportMetric(float64((srv.cpu(b)-cpu0).Microseconds())/float64(b.N), "cpu-µs/task")
}

// benchClient connects to url over HTTP+JSON with an HTTP client that keeps as many idle
// connections as the benchmarks open.
func benchClient(b *testing.B, url string) *a2aclient.Client {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	card, err := agentcard.DefaultResolver.Resolve(ctx, url)
	if err != nil {
		b.Fatal(err)
	}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConns = 2048
	tr.MaxIdleConnsPerHost = 2048
	hc := &http.Client{Transport: tr}
	c, err := a2aclient.NewFromCard(ctx, card, a2aclient.WithRESTTransport(hc), a2aclient.WithJSONRPCTransport(hc),
		a2aclient.WithConfig(a2aclient.Config{PreferredTransports: []a2a.TransportProtocol{a2a.TransportProtocolHTTPJSON}}))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = c.Destroy() })
	return c
}

func benchText(text string) *a2a.SendMessageRequest {
	return &a2a.SendMessageRequest{Message: a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart(text))}
}

// runClients runs op b.N times spread over n concurrent clients.
func runClients(b *testing.B, n int, op func() error) {
	var next atomic.Int64
	var wg sync.WaitGroup
	b.ResetTimer()
	for range n {
		wg.Go(func() {
			for next.Add(1) <= int64(b.N) {
				if err := op(); err != nil {
					b.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	b.StopTimer()
}

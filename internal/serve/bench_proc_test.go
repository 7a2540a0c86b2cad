package serve

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

// The benchmarks in this file run `a2a serve` as a subprocess, so that its RSS and CPU time are
// the server's alone.

var (
	binOnce sync.Once
	binPath string
	binErr  error
)

// serveBinary builds cmd/a2a once per test binary run.
func serveBinary(b *testing.B) string {
	binOnce.Do(func() {
		dir, err := os.MkdirTemp("", "a2a-bench-")
		if err != nil {
			binErr = err
			return
		}
		binPath = filepath.Join(dir, "a2a")
		out, err := exec.Command("go", "build", "-o", binPath, "../../cmd/a2a").CombinedOutput()
		if err != nil {
			binErr = fmt.Errorf("build a2a: %v\n%s", err, out)
		}
	})
	if binErr != nil {
		b.Fatal(binErr)
	}
	return binPath
}

type procServer struct {
	url string
	cmd *exec.Cmd
}

// startProc runs `a2a serve --port 0 --quiet args...` and waits for its "listening on" line.
func startProc(b *testing.B, args ...string) *procServer {
	cmd := exec.Command(serveBinary(b), append([]string{"serve", "--port", "0", "--quiet"}, args...)...)
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
			c := newBenchClient(b, srv.url, a2a.TransportProtocolHTTPJSON)
			idle := srv.status(b, "VmRSS")
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			var wg sync.WaitGroup
			first := make(chan error, streams)
			b.ResetTimer()
			for range streams {
				wg.Go(func() {
					got := false
					for _, err := range c.SendStreamingMessage(ctx, textMessage("x")) {
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
	c := newBenchClient(b, srv.url, a2a.TransportProtocolHTTPJSON)
	cpu0 := srv.cpu(b)
	runClients(b, 8, false, sendOp(c))
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "tasks/s")
	b.ReportMetric(float64((srv.cpu(b)-cpu0).Microseconds())/float64(b.N), "cpu-µs/task")
}

package exec

import (
	"bufio"
	"context"
	"errors"
	"io"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// startReading starts c and returns its first stdout line, which the tests use to learn a grandchild's pid.
func startReading(t *testing.T, ctx context.Context, c Cmd) (*Process, *Chunker, string) {
	t.Helper()
	p, err := Start(ctx, c)
	if err != nil {
		t.Fatalf("Start(%q) error = %v", c.Command, err)
	}
	ch := NewChunker(p.Stdout(), []byte("\n"), 0)
	first, err := ch.Next()
	if err != nil {
		p.Stop()
		p.Wait()
		t.Fatalf("Start(%q): first line error = %v", c.Command, err)
	}
	return p, ch, string(first)
}

// drain reads ch to its end.
func drain(t *testing.T, ch *Chunker) {
	t.Helper()
	for {
		if _, err := ch.Next(); err != nil {
			if !errors.Is(err, io.EOF) {
				t.Errorf("Next() error = %v, want io.EOF", err)
			}
			return
		}
	}
}

// assertGone fails if pid or the process group pgid still has a live process.
func assertGone(t *testing.T, pid, pgid int) {
	t.Helper()
	if pidAlive(pid) {
		t.Errorf("process %d still alive", pid)
	}
	if groupAlive(pgid) {
		t.Errorf("process group %d still alive", pgid)
	}
}

func TestStopKillsGroup(t *testing.T) {
	t.Parallel()
	const grace = 500 * time.Millisecond
	tests := []struct {
		name       string
		command    string
		cancel     bool // stop by cancelling the context instead of calling Stop
		wantSignal string
		minTime    time.Duration
	}{
		{"cancel", "sleep 300 & echo $!; sleep 300", true, "terminated", 0},
		{"stop", "sleep 300 & echo $!; sleep 300", false, "terminated", 0},
		{"term ignored", "trap '' TERM; sleep 300 & echo $!; sleep 300", false, "killed", grace},
		{"cancel term ignored", "trap '' TERM; sleep 300 & echo $!; sleep 300", true, "killed", grace},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			p, ch, first := startReading(t, ctx, Cmd{Command: tt.command, Grace: grace})
			grandchild, err := strconv.Atoi(first)
			if err != nil {
				t.Fatalf("first line %q is not a pid", first)
			}
			begin := time.Now()
			if tt.cancel {
				cancel()
			} else {
				p.Stop()
			}
			drain(t, ch)
			res, err := p.Wait()
			elapsed := time.Since(begin)
			if err != nil {
				t.Fatalf("Wait() error = %v, want nil", err)
			}
			if res.ExitCode != -1 || res.Signal != tt.wantSignal {
				t.Errorf("Wait() = exit %d signal %q, want -1 %q", res.ExitCode, res.Signal, tt.wantSignal)
			}
			if elapsed < tt.minTime || elapsed > grace+time.Second {
				t.Errorf("stop took %v, want between %v and %v", elapsed, tt.minTime, grace+time.Second)
			}
			assertGone(t, grandchild, p.PID())
		})
	}
}

// TestExitKillsLingeringGroup guards against a background grandchild holding stdout open, which would make
// reading stdout, and so Run, hang after the command itself exited.
func TestExitKillsLingeringGroup(t *testing.T) {
	t.Parallel()
	const grace = 400 * time.Millisecond
	tests := []struct {
		name    string
		command string
		minTime time.Duration
	}{
		{"background sleep", "sleep 300 & echo $!", 0},
		// The fifo makes the command wait until the background process ignores TERM before exiting.
		{"background ignores TERM", "mkfifo f; (trap '' TERM; echo >f; exec sleep 300) & read x <f; echo $!", grace},
		{"background holds stderr only", "sleep 300 >/dev/null & echo $!", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var pid int
			begin := time.Now()
			got, res := runLines(t, context.Background(), Cmd{Command: tt.command, Grace: grace, Dir: t.TempDir()})
			elapsed := time.Since(begin)
			if len(got) != 1 {
				t.Fatalf("Run(%q) chunks = %q, want one pid", tt.command, got)
			}
			pid, _ = strconv.Atoi(got[0])
			if res.ExitCode != 0 {
				t.Errorf("Run(%q) exit = %d, want 0", tt.command, res.ExitCode)
			}
			if elapsed < tt.minTime || elapsed > grace+time.Second {
				t.Errorf("Run(%q) took %v, want between %v and %v", tt.command, elapsed, tt.minTime, grace+time.Second)
			}
			if pid == 0 || pidAlive(pid) {
				t.Errorf("Run(%q): background process %d still alive", tt.command, pid)
			}
		})
	}
}

func TestStopIdempotent(t *testing.T) {
	t.Parallel()
	p, err := Start(context.Background(), Cmd{Command: "sleep 300", Grace: time.Second})
	if err != nil {
		t.Fatalf("Start() error = %v", err)
	}
	var wg sync.WaitGroup
	results := make([]Result, 3)
	for i := range results {
		wg.Add(2)
		go func() { defer wg.Done(); p.Stop() }()
		go func() {
			defer wg.Done()
			var err error
			if results[i], err = p.Wait(); err != nil {
				t.Errorf("Wait() error = %v", err)
			}
		}()
	}
	wg.Wait()
	p.Stop() // after Wait: must not signal anything or panic
	for _, r := range results[1:] {
		if diff := cmp.Diff(results[0], r); diff != "" {
			t.Errorf("Wait() results differ (-first +later):\n%s", diff)
		}
	}
	if results[0].Signal != "terminated" {
		t.Errorf("Wait() signal = %q, want %q", results[0].Signal, "terminated")
	}
	if _, err := io.ReadAll(p.Stdout()); err != nil {
		t.Errorf("reading Stdout after Wait error = %v, want io.EOF (nil from ReadAll)", err)
	}
}

// TestKillAll guards the second-Ctrl-C path: KillAll must take down a running group at once, grandchildren too.
func TestKillAll(t *testing.T) {
	p, err := Start(context.Background(), Cmd{Command: "sleep 300 & echo $!; sleep 300", Grace: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(p.Stdout()).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	grandchild, err := strconv.Atoi(strings.TrimSpace(line))
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	KillAll()
	res, err := p.Wait()
	if err != nil {
		t.Fatal(err)
	}
	if res.Signal != "killed" || time.Since(start) > 10*time.Second {
		t.Errorf("after KillAll: signal %q after %s, want killed at once", res.Signal, time.Since(start))
	}
	if pidAlive(grandchild) {
		t.Errorf("grandchild %d survived KillAll", grandchild)
	}
}

package exec

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// runLines runs c splitting stdout at newlines and returns the lines, newline removed.
func runLines(t *testing.T, ctx context.Context, c Cmd) ([]string, Result) {
	t.Helper()
	got, res := runChunks(t, ctx, c)
	for i := range got {
		got[i] = strings.TrimSuffix(got[i], "\n")
	}
	return got, res
}

// runChunks runs c splitting stdout at newlines and returns the chunks as Run passes them.
func runChunks(t *testing.T, ctx context.Context, c Cmd) ([]string, Result) {
	t.Helper()
	var got []string
	res, err := Run(ctx, c, []byte("\n"), 0, func(b []byte) error {
		got = append(got, string(b))
		return nil
	})
	if err != nil {
		t.Fatalf("Run(%q) error = %v, want nil", c.Command, err)
	}
	return got, res
}

func TestRun(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	realDir, err := filepath.EvalSymlinks(dir)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		cmd      Cmd
		want     []string
		wantCode int
		wantTail string
	}{
		{"exit 0", Cmd{Command: "echo a; echo b"}, []string{"a\n", "b\n"}, 0, ""},
		{"exit 3", Cmd{Command: "echo out; echo err >&2; exit 3"}, []string{"out\n"}, 3, "err\n"},
		{"stdin", Cmd{Command: "cat", Stdin: []byte("hello\nworld\n")}, []string{"hello\n", "world\n"}, 0, ""},
		{"blank lines, no final newline", Cmd{Command: "printf 'a\\n\\n\\nb'"}, []string{"a\n", "\n", "\n", "b"}, 0, ""},
		{"no stdin is /dev/null", Cmd{Command: "cat; echo end"}, []string{"end\n"}, 0, ""},
		{"stdin not read", Cmd{Command: "echo early", Stdin: make([]byte, 4<<20)}, []string{"early\n"}, 0, ""},
		{"large stdin", Cmd{Command: "wc -c", Stdin: make([]byte, 3<<20)}, []string{strconv.Itoa(3<<20) + "\n"}, 0, ""},
		{"env", Cmd{Command: `echo "$A2A_EXEC_TEST"`, Env: []string{"A2A_EXEC_TEST=42"}}, []string{"42\n"}, 0, ""},
		{"drop", Cmd{Command: `echo "${HOME-unset}"`, Drop: func(n string) bool { return n == "HOME" }},
			[]string{"unset\n"}, 0, ""},
		{"drop, then set", Cmd{Command: `echo "$PATH"`, Drop: func(n string) bool { return n == "PATH" }, Env: []string{"PATH=/x"}},
			[]string{"/x\n"}, 0, ""},
		{"dir", Cmd{Command: "pwd -P", Dir: dir}, []string{realDir + "\n"}, 0, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, res := runChunks(t, context.Background(), tt.cmd)
			for i := range got {
				got[i] = strings.TrimLeft(got[i], " \t") // wc pads its count on some systems
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Run(%q) chunks mismatch (-want +got):\n%s", tt.cmd.Command, diff)
			}
			if res.ExitCode != tt.wantCode || res.Signal != "" {
				t.Errorf("Run(%q) exit = %d %q, want %d and no signal", tt.cmd.Command, res.ExitCode, res.Signal, tt.wantCode)
			}
			if res.StderrTail != tt.wantTail {
				t.Errorf("Run(%q) stderr tail = %q, want %q", tt.cmd.Command, res.StderrTail, tt.wantTail)
			}
		})
	}
}

func TestStderrTailBounded(t *testing.T) {
	t.Parallel()
	var lines atomic.Int64
	c := Cmd{
		Command:      "yes err | head -c 5000000 >&2; echo done",
		StderrTail:   100,
		OnStderrLine: func(l []byte) { lines.Add(1) },
	}
	got, res := runLines(t, context.Background(), c)
	if diff := cmp.Diff([]string{"done"}, got); diff != "" {
		t.Errorf("chunks mismatch (-want +got):\n%s", diff)
	}
	if want := strings.Repeat("err\n", 25); res.StderrTail != want {
		t.Errorf("stderr tail = %q, want %q", res.StderrTail, want)
	}
	if got, want := lines.Load(), int64(5000000/4); got != want {
		t.Errorf("OnStderrLine called %d times, want %d", got, want)
	}
}

func TestStderrLongLineCut(t *testing.T) {
	t.Parallel()
	var got []int
	c := Cmd{Command: "head -c 10000 /dev/zero | tr '\\0' x >&2", OnStderrLine: func(l []byte) { got = append(got, len(l)) }}
	runLines(t, context.Background(), c) // Wait returns after the stderr goroutine finished: got is safe to read
	if diff := cmp.Diff([]int{4096, 4096, 1808}, got); diff != "" {
		t.Errorf("stderr line lengths mismatch (-want +got):\n%s", diff)
	}
}

func TestRunOnChunkError(t *testing.T) {
	t.Parallel()
	errEnough := errors.New("enough")
	n := 0
	res, err := Run(context.Background(), Cmd{Command: "yes", Grace: time.Second}, []byte("\n"), 0, func([]byte) error {
		if n++; n == 3 {
			return errEnough
		}
		return nil
	})
	if !errors.Is(err, errEnough) {
		t.Errorf("Run() error = %v, want %v", err, errEnough)
	}
	if res.ExitCode != -1 || (res.Signal != "terminated" && res.Signal != "broken pipe") {
		t.Errorf("Run() = exit %d signal %q, want -1 and terminated (or broken pipe)", res.ExitCode, res.Signal)
	}
}

func TestStartErrors(t *testing.T) {
	t.Parallel()
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	tests := []struct {
		name string
		ctx  context.Context
		cmd  Cmd
		want error
	}{
		{"missing dir", context.Background(), Cmd{Command: "true", Dir: "/nonexistent/a2a-exec-test"}, fs.ErrNotExist},
		{"cancelled context", cancelled, Cmd{Command: "true"}, context.Canceled},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p, err := Start(tt.ctx, tt.cmd)
			if !errors.Is(err, tt.want) {
				if p != nil {
					p.Wait()
				}
				t.Fatalf("Start() error = %v, want %v", err, tt.want)
			}
		})
	}
}

// TestNoGoroutineLeak runs every ending path and checks that the goroutine count returns to where it was.
// It is not parallel, so no other test's goroutines come and go meanwhile.
func TestNoGoroutineLeak(t *testing.T) {
	runLines(t, context.Background(), Cmd{Command: "true"}) // starts the shared watcher, which stays
	before := runtime.NumGoroutine()
	ctx, cancel := context.WithCancel(context.Background())
	runLines(t, ctx, Cmd{Command: "echo a; echo b >&2", Stdin: []byte("x"), OnStderrLine: func([]byte) {}})
	runLines(t, ctx, Cmd{Command: "sleep 300 & echo a", Grace: 200 * time.Millisecond})
	p, ch, _ := startReading(t, ctx, Cmd{Command: "echo a; exec sleep 300", Stdin: make([]byte, 1<<20)})
	cancel()
	drain(t, ch)
	p.Wait()
	Run(context.Background(), Cmd{Command: "yes"}, nil, 0, func([]byte) error { return io.ErrShortWrite })

	deadline := time.Now().Add(5 * time.Second)
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		<-tick.C
	}
	if after := runtime.NumGoroutine(); after > before {
		buf := make([]byte, 1<<16)
		t.Errorf("goroutines: %d before, %d after:\n%s", before, after, buf[:runtime.Stack(buf, true)])
	}
}

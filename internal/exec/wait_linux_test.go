package exec

import (
	"context"
	"os"
	osexec "os/exec"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
)

// threads returns the number of OS threads of this process.
func threads(t *testing.T) int {
	t.Helper()
	raw, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(raw), "\n") {
		if v, ok := strings.CutPrefix(line, "Threads:"); ok {
			n, err := strconv.Atoi(strings.TrimSpace(v))
			if err != nil {
				t.Fatal(err)
			}
			return n
		}
	}
	t.Fatal("no Threads in /proc/self/status")
	return 0
}

// goroutinesIn counts the goroutines whose stack mentions fn.
func goroutinesIn(fn string) int {
	buf := make([]byte, 1<<22)
	return strings.Count(string(buf[:runtime.Stack(buf, true)]), fn+"(")
}

// TestWaitPinsNoThread starts many children that keep running and checks that waiting for them does not
// hold one OS thread, or one goroutine, per child: their pidfds are watched by the shared watcher. It is not
// parallel: other tests' threads would blur the count.
func TestWaitPinsNoThread(t *testing.T) {
	const n = 64
	runLines(t, context.Background(), Cmd{Command: "true"}) // starts the shared watcher
	before := threads(t)
	var procs []*Process
	defer func() {
		for _, p := range procs {
			p.Stop()
			p.Wait()
		}
	}()
	for range n {
		p, err := Start(context.Background(), Cmd{Command: "exec sleep 300", Grace: 100 * time.Millisecond})
		if err != nil {
			t.Fatalf("Start() error = %v", err)
		}
		procs = append(procs, p)
	}
	for _, fn := range []string{"exec.(*Process).reap", "exec.pollExit", "exec.drainStderr"} {
		if got := goroutinesIn(fn); got > 0 {
			t.Errorf("%d goroutines in %s with %d children running, want 0", got, fn, n)
		}
	}
	if got := threads(t) - before; got >= n/2 {
		t.Errorf("waiting for %d children added %d threads, want fewer than %d", n, got, n/2)
	}
}

// TestWaitExitedFallback checks the waitid path taken without a pidfd: it returns once the child exited,
// and leaves it for Wait to reap.
func TestWaitExitedFallback(t *testing.T) {
	t.Parallel()
	cmd := osexec.Command("/bin/sh", "-c", "read x; exit 3")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if exited(cmd.Process.Pid) {
		t.Errorf("exited(%d) = true while the child waits for input, want false", cmd.Process.Pid)
	}
	stdin.Close()
	if !waitExited(cmd.Process.Pid, -1) {
		t.Errorf("waitExited(%d, -1) = false, want true", cmd.Process.Pid)
	}
	if !exited(cmd.Process.Pid) {
		t.Errorf("exited(%d) = false after waitExited, want true", cmd.Process.Pid)
	}
	_ = cmd.Wait() // the exit status is checked below
	if got := cmd.ProcessState.ExitCode(); got != 3 {
		t.Errorf("exit code = %d, want 3", got)
	}
}

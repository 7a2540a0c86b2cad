package exec

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// waitFor polls cond until it holds or the deadline passes, and reports whether it held. Process state in /proc
// has no event to wait on for a process that is not our child, so this polls on a ticker.
func waitFor(d time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(d)
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for !cond() {
		if time.Now().After(deadline) {
			return false
		}
		<-tick.C
	}
	return true
}

// TestPdeathsigOutlivesStartingThread guards against PR_SET_PDEATHSIG firing when the thread that forked
// the child exits (golang/go#27505): a child started from a goroutine locked to a thread that then ends
// must keep running.
func TestPdeathsigOutlivesStartingThread(t *testing.T) {
	t.Parallel()
	started := make(chan *Process, 1)
	tidc := make(chan int, 1)
	go func() {
		runtime.LockOSThread()
		for unix.Gettid() == os.Getpid() {
			// The main thread is never ended, only parked: get another one.
			runtime.UnlockOSThread()
			runtime.Gosched()
			runtime.LockOSThread()
		}
		// Never unlocked: the runtime ends this thread when the goroutine returns.
		tidc <- unix.Gettid()
		p, err := Start(context.Background(), Cmd{Command: "exec sleep 300", Grace: 100 * time.Millisecond})
		if err != nil {
			t.Error(err)
		}
		started <- p
	}()
	tid, p := <-tidc, <-started
	if p == nil {
		t.FailNow()
	}
	defer func() { p.Stop(); p.Wait() }()
	task := "/proc/self/task/" + strconv.Itoa(tid)
	if !waitFor(10*time.Second, func() bool { _, err := os.Stat(task); return os.IsNotExist(err) }) {
		t.Fatalf("thread %d did not exit", tid)
	}
	// A SIGKILL from the thread's exit would arrive at once; the exit watch would then see the child gone.
	select {
	case <-p.exited:
		t.Fatalf("child %d died when the thread that started it exited", p.PID())
	case <-time.After(200 * time.Millisecond):
	}
	if !pidAlive(p.PID()) {
		t.Fatalf("child %d is gone", p.PID())
	}
}

// TestPdeathsigSet checks that a child is asked to die with us: the kernel shows the signal in its status.
func TestPdeathsigSet(t *testing.T) {
	t.Parallel()
	lines, _ := runLines(t, context.Background(), Cmd{Command: "exec perl -e 'require \"syscall.ph\"; my $s = pack(\"i\", 0); syscall(&SYS_prctl, 2, $s); print unpack(\"i\", $s), \"\\n\"'"})
	if len(lines) != 1 || lines[0] != "9" {
		t.Fatalf("PR_GET_PDEATHSIG in the child = %q, want [9] (SIGKILL)", lines)
	}
}

// TestGuardSweepsSetsid checks that a process that left the command's session (setsid) is stopped when the
// command ends, by exit or by Stop.
func TestGuardSweepsSetsid(t *testing.T) {
	if err := Guard(); err != nil {
		t.Fatal(err)
	}
	const grace = 300 * time.Millisecond
	escape := "setsid sh -c 'echo $$ >pid; exec sleep 300 >/dev/null 2>&1' & until [ -s pid ]; do :; done; cat pid"
	t.Run("exit", func(t *testing.T) {
		got, res := runLines(t, context.Background(), Cmd{Command: escape, Grace: grace, Dir: t.TempDir()})
		if len(got) != 1 || res.ExitCode != 0 {
			t.Fatalf("Run(%q) = %q, exit %d, want one pid and 0", escape, got, res.ExitCode)
		}
		pid, _ := strconv.Atoi(got[0])
		if pid == 0 || !waitFor(2*time.Second, func() bool { return !pidAlive(pid) }) {
			t.Errorf("process %d, which called setsid, outlived its command", pid)
		}
	})
	t.Run("stop", func(t *testing.T) {
		dir := t.TempDir()
		p, ch, first := startReading(t, context.Background(), Cmd{Command: escape + "; exec sleep 300", Grace: grace, Dir: dir})
		pid, _ := strconv.Atoi(first)
		p.Stop()
		drain(t, ch)
		if _, err := p.Wait(); err != nil {
			t.Fatal(err)
		}
		if pid == 0 || !waitFor(2*time.Second, func() bool { return !pidAlive(pid) }) {
			t.Errorf("process %d, which called setsid, outlived its stopped command", pid)
		}
	})
	t.Run("holds stdout, ignores TERM", func(t *testing.T) {
		// Regression: the sweep waited for Wait, which the caller reaches only after stdout ends, which the
		// escaped process held: stopping took two grace periods instead of one.
		const grace = time.Second // long enough to tell one grace period from two under load
		cmd := `setsid sh -c 'trap "" TERM; echo $$; exec sleep 300'`
		p, ch, first := startReading(t, context.Background(), Cmd{Command: cmd, Grace: grace})
		pid, _ := strconv.Atoi(first)
		begin := time.Now()
		p.Stop()
		drain(t, ch)
		if _, err := p.Wait(); err != nil {
			t.Fatal(err)
		}
		if d := time.Since(begin); d < grace || d > grace+closeMargin+500*time.Millisecond {
			t.Errorf("stopping took %v, want one grace period (%v, then SIGKILL)", d, grace)
		}
		if pid == 0 || !waitFor(2*time.Second, func() bool { return !pidAlive(pid) }) {
			t.Errorf("process %d, which called setsid and ignores SIGTERM, outlived its stopped command", pid)
		}
	})
	t.Run("sweep", func(t *testing.T) {
		// Without its ScopeEnv the escaped process is not known to belong to the command: it outlives it, an
		// orphan adopted by us, until Sweep stops it (SIGKILL, since it ignores SIGTERM).
		pidFile := filepath.Join(t.TempDir(), "pid")
		cmd := "env -i setsid sh -c 'trap \"\" TERM; echo $$ >" + pidFile + "; while :; do sleep 1; done' >/dev/null 2>&1 & " +
			"until [ -s " + pidFile + " ]; do :; done"
		if _, res := runLines(t, context.Background(), Cmd{Command: cmd, Grace: grace}); res.ExitCode != 0 {
			t.Fatalf("Run(%q) exit = %d, want 0", cmd, res.ExitCode)
		}
		pid := readPid(t, pidFile)
		if !pidAlive(pid) {
			t.Fatalf("process %d without the scope variable is gone before Sweep: the test proves nothing", pid)
		}
		begin := time.Now()
		Sweep(grace)
		if pidAlive(pid) {
			t.Errorf("process %d survived Sweep", pid)
		}
		if d := time.Since(begin); d < grace || d > grace+2*time.Second {
			t.Errorf("Sweep took %v, want the grace period %v (then SIGKILL)", d, grace)
		}
	})
}

// readPid reads a pid written to path.
func readPid(t *testing.T, path string) int {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	n, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestGuardUndumpable checks that Guard makes this process not dumpable (its commands, which run as its user,
// cannot read its environment or memory through /proc), and that a command is dumpable again once it has
// exec'd: the sweep and the watchdog read the environment of what the commands leave behind.
func TestGuardUndumpable(t *testing.T) {
	if err := Guard(); err != nil {
		t.Fatal(err)
	}
	if d, err := unix.PrctlRetInt(unix.PR_GET_DUMPABLE, 0, 0, 0, 0); err != nil || d != 0 {
		t.Fatalf("PR_GET_DUMPABLE after Guard = %d, %v; want 0", d, err)
	}
	lines, _ := runLines(t, context.Background(), Cmd{Command: `exec perl -e 'require "syscall.ph"; print syscall(&SYS_prctl, 3, 0, 0, 0, 0), "\n"'`})
	if len(lines) != 1 || lines[0] != "1" {
		t.Fatalf("PR_GET_DUMPABLE in the command = %q, want [1]", lines)
	}
}

// TestWatchdogEnviron checks that the watchdog, which is dumpable and runs as our user, does not carry our
// environment (a command could read it in /proc): PATH is all it gets.
func TestWatchdogEnviron(t *testing.T) {
	t.Setenv("A2A_EXEC_TEST_SECRET", "s3cret") // before Guard, in case this test starts the watchdog
	if err := Guard(); err != nil {
		t.Fatal(err)
	}
	live.mu.Lock()
	pid := guard.wpid
	live.mu.Unlock()
	var env []byte
	var err error
	// The watchdog may have just started: before its execve, /proc shows our command line and environment, and
	// for a moment during it an empty one.
	proc := "/proc/" + strconv.Itoa(pid) + "/"
	if !waitFor(2*time.Second, func() bool {
		cmdline, _ := os.ReadFile(proc + "cmdline")
		env, err = os.ReadFile(proc + "environ")
		return err != nil || bytes.Contains(cmdline, []byte("a2a-exec-watchdog")) && len(env) > 0
	}) || err != nil {
		t.Fatalf("the watchdog's environment: %q, %v", env, err)
	}
	for _, kv := range strings.Split(strings.TrimSuffix(string(env), "\x00"), "\x00") {
		if !strings.HasPrefix(kv, "PATH=") {
			t.Errorf("the watchdog's environment holds %q, want PATH only", kv)
		}
	}
}

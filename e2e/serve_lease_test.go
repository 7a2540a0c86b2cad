package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

// gateScript answers a line "gate FIFO" only once something is written to FIFO: the test decides when the task ends,
// with no timer in the agent or the test.
const gateScript = `read l; echo "pid $$"; set -- $l; read g < "$2"; echo "after the gate"`

// TestStoreReplicaPausedPastLease: a replica stopped (SIGSTOP) for longer than its lease while it runs a task loses
// that task to the replica that swept it: the other replica reports it failed, and when the paused one wakes up and
// its command finishes, it writes nothing over that failure (its client hears the task failed, not completed), so
// every replica keeps answering "failed, the replica stopped while the task was running".
func TestStoreReplicaPausedPastLease(t *testing.T) {
	t.Parallel()
	db := postgresURL(t)
	args := []string{"--exec", gateScript, "--chunk", "\n", "--store", db, "--lease", "1s"}
	a := startServe(t, args...)
	b := startServe(t, args...)
	paused := false
	t.Cleanup(func() {
		if paused {
			a.cmd.Process.Signal(syscall.SIGCONT) //nolint:errcheck // a stopped serve cannot be stopped otherwise
		}
		if t.Failed() {
			t.Logf("replica a:\n%s\nreplica b:\n%s", a.Log(), b.Log())
		}
	})
	gate := filepath.Join(t.TempDir(), "gate")
	if err := syscall.Mkfifo(gate, 0o600); err != nil {
		t.Fatal(err)
	}
	c := startClient(t, "send", a.url, "gate "+gate, "--stream", "-o", "json")
	text, id := firstChunk(t, c, 30*time.Second)
	pid := pidsFrom(t, strings.TrimPrefix(strings.TrimSpace(text), "pid "))[0]
	killOnCleanup(t, pid)

	if err := a.cmd.Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	paused = true
	var got *a2a.Task
	eventually(t, 20*time.Second, "task failed by the replica that is not paused", func() bool {
		got, _ = getTask(t, b.url, id)
		return got != nil && got.Status.State == a2a.TaskStateFailed
	})
	wantContains(t, "status message", statusText(got), "stopped while the task was running", "lease of 1s expired")

	// The command finishes while its replica is still stopped (its output waits in the pipe), then the replica
	// wakes up to a finished command and a task it no longer owns.
	f, err := os.OpenFile(gate, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("go\n") //nolint:errcheck // the script reads it or the test fails below
	f.Close()
	if err := a.cmd.Process.Signal(syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	paused = false
	rest, _ := c.wait(t, 30*time.Second)
	if len(rest) == 0 {
		t.Fatalf("the client of the paused replica heard no end; stderr:\n%s", c.Stderr())
	}
	last := rest[len(rest)-1]
	if strings.Contains(last, "TASK_STATE_COMPLETED") || !strings.Contains(last, "TASK_STATE_FAILED") {
		t.Fatalf("the client of the paused replica: last event %s, want the task failed", last)
	}
	// What every replica answers, once the paused one has written all it would: still the sweep's failure.
	for _, s := range []*server{a, b} {
		got, r := getTask(t, s.url, id)
		if got == nil || got.Status.State != a2a.TaskStateFailed {
			t.Fatalf("task on %s after the paused replica woke up: %v", s.url, r)
		}
		wantContains(t, "status message on "+s.url, statusText(got), "stopped while the task was running")
		for _, art := range got.Artifacts {
			for _, p := range art.Parts {
				if strings.Contains(p.Text(), "after the gate") {
					t.Fatalf("task on %s keeps output written after it was swept: %q", s.url, p.Text())
				}
			}
		}
	}
}

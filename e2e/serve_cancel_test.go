package e2e

import (
	"encoding/json"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

// sleeper prints its own pid and a background grandchild's pid as two chunks, then sleeps.
const sleeper = `echo $$; sleep 300 & echo $!; sleep 300`

// streamPids starts send --stream on srv and returns the task id and the pids the command printed.
func streamPids(t *testing.T, url string) (*client, a2a.TaskID, []int) {
	t.Helper()
	c := startClient(t, "send", url, "go", "--stream", "-o", "json")
	var id a2a.TaskID
	var pids []int
	for len(pids) < 2 {
		ev := c.event(t, 20*time.Second)
		if id == "" {
			id = ev.TaskInfo().TaskID
		}
		if s, ok := chunkText(ev); ok && s != "" {
			pids = append(pids, pidsFrom(t, s)...)
		}
	}
	killOnCleanup(t, pids...)
	return c, id, pids
}

// finalState drains the client's stream and returns the state of its last event and its exit code.
func finalState(t *testing.T, c *client, timeout time.Duration) (a2a.TaskState, int) {
	t.Helper()
	rest, code := c.wait(t, timeout)
	if len(rest) == 0 {
		t.Fatalf("stream ended without a final status (exit %d)\n%s", code, c.Stderr())
	}
	events, errDoc := jsonLines(t, strings.Join(rest, "\n"))
	if errDoc != nil {
		t.Fatalf("stream ended with error %v, want a final status", errDoc)
	}
	return lastState(t, events), code
}

// TestExecCancelKillsProcessGroup: cancel ends the task within the grace and stops the child and its grandchild.
func TestExecCancelKillsProcessGroup(t *testing.T) {
	t.Parallel()
	srv := startServe(t, "--exec", sleeper, "--chunk=\n", "--quiet")
	c, id, pids := streamPids(t, srv.url)
	start := time.Now()
	r := run(t, "", "cancel", srv.url, string(id), "-o", "json")
	wantCode(t, r, 0)
	var task a2a.Task
	if err := json.Unmarshal([]byte(r.stdout), &task); err != nil || task.Status.State != a2a.TaskStateCanceled {
		t.Fatalf("cancel printed %v (%v), want a canceled task", task.Status.State, err)
	}
	wantGone(t, 5*time.Second, pids...)
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("cancel took %s", d)
	}
	if st, code := finalState(t, c, 10*time.Second); st != a2a.TaskStateCanceled || code != 0 {
		t.Fatalf("stream ended %s, exit %d; want canceled, exit 0", st, code)
	}
}

// TestExecTimeoutKillsProcessGroup: --exec-timeout fails the task and stops the whole group.
func TestExecTimeoutKillsProcessGroup(t *testing.T) {
	t.Parallel()
	srv := startServe(t, "--exec", sleeper, "--chunk=\n", "--exec-timeout", "1s", "--quiet")
	c, id, pids := streamPids(t, srv.url)
	if st, _ := finalState(t, c, 15*time.Second); st != a2a.TaskStateFailed {
		t.Fatalf("stream ended %s, want failed", st)
	}
	wantGone(t, 5*time.Second, pids...)
	r := run(t, "", "get", "task", srv.url, string(id))
	wantCode(t, r, 0)
	wantContains(t, "get task", r.stdout, "State: failed", "timed out")
}

// TestServeSIGTERMEndsStreams: SIGTERM ends open streams with a final status, exits and leaves no subprocess.
func TestServeSIGTERMEndsStreams(t *testing.T) {
	t.Parallel()
	srv := startServe(t, "--exec", sleeper, "--chunk=\n", "--quiet")
	c, _, pids := streamPids(t, srv.url)
	srv.cmd.Process.Signal(syscall.SIGTERM)
	waitExit(t, srv, 5*time.Second)
	wantGone(t, 3*time.Second, pids...)
	st, code := finalState(t, c, 5*time.Second)
	if st != a2a.TaskStateCanceled && st != a2a.TaskStateFailed {
		t.Fatalf("stream ended %s, want canceled or failed", st)
	}
	if code != 0 {
		t.Fatalf("client exit %d, want 0\n%s", code, c.Stderr())
	}
}

// TestServeSecondSignalExitsAtOnce: a command ignoring SIGTERM makes the shutdown slow; a second SIGINT ends it
// at once and still kills every subprocess.
func TestServeSecondSignalExitsAtOnce(t *testing.T) {
	t.Parallel()
	// The trap reports the shutdown's SIGTERM as a chunk, and survives it.
	stubborn := `trap 'echo term' TERM; echo $$; sleep 300 & echo $!; while :; do sleep 1 & wait $!; done`
	srv := startServe(t, "--exec", stubborn, "--chunk=\n", "--quiet")
	c, _, pids := streamPids(t, srv.url)
	srv.cmd.Process.Signal(syscall.SIGINT)
	for {
		if s, ok := chunkText(c.event(t, 10*time.Second)); ok && s == "term\n" {
			break
		}
	}
	start := time.Now()
	srv.cmd.Process.Signal(syscall.SIGINT)
	state := waitExit(t, srv, 5*time.Second)
	if d := time.Since(start); d > time.Second {
		t.Fatalf("server took %s to exit after the second signal", d)
	}
	ws := state.Sys().(syscall.WaitStatus)
	if !(ws.Exited() && ws.ExitStatus() == 130) && !ws.Signaled() {
		t.Fatalf("server ended %v, want exit 130 or a signal", state)
	}
	wantGone(t, 3*time.Second, pids...)
}

// waitExit waits for the server process to exit and returns its state.
func waitExit(t *testing.T, srv *server, timeout time.Duration) *os.ProcessState {
	t.Helper()
	exited := make(chan struct{})
	go func() {
		<-srv.done
		srv.cmd.Wait()
		close(exited)
	}()
	select {
	case <-exited:
	case <-time.After(timeout):
		srv.cmd.Process.Kill()
		<-exited
		t.Fatalf("server did not exit within %s:\n%s", timeout, srv.Log())
	}
	return srv.cmd.ProcessState
}

// TestMaxConcurrent: with --max-concurrent 1 the second task's command starts after the first one ended.
func TestMaxConcurrent(t *testing.T) {
	t.Parallel()
	srv := startServe(t, "--exec", `echo "$(date +%s%N) $(sleep 1) $(date +%s%N)"`, "--max-concurrent", "1", "--quiet")
	a := startClient(t, "send", srv.url, "a", "-o", "json")
	b := startClient(t, "send", srv.url, "b", "-o", "json")
	var spans [][2]int64
	for _, c := range []*client{a, b} {
		lines, code := c.wait(t, 30*time.Second)
		if code != 0 || len(lines) != 1 {
			t.Fatalf("send exit %d, output %q\n%s", code, lines, c.Stderr())
		}
		r := result{stdout: lines[0]}
		f := strings.Fields(sendTask(t, r).Artifacts[0].Parts[0].Text())
		if len(f) != 2 {
			t.Fatalf("command output %q, want two timestamps", f)
		}
		s, err1 := strconv.ParseInt(f[0], 10, 64)
		e, err2 := strconv.ParseInt(f[1], 10, 64)
		if err1 != nil || err2 != nil {
			t.Fatalf("timestamps %q", f)
		}
		spans = append(spans, [2]int64{s, e})
	}
	if spans[0][0] < spans[1][1] && spans[1][0] < spans[0][1] {
		t.Fatalf("commands overlapped: %v and %v", spans[0], spans[1])
	}
}

// TestClientDisconnectKeepsTask: killing a streaming client does not cancel its task.
func TestClientDisconnectKeepsTask(t *testing.T) {
	t.Parallel()
	srv := startServe(t, "--exec", `echo one; sleep 3; echo two`, "--chunk=\n", "--quiet")
	c := startClient(t, "send", srv.url, "go", "--stream", "-o", "json")
	_, id := firstChunk(t, c, 20*time.Second)
	c.cmd.Process.Kill()
	c.wait(t, 5*time.Second)

	r := run(t, "", "get", "task", srv.url, string(id))
	wantCode(t, r, 0)
	if st := field(r.stdout, "State"); st != "working" {
		t.Fatalf("after the client died the task is %q, want working\n%s", st, r)
	}
	r = run(t, "", "subscribe", srv.url, string(id), "-o", "json")
	wantCode(t, r, 0)
	events, _ := jsonLines(t, r.stdout)
	if st := lastState(t, events); st != a2a.TaskStateCompleted {
		t.Fatalf("subscribe ended %s, want completed\n%s", st, r)
	}
	r = run(t, "", "get", "task", srv.url, string(id), "--with-artifacts")
	wantCode(t, r, 0)
	wantContains(t, "get task", r.stdout, "State: completed", "one", "two")
}

package e2e

import (
	"bytes"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

// groupMembers returns the live processes of process group pgid.
func groupMembers(pgid int) []int {
	names, _ := filepath.Glob("/proc/[0-9]*/stat")
	var out []int
	for _, name := range names {
		b, err := os.ReadFile(name)
		if err != nil {
			continue
		}
		i := bytes.LastIndexByte(b, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(string(b[i+1:]))
		if len(f) < 3 || f[0] == "Z" || f[0] == "X" {
			continue
		}
		if pg, _ := strconv.Atoi(f[2]); pg == pgid {
			pid, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(name, "/proc/"), "/stat"))
			out = append(out, pid)
		}
	}
	return out
}

// wantGroupGone waits until process group pgid has no live member, killing it (and failing) after timeout.
func wantGroupGone(t *testing.T, timeout time.Duration, pgid int) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	tick := time.NewTicker(20 * time.Millisecond) // as wantGone: /proc has no event to wait on
	defer tick.Stop()
	for len(groupMembers(pgid)) > 0 {
		if time.Now().After(deadline) {
			syscall.Kill(-pgid, syscall.SIGKILL)
			t.Fatalf("process group %d still has %v after %s", pgid, groupMembers(pgid), timeout)
		}
		<-tick.C
	}
}

// TestServeKill9StopsCommands: a SIGKILL of serve, which it cannot handle, still ends a running command that
// ignores SIGTERM, and its whole process group (the shell, a background child, a foreground child).
func TestServeKill9StopsCommands(t *testing.T) {
	t.Parallel()
	stubborn := `trap '' TERM; echo $$; sleep 300 & echo $!; sleep 300`
	srv := startServe(t, "--exec", stubborn, "--chunk=\n", "--quiet")
	_, _, pids := streamPids(t, srv.url)
	srv.cmd.Process.Kill()
	waitExit(t, srv, 5*time.Second)
	wantGone(t, 10*time.Second, pids...)
	wantGroupGone(t, 10*time.Second, pids[0])
}

// escaper leaves the command's session and process group, prints its pid and keeps running, deaf to SIGTERM.
const escaper = `setsid sh -c 'trap "" TERM; echo $$; exec sleep 300'`

// escapedPid starts send --stream on url and returns the client, the task id and the escaped process's pid.
func escapedPid(t *testing.T, url string) (*client, string, int) {
	t.Helper()
	c := startClient(t, "send", url, "go", "--stream", "-o", "json")
	text, id := firstChunk(t, c, 20*time.Second)
	pids := pidsFrom(t, text)
	if len(pids) != 1 {
		t.Fatalf("first chunk %q, want one pid", text)
	}
	killOnCleanup(t, pids[0])
	if pgid, _ := syscall.Getpgid(pids[0]); pgid != pids[0] {
		t.Fatalf("process %d is in group %d, want a group of its own (setsid)", pids[0], pgid)
	}
	return c, string(id), pids[0]
}

// TestServeShutdownStopsSetsid: a command's descendant that called setsid is stopped by a normal shutdown.
func TestServeShutdownStopsSetsid(t *testing.T) {
	t.Parallel()
	srv := startServe(t, "--exec", escaper, "--chunk=\n", "--quiet")
	_, _, pid := escapedPid(t, srv.url)
	srv.cmd.Process.Signal(syscall.SIGTERM)
	waitExit(t, srv, 10*time.Second)
	wantGone(t, 15*time.Second, pid)
}

// TestServeCancelStopsSetsid: cancelling the task stops its setsid'd descendant while serve keeps running.
func TestServeCancelStopsSetsid(t *testing.T) {
	t.Parallel()
	srv := startServe(t, "--exec", escaper, "--chunk=\n", "--quiet")
	_, id, pid := escapedPid(t, srv.url)
	wantCode(t, run(t, "", "cancel", srv.url, id, "-o", "json"), 0)
	wantGone(t, 15*time.Second, pid)
}

// TestServeTimeoutStopsSetsid: --exec-timeout stops the task's setsid'd descendant too.
func TestServeTimeoutStopsSetsid(t *testing.T) {
	t.Parallel()
	srv := startServe(t, "--exec", escaper, "--chunk=\n", "--exec-timeout", "1s", "--quiet")
	c, _, pid := escapedPid(t, srv.url)
	if st, _ := finalState(t, c, 15*time.Second); st != a2a.TaskStateFailed {
		t.Fatalf("stream ended %s, want failed", st)
	}
	wantGone(t, 15*time.Second, pid)
}

// TestServeKill9StopsSetsid: after a SIGKILL of serve, the watchdog stops a descendant that left the group.
func TestServeKill9StopsSetsid(t *testing.T) {
	t.Parallel()
	srv := startServe(t, "--exec", escaper, "--chunk=\n", "--quiet")
	_, _, pid := escapedPid(t, srv.url)
	srv.cmd.Process.Kill()
	waitExit(t, srv, 5*time.Second)
	wantGone(t, 10*time.Second, pid)
}

// children returns the children of pid, minus the exec watchdog.
func children(pid int) []int {
	files, _ := filepath.Glob("/proc/" + strconv.Itoa(pid) + "/task/*/children")
	var out []int
	for _, f := range files {
		b, _ := os.ReadFile(f)
		for _, s := range strings.Fields(string(b)) {
			n, _ := strconv.Atoi(s)
			if cl, _ := os.ReadFile("/proc/" + s + "/cmdline"); !bytes.Contains(cl, []byte("a2a-exec-watchdog")) {
				out = append(out, n)
			}
		}
	}
	return out
}

// TestServeDefaultMaxConcurrent: 300 messages at once start at most 4 commands per CPU (GOMAXPROCS=2: 8) by
// default; the rest wait their turn and all complete.
func TestServeDefaultMaxConcurrent(t *testing.T) {
	t.Parallel()
	const n, limit = 300, 8
	dir := t.TempDir()
	// Each command counts the commands running when it starts (itself included) and appends the count.
	cmd := `: > ` + dir + `/$$; ls ` + dir + ` | wc -l >> ` + dir + `.counts; sleep 0.1; rm ` + dir + `/$$`
	t.Cleanup(func() { os.Remove(dir + ".counts") })
	srv := startServeEnv(t, []string{"GOMAXPROCS=2"}, "--exec", cmd, "--quiet")
	var peak atomic.Int64
	stop := make(chan struct{})
	watched := make(chan struct{})
	go func() {
		defer close(watched)
		for {
			if k := int64(len(children(srv.cmd.Process.Pid))); k > peak.Load() {
				peak.Store(k)
			}
			select {
			case <-stop:
				return
			case <-time.After(5 * time.Millisecond):
			}
		}
	}()
	tr := &http.Transport{MaxIdleConnsPerHost: n}
	defer tr.CloseIdleConnections()
	hc := &http.Client{Transport: tr, Timeout: 2 * time.Minute}
	var wg sync.WaitGroup
	var failed atomic.Int64
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			body := `{"message":{"messageId":"m` + strconv.Itoa(i) + `","role":"ROLE_USER","parts":[{"text":"hi"}]}}`
			resp, err := hc.Post(srv.url+"/message:send", "application/json", strings.NewReader(body))
			if err != nil {
				failed.Add(1)
				return
			}
			var b bytes.Buffer
			b.ReadFrom(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK || !strings.Contains(b.String(), "TASK_STATE_COMPLETED") {
				failed.Add(1)
			}
		}()
	}
	wg.Wait()
	close(stop)
	<-watched
	if f := failed.Load(); f > 0 {
		t.Fatalf("%d of %d messages did not complete", f, n)
	}
	raw, err := os.ReadFile(dir + ".counts")
	if err != nil {
		t.Fatal(err)
	}
	counts := strings.Fields(string(raw))
	most := 0
	for _, c := range counts {
		k, _ := strconv.Atoi(c)
		most = max(most, k)
	}
	t.Logf("%d commands ran, at most %d at once (seen by the commands), %d children of serve at once (seen in /proc)",
		len(counts), most, peak.Load())
	if len(counts) != n || most > limit || peak.Load() > limit {
		t.Fatalf("%d commands ran, at most %d at once, %d children at once; want %d, at most %d",
			len(counts), most, peak.Load(), n, limit)
	}
}

// TestServeShutdownStopsHiddenEscaper: a descendant that left the group and cleared its environment cannot be
// told from another command's, so it outlives its task, but not serve's normal shutdown.
func TestServeShutdownStopsHiddenEscaper(t *testing.T) {
	t.Parallel()
	srv := startServe(t, "--exec", `env -i setsid sh -c 'echo $$; exec sleep 300'`, "--chunk=\n", "--quiet")
	_, _, pid := escapedPid(t, srv.url)
	srv.cmd.Process.Signal(syscall.SIGTERM)
	waitExit(t, srv, 10*time.Second)
	wantGone(t, 15*time.Second, pid)
}

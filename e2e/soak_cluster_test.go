package e2e

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/a2acli/a2a/internal/syncbuf"
)

// soakScript is the soak's agent: a message starting with "echo" is answered at once (the echo share of the load);
// any other is worked on for 0.5 to 2 s (the pid picks how long), in four chunks and a last line, so that a lost or
// doubled chunk shows in the artifact.
const soakScript = `read -r m
case "$m" in echo*) printf '%s\n' "$m"; exit 0;; esac
s=$(printf '0.%03d' $(( (500 + $$ % 1501) / 4 )))
for i in 1 2 3 4; do sleep "$s"; printf 'part %d of 4\n' "$i"; done
printf 'done\n'`

// soakOutput is what soakScript writes for a message that is not an echo.
const soakOutput = "part 1 of 4\npart 2 of 4\npart 3 of 4\npart 4 of 4\ndone\n"

// replica is one `a2a serve` of the cluster, on a port of its own that it keeps across restarts (HAProxy's
// configuration names it).
type replica struct {
	name string
	port int
	args []string
	cmd  *exec.Cmd
	done chan struct{}
	log  *syncbuf.Buffer
}

func (r *replica) url() string { return "http://127.0.0.1:" + strconv.Itoa(r.port) }

// start runs the replica and waits until its /healthz answers.
func (r *replica) start(t *testing.T) {
	t.Helper()
	r.cmd = exec.Command(bin, append([]string{"serve", "--port", strconv.Itoa(r.port)}, r.args...)...)
	r.cmd.Env = cmdEnv()
	r.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // kill -9 takes its commands too, as a container stop does
	if r.log == nil {
		r.log = &syncbuf.Buffer{}
	}
	r.cmd.Stderr = r.log
	if err := r.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	r.done = done
	go func() { r.cmd.Wait(); close(done) }() //nolint:errcheck // the exit is seen through done
	waitHealthy(t, r.url(), done, r.log)
}

// kill9 kills the replica's process group with SIGKILL and waits for it.
func (r *replica) kill9() {
	syscall.Kill(-r.cmd.Process.Pid, syscall.SIGKILL) //nolint:errcheck // an exited process is fine
	<-r.done
}

// signal sends sig to the replica's process group (SIGSTOP, SIGCONT).
func (r *replica) signal(t *testing.T, sig syscall.Signal) {
	if err := syscall.Kill(-r.cmd.Process.Pid, sig); err != nil {
		t.Errorf("%s: signal %v: %v", r.name, sig, err)
	}
}

// stop ends the replica with SIGTERM (SIGCONT first, should it be stopped), SIGKILL after 10 s.
func (r *replica) stop() {
	if r.cmd == nil || r.cmd.Process == nil {
		return
	}
	select {
	case <-r.done:
		return
	default:
	}
	syscall.Kill(-r.cmd.Process.Pid, syscall.SIGCONT) //nolint:errcheck // an exited process is fine
	r.cmd.Process.Signal(syscall.SIGTERM)             //nolint:errcheck // an exited process is fine
	select {
	case <-r.done:
	case <-time.After(10 * time.Second):
		r.kill9()
	}
}

// waitHealthy polls url's /healthz until it answers 200; the process exiting first, or a minute, fails the test.
func waitHealthy(t *testing.T, url string, exited <-chan struct{}, log fmt.Stringer) {
	t.Helper()
	c := &http.Client{Timeout: time.Second}
	deadline := time.Now().Add(time.Minute)
	for {
		if resp, err := c.Get(url + "/healthz"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return
			}
		}
		select {
		case <-exited:
			t.Fatalf("%s exited before it was healthy:\n%s", url, log)
		case <-time.After(50 * time.Millisecond): // nothing to wait on but the answer
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: not healthy within a minute:\n%s", url, log)
		}
	}
}

// haproxyConfig is the configuration docs/production.md shows: HTTP mode, health checks on /healthz every
// 500 ms (down after 2 failures, up after 2 successes), a request that could not connect retried on another
// replica, nothing retried once sent (a POST is not idempotent: a retried send would start a second task), and
// timeouts long enough for a stream's silences.
func haproxyConfig(port int, servers []*replica) string {
	var b strings.Builder
	fmt.Fprintf(&b, `global
	maxconn 4096

defaults
	mode http
	option http-server-close
	timeout connect 1s
	timeout client 5m
	timeout server 5m
	timeout http-request 10s
	timeout check 1s
	retries 3
	retry-on conn-failure
	option redispatch 1

frontend a2a
	bind 127.0.0.1:%d
	default_backend replicas

backend replicas
	balance leastconn
	option httpchk GET /healthz
	http-check expect status 200
	default-server inter 500ms fall 2 rise 2
`, port)
	for _, s := range servers {
		fmt.Fprintf(&b, "\tserver %s 127.0.0.1:%d check\n", s.name, s.port)
	}
	return b.String()
}

// startHAProxy runs haproxy in the foreground at front (a port reserved before the replicas started: their cards
// name it) and returns its URL once it answers for them.
func startHAProxy(t *testing.T, path, front string, servers []*replica) string {
	t.Helper()
	port, _ := strconv.Atoi(front[strings.LastIndexByte(front, ':')+1:]) // ours: it parses
	cfg := filepath.Join(t.TempDir(), "haproxy.cfg")
	if err := os.WriteFile(cfg, []byte(haproxyConfig(port, servers)), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, path, "-db", "-f", cfg)
	log := &syncbuf.Buffer{}
	cmd.Stdout, cmd.Stderr = log, log
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
	cmd.WaitDelay = 5 * time.Second
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }() //nolint:errcheck // the exit is seen through done
	t.Cleanup(func() { cancel(); <-done })
	waitHealthy(t, front, done, log)
	return front
}

// lookHAProxy finds haproxy (Debian installs it in /usr/sbin, often not on a user's PATH).
func lookHAProxy() (string, error) {
	if p, err := exec.LookPath("haproxy"); err == nil {
		return p, nil
	}
	if _, err := os.Stat("/usr/sbin/haproxy"); err == nil {
		return "/usr/sbin/haproxy", nil
	}
	return "", fmt.Errorf("haproxy not found")
}

// cpuTime is the CPU process pid and its reaped children used so far (utime, stime, cutime, cstime of
// /proc/PID/stat); 0 when it cannot be read.
func cpuTime(pid int) time.Duration {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+2:]) // after the command name, fields from 3 on
	var ticks int64
	for _, i := range []int{11, 12, 13, 14} { // fields 14 to 17, counted from 3
		n, _ := strconv.ParseInt(f[i], 10, 64) // the kernel writes numbers
		ticks += n
	}
	return time.Duration(ticks) * 10 * time.Millisecond // USER_HZ is 100 on Linux
}

// rss is the resident memory of process pid in bytes (VmRSS), 0 when it cannot be read.
func rss(pid int) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "VmRSS:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return kb << 10
		}
	}
	return 0
}

package e2e

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2aclient"
	"github.com/a2aproject/a2a-go/v2/a2aclient/agentcard"
	"github.com/a2aproject/a2a-go/v2/a2acompat/a2av0"
	grpcv0 "github.com/a2aproject/a2a-go/v2/a2agrpc/v0"
	grpcv1 "github.com/a2aproject/a2a-go/v2/a2agrpc/v1"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
)

// eventually polls cond every 20 ms until it holds, failing the test after timeout.
func eventually(t testing.TB, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for !cond() {
		select {
		case <-deadline.C:
			t.Fatalf("%s: not within %s", what, timeout)
		case <-tick.C:
		}
	}
}

// alive reports whether pid is a live process; zombies and missing processes count as gone.
func alive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 || i+2 >= len(s) {
		return false
	}
	state := s[i+2]
	return state != 'Z' && state != 'X' && state != 'x'
}

// wantGone waits until every pid is gone, killing leftovers (and failing) after timeout.
func wantGone(t testing.TB, timeout time.Duration, pids ...int) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for _, pid := range pids {
		for alive(pid) {
			if time.Now().After(deadline) {
				syscall.Kill(pid, syscall.SIGKILL)
				t.Fatalf("process %d still alive after %s", pid, timeout)
			}
			<-tick.C
		}
	}
}

// killOnCleanup kills pid's process group and pid at cleanup, in case a test failed before it was stopped.
func killOnCleanup(t testing.TB, pids ...int) {
	t.Cleanup(func() {
		for _, pid := range pids {
			if alive(pid) {
				syscall.Kill(-pid, syscall.SIGKILL)
				syscall.Kill(pid, syscall.SIGKILL)
			}
		}
	})
}

// rssKB returns the resident set size of pid in kB.
func rssKB(t testing.TB, pid int) int {
	t.Helper()
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			n, err := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(v), " kB"))
			if err != nil {
				t.Fatalf("VmRSS %q: %v", v, err)
			}
			return n
		}
	}
	t.Fatalf("no VmRSS in /proc/%d/status", pid)
	return 0
}

// freePort reserves a loopback port by listening on it and closing the listener.
func freePort(t testing.TB) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// client is a running client command whose stdout is read line by line.
type client struct {
	cmd    *exec.Cmd
	lines  chan string
	quit   chan struct{}
	done   chan struct{} // closed when the process has exited and stdout is drained
	mu     sync.Mutex
	stderr bytes.Buffer
	code   int
}

func (c *client) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.stderr.Write(p)
}

// Stderr returns what the client wrote to stderr so far.
func (c *client) Stderr() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.stderr.String()
}

// startClient starts the binary with args; its stdout lines arrive on c.lines, which is closed at EOF.
// The process is killed at cleanup if it is still running.
func startClient(t testing.TB, args ...string) *client {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = cmdEnv()
	c := &client{cmd: cmd, lines: make(chan string, 64), quit: make(chan struct{}), done: make(chan struct{})}
	cmd.Stderr = c
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		defer close(c.done)
		defer close(c.lines)
		sc := bufio.NewScanner(out)
		sc.Buffer(make([]byte, 64<<10), 64<<20)
		for sc.Scan() {
			select {
			case c.lines <- sc.Text():
			case <-c.quit:
			}
		}
		err := cmd.Wait()
		c.code = 0
		if ee, ok := err.(*exec.ExitError); ok {
			c.code = ee.ExitCode()
		}
	}()
	t.Cleanup(func() {
		close(c.quit)
		cmd.Process.Kill()
		<-c.done
	})
	return c
}

// next returns the next stdout line, failing the test after timeout or at EOF.
func (c *client) next(t testing.TB, timeout time.Duration) string {
	t.Helper()
	select {
	case line, ok := <-c.lines:
		if !ok {
			t.Fatalf("client stdout ended; stderr:\n%s", c.Stderr())
		}
		return line
	case <-time.After(timeout):
		t.Fatalf("no stdout line within %s; stderr:\n%s", timeout, c.Stderr())
	}
	return ""
}

// event decodes the next JSON line as a StreamResponse event.
func (c *client) event(t testing.TB, timeout time.Duration) a2a.Event {
	t.Helper()
	line := c.next(t, timeout)
	var sr a2a.StreamResponse
	if err := json.Unmarshal([]byte(line), &sr); err != nil {
		t.Fatalf("line is not a StreamResponse: %v\n%s", err, line)
	}
	return sr.Event
}

// wait collects the remaining lines and waits for the exit, failing after timeout.
func (c *client) wait(t testing.TB, timeout time.Duration) (rest []string, code int) {
	t.Helper()
	deadline := time.After(timeout)
	for {
		select {
		case line, ok := <-c.lines:
			if !ok {
				<-c.done
				return rest, c.code
			}
			rest = append(rest, line)
		case <-deadline:
			t.Fatalf("client did not exit within %s; stderr:\n%s", timeout, c.Stderr())
		}
	}
}

// chunkText returns the text of an artifact update, and whether ev is one.
func chunkText(ev a2a.Event) (string, bool) {
	au, ok := ev.(*a2a.TaskArtifactUpdateEvent)
	if !ok {
		return "", false
	}
	var b strings.Builder
	for _, p := range au.Artifact.Parts {
		b.WriteString(p.Text())
	}
	return b.String(), true
}

// firstChunk reads events until the first artifact update and returns its text and the task id.
func firstChunk(t testing.TB, c *client, timeout time.Duration) (text string, taskID a2a.TaskID) {
	t.Helper()
	for {
		ev := c.event(t, timeout)
		if taskID == "" {
			taskID = ev.TaskInfo().TaskID
		}
		if s, ok := chunkText(ev); ok {
			return s, taskID
		}
	}
}

// libClient resolves the card at url with the a2a-go resolver and connects over tr, as a v0.3 client when v03.
func libClient(t testing.TB, url string, tr a2a.TransportProtocol, v03 bool) *a2aclient.Client {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	resolver := agentcard.DefaultResolver
	if v03 {
		resolver = &agentcard.Resolver{Client: agentcard.DefaultResolver.Client, CardParser: a2av0.NewAgentCardParser()}
	}
	card, err := resolver.Resolve(ctx, url)
	if err != nil {
		t.Fatalf("Resolve(%s) = %v", url, err)
	}
	creds := grpc.WithTransportCredentials(insecure.NewCredentials())
	opts := []a2aclient.FactoryOption{grpcv1.WithGRPCTransport(creds)}
	if v03 {
		// a2a-go's v0.3 gRPC client hands the card's gRPC URL to grpc-go as its target, as the other SDKs' clients
		// do: the card must name one that dials (host:port).
		opts = []a2aclient.FactoryOption{
			a2av0.WithJSONRPCTransport(a2av0.JSONRPCTransportConfig{}),
			a2av0.WithRESTTransport(a2av0.RESTTransportConfig{}),
			grpcv0.WithGRPCTransport(creds),
		}
	}
	opts = append(opts, a2aclient.WithConfig(a2aclient.Config{PreferredTransports: []a2a.TransportProtocol{tr}}))
	c, err := a2aclient.NewFromCard(ctx, card, opts...)
	if err != nil {
		t.Fatalf("NewFromCard(%s) = %v", tr, err)
	}
	t.Cleanup(func() { c.Destroy() })
	return c
}

// pidsFrom parses whitespace-separated pids.
func pidsFrom(t testing.TB, s string) []int {
	t.Helper()
	var pids []int
	for _, f := range strings.Fields(s) {
		pid, err := strconv.Atoi(f)
		if err != nil {
			t.Fatalf("pid %q: %v", f, err)
		}
		pids = append(pids, pid)
	}
	return pids
}

// refusingPort returns a loopback port that refuses connections for the whole test: a socket bound to it
// but never listening holds it, so no other test's server can take it while a client retries (a port
// freePort returned could be reused by a parallel test's server).
func refusingPort(t testing.TB) int {
	t.Helper()
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = syscall.Close(fd) })
	if err := syscall.Bind(fd, &syscall.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		t.Fatal(err)
	}
	sa, err := syscall.Getsockname(fd)
	if err != nil {
		t.Fatal(err)
	}
	return sa.(*syscall.SockaddrInet4).Port
}

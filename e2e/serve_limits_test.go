package e2e

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"
)

// zeros is an endless reader of a JSON string's worth of bytes.
type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = 'a'
	}
	return len(p), nil
}

// bigBody is a SendMessage whose text is n bytes long, streamed.
func bigBody(n int64) io.Reader {
	head := `{"message":{"messageId":"m-big","role":"ROLE_USER","parts":[{"text":"`
	tail := `"}]}}`
	return io.MultiReader(strings.NewReader(head), io.LimitReader(zeros{}, n), strings.NewReader(tail))
}

// TestServeBodyLimit: bodies above --max-request-bytes are refused with a clear A2A error on every binding,
// with or without a Content-Length; 100 MB bodies do not grow serve's memory; under the limit calls work.
func TestServeBodyLimit(t *testing.T) {
	t.Parallel()
	cmd, ran := execMarker(t)
	s := startServe(t, "--exec", cmd, "--transport", "rest,jsonrpc,grpc", "--quiet")
	pid := s.cmd.Process.Pid
	before := rssKB(t, pid)
	for _, n := range []int64{5 << 20, 100 << 20} {
		for _, chunked := range []bool{false, true} {
			for _, path := range []string{"/message:send", "/jsonrpc"} {
				size := n + int64(len(restSend))
				var body io.Reader = bigBody(n)
				if chunked {
					body = io.MultiReader(body) // hides the length: sent chunked
					size = -1
				}
				req, err := http.NewRequest("POST", s.url+path, body)
				if err != nil {
					t.Fatal(err)
				}
				req.ContentLength = size
				req.Header.Set("Content-Type", "application/json")
				resp, err := http.DefaultClient.Do(req)
				what := fmt.Sprintf("%d MB to %s (chunked %v)", n>>20, path, chunked)
				if err != nil {
					// serve may close the connection while the rest of the body is still being sent.
					t.Logf("%s: %v (the connection was closed before the answer was read)", what, err)
					continue
				}
				b, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				wantGuarded(t, what, rawResp{status: resp.StatusCode, header: resp.Header, body: string(b)}, 413,
					"larger than this server accepts (4194304 bytes)", "--max-request-bytes")
				if path == "/jsonrpc" && !strings.Contains(string(b), `"code":-32600`) {
					t.Fatalf("%s: not a JSON-RPC error: %s", what, b)
				}
			}
		}
	}
	after := rssKB(t, pid)
	t.Logf("serve RSS: %d kB before, %d kB after 400 MB of refused bodies", before, after)
	if after > before+64<<10 {
		t.Fatalf("serve's RSS grew from %d kB to %d kB", before, after)
	}
	if ran() {
		t.Fatal("the --exec command ran for a body over the limit")
	}
	// gRPC's receive limit is the same.
	conn, err := grpc.NewClient(strings.TrimPrefix(s.url, "http://"), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	err = conn.Invoke(ctx, "/lf.a2a.v1.A2AService/SendMessage", &bigMsg{n: 5 << 20}, &emptyMsg{}, grpc.ForceCodec(rawCodec{}))
	if status.Code(err) != codes.ResourceExhausted {
		t.Fatalf("5 MB gRPC message: %v, want ResourceExhausted", err)
	}
	// Under the limit (and with a raised one) calls work.
	r := run(t, strings.Repeat("x", 3<<20), "send", s.url, "-", "-o", "json")
	wantCode(t, r, 0)
	raised := startServe(t, "--echo", "--max-request-bytes", "8000000", "--quiet")
	r = run(t, strings.Repeat("x", 6<<20), "send", raised.url, "-", "-o", "json")
	wantCode(t, r, 0)
}

// bigMsg is a gRPC message of n bytes (its content does not matter: it is refused by size before decoding).
type bigMsg struct{ n int }

// TestServeSurvivesFDExhaustion: with `ulimit -n 64`, 100 connections run serve out of file descriptors; it keeps
// accepting once they close instead of exiting.
func TestServeSurvivesFDExhaustion(t *testing.T) {
	t.Parallel()
	cmd := exec.Command("sh", "-c", `ulimit -n 64 && exec "$0" serve --port 0 --echo`, bin)
	s := startServeCmd(t, cmd)
	addr := strings.TrimPrefix(s.url, "http://")
	var conns []net.Conn
	for range 100 {
		c, err := net.DialTimeout("tcp", addr, 10*time.Second)
		if err != nil {
			t.Fatalf("connection %d: %v", len(conns), err)
		}
		conns = append(conns, c)
	}
	// Each connection sends a request: the ones serve accepted answer, the rest wait in the backlog.
	for _, c := range conns {
		fmt.Fprintf(c, "GET /.well-known/agent-card.json HTTP/1.1\r\nHost: %s\r\n\r\n", addr)
	}
	eventually(t, 20*time.Second, "serve runs out of descriptors", func() bool {
		return strings.Contains(s.Log(), "too many open files")
	})
	if s.cmd.ProcessState != nil || !alive(s.cmd.Process.Pid) {
		t.Fatalf("serve exited:\n%s", s.Log())
	}
	for _, c := range conns {
		c.Close()
	}
	r := run(t, "", "send", s.url, "still here")
	wantCode(t, r, 0)
	wantContains(t, "send after the storm", r.stdout, "still here")
	// And each of the 100 can be served in turn.
	for i := range 100 {
		c, err := net.DialTimeout("tcp", addr, 10*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(c, "GET /.well-known/agent-card.json HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n", addr)
		c.SetDeadline(time.Now().Add(20 * time.Second))
		line, err := bufio.NewReader(c).ReadString('\n')
		c.Close()
		if err != nil || !strings.HasPrefix(line, "HTTP/1.1 200") {
			t.Fatalf("request %d after the storm: %q %v", i, line, err)
		}
	}
}

// TestServeLogSanitised: client-chosen strings in serve's log (task ids from the path, ids in bodies, error
// messages) never carry escape sequences to the operator's terminal.
func TestServeLogSanitised(t *testing.T) {
	t.Parallel()
	for _, verbose := range []bool{false, true} {
		args := []string{"--echo", "--transport", "rest,jsonrpc"}
		if verbose {
			args = append(args, "-v")
		}
		s := startServe(t, args...)
		r := rawCall(t, "GET", s.url+"/tasks/x%1b%5d0;pwned%07", nil, "")
		if r.status != 404 {
			t.Fatalf("GET of an unknown task: %d %s", r.status, r.body)
		}
		rawCall(t, "POST", s.url+"/jsonrpc", map[string]string{"Content-Type": "application/json"},
			`{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"id":"y\u001b]52;c;cHduZWQ=\u0007\u009b31m"}}`)
		eventually(t, 10*time.Second, "both calls logged", func() bool {
			return strings.Contains(s.Log(), "GetTask task=x") && strings.Contains(s.Log(), "GetTask task=y")
		})
		log := s.Log()
		if strings.ContainsAny(log, "\x1b\x07\u009b") {
			t.Fatalf("serve's log (verbose %v) carries control characters: %q", verbose, log)
		}
		wantContains(t, "log", log, "GetTask task=x ", "GetTask task=y")
	}
	// The same through the proxy's log.
	up := startServe(t, "--echo", "--quiet")
	p := startServe(t, "--proxy", up.url, "-v")
	rawCall(t, "GET", p.url+"/tasks/x%1b%5d0;pwned%07", nil, "")
	eventually(t, 10*time.Second, "a proxy log line", func() bool { return strings.Contains(p.Log(), "GetTask") })
	if strings.ContainsAny(p.Log(), "\x1b\x07") {
		t.Fatalf("the proxy's log carries control characters: %q", p.Log())
	}
}

// TestServeKeepsSecretsOutOfLogs: neither the caller's Authorization nor the proxy's --auth reach a log or a
// recording.
func TestServeKeepsSecretsOutOfLogs(t *testing.T) {
	t.Parallel()
	up := startServe(t, "--echo", "--quiet")
	rec := t.TempDir() + "/rec.jsonl"
	p := startServe(t, "-v", "--proxy", up.url, "--auth", "Bearer OPERATOR-SECRET", "--record", rec)
	r := run(t, "", "send", p.url, "hi", "--auth", "Bearer CALLER-SECRET")
	wantCode(t, r, 0)
	r = run(t, "", "send", p.url, "hi", "--stream", "--auth", "Bearer CALLER-SECRET")
	wantCode(t, r, 0)
	p.stop(t)
	b, err := os.ReadFile(rec)
	if err != nil {
		t.Fatal(err)
	}
	for what, text := range map[string]string{"proxy log": p.Log(), "recording": string(b)} {
		if strings.Contains(text, "SECRET") {
			t.Fatalf("the %s holds a credential:\n%s", what, text)
		}
	}
}

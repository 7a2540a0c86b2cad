package serve

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

func TestGuardHostsAndOrigins(t *testing.T) {
	t.Parallel()
	g := newGuard(&Config{AllowHosts: []string{"box.lan"}, AllowOrigins: []string{"http://page.test:8000/"},
		PublicURL: "https://agent.example/a2a"}, nil, true)
	hosts := map[string]bool{
		"": true, "localhost": true, "localhost:80": true, "LocalHost.:1": true, "a.localhost:9": true, "127.0.0.1:5": true,
		"127.9.9.9": true, "[::1]:7": true, "::1": true, "box.lan:1": true, "agent.example": true, "agent.example:443": true,
		"evil.example": false, "localhost.evil.example": false, "127.0.0.1.nip.io": false, "0.0.0.0:80": false,
		"[::]:80": false, "10.0.0.1": false, "box.lan.evil": false,
	}
	for h, want := range hosts {
		if got := g.hostAllowed(h); got != want {
			t.Errorf("hostAllowed(%q) = %v, want %v", h, got, want)
		}
	}
	origins := []struct {
		origin, host string
		ok, cors     bool
	}{
		{"http://127.0.0.1:8080", "127.0.0.1:8080", true, false},
		{"http://LOCALHOST:8080", "localhost:8080", true, false},
		{"http://127.0.0.1:8081", "127.0.0.1:8080", false, true},
		{"https://127.0.0.1:8080", "127.0.0.1:8080", false, true},
		{"http://page.test:8000", "127.0.0.1:8080", true, true},
		{"https://agent.example", "127.0.0.1:8080", true, true},
		{"null", "127.0.0.1:8080", false, true},
	}
	for _, o := range origins {
		ok, cors := g.originAllowed(o.origin, o.host)
		if ok != o.ok || (ok && cors != o.cors) {
			t.Errorf("originAllowed(%q, %q) = %v, %v, want %v, %v", o.origin, o.host, ok, cors, o.ok, o.cors)
		}
	}
	if star := newGuard(&Config{AllowOrigins: []string{"*"}}, nil, true); !ok(star.originAllowed("http://x.test", "h")) || ok(star.originAllowed("null", "h")) {
		t.Error("--allow-origin '*' should allow every origin but null")
	}
	if open := newGuard(&Config{}, nil, false); !open.hostAllowed("evil.example") {
		t.Error("a listener beyond loopback checks Host: it cannot know its names")
	}
}

func ok(b, _ bool) bool { return b }

func TestGuardToken(t *testing.T) {
	t.Parallel()
	g := newGuard(&Config{Token: "t0k"}, nil, true)
	for authz, want := range map[string]bool{"Bearer t0k": true, "bearer t0k": true, " Bearer  t0k ": true,
		"Bearer t0": false, "Bearer t0kk": false, "Basic t0k": false, "t0k": false, "": false, "Bearer": false} {
		if got := g.tokenOK(authz); got != want {
			t.Errorf("tokenOK(%q) = %v, want %v", authz, got, want)
		}
	}
}

// TestGuardSlowBody: a client that sends headers and then trickles (or stops sending) its body is answered 408 and
// let go after the read timeout, instead of holding a connection and a goroutine for ever.
func TestGuardSlowBody(t *testing.T) {
	t.Parallel()
	srv := startServer(t, Config{Quiet: true, readTimeout: 300 * time.Millisecond})
	c, err := net.Dial("tcp", strings.TrimPrefix(srv.url, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	fmt.Fprintf(c, "POST /message:send HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"mess")
	_ = c.SetReadDeadline(time.Now().Add(20 * time.Second))
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatalf("no answer to a stalled body: %v", err)
	}
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusRequestTimeout || !strings.Contains(string(body), "did not arrive within 300ms") {
		t.Fatalf("stalled body: %d %s", resp.StatusCode, body)
	}
}

// TestGuardIdleConnection: an idle keep-alive connection is closed after the idle timeout.
func TestGuardIdleConnection(t *testing.T) {
	t.Parallel()
	srv := startServer(t, Config{Quiet: true, idleTimeout: 300 * time.Millisecond})
	c, err := net.Dial("tcp", strings.TrimPrefix(srv.url, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	fmt.Fprintf(c, "GET /tasks HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
	br := bufio.NewReader(c)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	_ = c.SetReadDeadline(time.Now().Add(20 * time.Second))
	if _, err := br.ReadByte(); err != io.EOF {
		t.Fatalf("idle connection: read %v, want EOF (closed by the server)", err)
	}
}

// TestGuardQuietStreamSurvives: the write timeout bounds each write, not a stream: one that stays quiet for much
// longer than it still delivers its events, on every binding (the detached fast path included).
func TestGuardQuietStreamSurvives(t *testing.T) {
	t.Parallel()
	srv := startServer(t, Config{Backend: Exec(ExecConfig{Command: "echo one; sleep 1; echo two", Chunk: []byte("\n")}),
		Quiet: true, Transports: allTransports, writeTimeout: 100 * time.Millisecond, readTimeout: 100 * time.Millisecond})
	for _, tr := range allTransports {
		c := newClient(t, srv.url, tr)
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		evs, err := collect(t, c.SendStreamingMessage(ctx, textMessage("x")))
		cancel()
		texts, _, state := chunks(evs)
		if err != nil || state != a2a.TaskStateCompleted || strings.Join(texts, "") != "one\ntwo\n" {
			t.Errorf("%s: quiet stream: %q %s %v", tr, texts, state, err)
		}
	}
}

// TestGuardStalledReaderLetGo: a client that stops reading a stream is let go after the write timeout, on the
// detached fast path and on net/http's, so the task's backpressure does not hold its command for ever: the command
// runs to its end and the task completes although the client never read a byte.
func TestGuardStalledReaderLetGo(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		tr         a2a.TransportProtocol
		path, body string
	}{
		{a2a.TransportProtocolHTTPJSON, "/message:stream", `{"message":{"messageId":"m","role":"ROLE_USER","parts":[{"text":"x"}]}}`},
		{a2a.TransportProtocolJSONRPC, "/jsonrpc", `{"jsonrpc":"2.0","id":1,"method":"SendStreamingMessage","params":{"message":{"messageId":"m","role":"ROLE_USER","parts":[{"text":"x"}]}}}`},
	} {
		srv := startServer(t, Config{Backend: Exec(ExecConfig{Command: "head -c 30000000 /dev/zero | tr '\\0' x | fold -w 1000",
			Chunk: []byte("\n")}), Quiet: true, Transports: []a2a.TransportProtocol{c.tr}, writeTimeout: 100 * time.Millisecond})
		conn, err := net.Dial("tcp", strings.TrimPrefix(srv.url, "http://"))
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		_ = conn.(*net.TCPConn).SetReadBuffer(4096) // best effort: a smaller window fills sooner
		fmt.Fprintf(conn, "POST %s HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s",
			c.path, len(c.body), c.body)
		// Never read: the task can only finish if serve stops writing to this client.
		cl := newClient(t, srv.url, c.tr)
		done := eventually(60*time.Second, func() bool {
			res, err := cl.ListTasks(context.Background(), &a2a.ListTasksRequest{})
			return err == nil && len(res.Tasks) == 1 && res.Tasks[0].Status.State == a2a.TaskStateCompleted
		})
		if !done {
			t.Errorf("%s: the task did not complete while its only client stalled", c.tr)
		}
	}
}

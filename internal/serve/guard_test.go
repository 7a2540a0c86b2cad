package serve

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
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
	c, err := net.Dial("tcp", strings.TrimPrefix(srv.URL, "http://"))
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
	c, err := net.Dial("tcp", strings.TrimPrefix(srv.URL, "http://"))
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

// TestPublished: a --public-url or --allow-host that names another host publishes a loopback serve to other
// machines (its pusher then guards loopback webhooks); loopback names and addresses do not.
func TestPublished(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		public string
		hosts  []string
		want   bool
	}{
		{"", nil, false},
		{"http://127.0.0.1:8080", nil, false},
		{"http://localhost:8080/a2a", []string{"localhost", "app.localhost", "::1", "[::1]", "127.0.0.2"}, false},
		{"https://agent.example.com", nil, true},
		{"http://10.0.0.5:8080", nil, true},
		{"", []string{"localhost", "devbox.lan"}, true},
		{"http://127.0.0.1:8080", []string{"0.0.0.0"}, true},
	} {
		if got := published(&Config{PublicURL: tt.public, AllowHosts: tt.hosts}); got != tt.want {
			t.Errorf("published(--public-url %q, --allow-host %q) = %v, want %v", tt.public, tt.hosts, got, tt.want)
		}
	}
}

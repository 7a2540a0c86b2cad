package client

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"testing/iotest"
)

func TestOrigins(t *testing.T) {
	t.Parallel()
	refs := []struct{ in, want string }{
		{"http://h:1", "http://h:1"},
		{"h:1", "http://h:1"},
		{"HTTP://Agent.Example", "http://agent.example:80"},
		{"https://a.example/agents/x", "https://a.example:443"},
		{"grpc://h:5", "http://h:5"},
		{"grpcs://h", "https://h:443"},
		{"http://[::1]:8/.well-known/agent-card.json", "http://[::1]:8"},
	}
	for _, tt := range refs {
		ref, err := ParseRef(tt.in)
		if err != nil {
			t.Fatalf("parseRef(%q): %v", tt.in, err)
		}
		if got := refOrigin(ref); got != tt.want {
			t.Errorf("refOrigin(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	ifaces := []struct{ in, want string }{
		{"http://127.0.0.1:9/rpc", "http://127.0.0.1:9"},
		{"http://localhost:9/rpc", "http://localhost:9"}, // 127.0.0.1's alias only when credentials are decided
		{"127.0.0.1:50051", "http://127.0.0.1:50051"},
		{"localhost:50051", "http://localhost:50051"},
		{"https://h/a2a", "https://h:443"},
		{"grpcs://h:7", "https://h:7"},
	}
	for _, tt := range ifaces {
		if got := ifaceOrigin(tt.in); got != tt.want {
			t.Errorf("ifaceOrigin(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestLoopbackAliases: localhost, 127.0.0.1 and [::1] with one scheme and port are one origin for credentials;
// another port, scheme or host is not.
func TestLoopbackAliases(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		named, to string
		want      bool
	}{
		{"http://127.0.0.1:8080", "http://localhost:8080", true},
		{"http://localhost:8080", "http://127.0.0.1:8080", true},
		{"http://[::1]:8080", "http://localhost:8080", true},
		{"https://localhost:443", "https://127.0.0.1:443", true},
		{"http://localhost:8080", "http://127.0.0.1:8081", false},
		{"http://localhost:8080", "https://127.0.0.1:8080", false},
		{"http://localhost:8080", "http://127.0.0.2:8080", false},
		{"http://localhost:8080", "http://agent.example:8080", false},
		{"http://agent.example:8080", "http://localhost:8080", false},
		{"http://localhost.example:8080", "http://localhost:8080", false},
	} {
		g := &credGuard{}
		g.name(tt.named)
		if got := g.allows(tt.to); got != tt.want {
			t.Errorf("named %s: allows(%s) = %v, want %v", tt.named, tt.to, got, tt.want)
		}
	}
}

// TestGuardStrip checks that only credential headers leave, only off the named origin, and that the caller's
// request is left alone (a RoundTripper must not change it).
func TestGuardStrip(t *testing.T) {
	t.Parallel()
	var warn bytes.Buffer
	g := &credGuard{w: &warn}
	g.name("http://127.0.0.1:1")
	req, _ := http.NewRequest(http.MethodPost, "http://127.0.0.1:2/rpc", nil)
	req.Header.Set("Authorization", "Bearer x")
	req.Header.Set("X-Api-Key", "k")
	req.Header.Set("X-Trace", "t")
	for range 2 {
		out := g.strip(req)
		if out == req || out.Header.Get("Authorization") != "" || out.Header.Get("X-Api-Key") != "" || out.Header.Get("X-Trace") != "t" {
			t.Fatalf("strip to another origin: headers %v", out.Header)
		}
	}
	if req.Header.Get("Authorization") != "Bearer x" {
		t.Fatal("strip changed the caller's request")
	}
	if n := strings.Count(warn.String(), "warning: "); n != 1 {
		t.Fatalf("%d warnings for one origin, want 1:\n%s", n, warn.String())
	}
	same, _ := http.NewRequest(http.MethodGet, "http://127.0.0.1:1/x", nil)
	same.Header.Set("Authorization", "Bearer x")
	if g.strip(same) != same {
		t.Fatal("strip touched a request to the named origin")
	}
	unnamed := &credGuard{w: io.Discard}
	if out := unnamed.strip(same); out.Header.Get("Authorization") != "" {
		t.Fatal("a guard that knows no origin yet let credentials go")
	}
	all := &credGuard{all: true, w: io.Discard}
	if all.strip(req) != req {
		t.Fatal("--auth-all-origins still stripped")
	}
}

func TestCappedBody(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		size, limit int64
		tooLarge    bool
	}{
		{10, 10, false}, {11, 10, true}, {0, 10, false}, {1000, 10, true},
	} {
		body := &cappedBody{ReadCloser: io.NopCloser(iotest.OneByteReader(strings.NewReader(strings.Repeat("a", int(tt.size))))), left: tt.limit, limit: tt.limit}
		got, err := io.ReadAll(body)
		var tl *ResponseTooLargeError
		if errors.As(err, &tl) != tt.tooLarge || int64(len(got)) > tt.limit {
			t.Errorf("read %d bytes capped at %d: got %d bytes, err %v", tt.size, tt.limit, len(got), err)
		}
	}
	if got := (&ResponseTooLargeError{limit: 32 << 20}).Error(); got != "the reply is larger than --max-response-bytes (32 MiB)" {
		t.Errorf("error text %q", got)
	}
}

package tasks

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

func TestPushAllowList(t *testing.T) {
	t.Parallel()
	a := newPushAllow([]string{"Hooks.Example.com", "[2001:db8::1]"}, false)
	for _, tc := range []struct {
		url string
		ok  bool
	}{
		{"http://127.0.0.1:1/x", true},
		{"http://127.9.9.9/x", true},
		{"http://[::1]:8/x", true},
		{"http://LOCALHOST/x", true},
		{"https://hooks.example.com/x", true},
		{"http://[2001:db8::1]/x", true},
		{"https://example.com/x", false},
		{"http://10.0.0.1/x", false},
		{"http://localhost.evil.com/x", false},
		{"ftp://127.0.0.1/x", false},
		{"/relative", false},
	} {
		if err := a.check(tc.url); (err == nil) != tc.ok {
			t.Errorf("check(%q) = %v, want allowed=%v", tc.url, err, tc.ok)
		}
	}
	if err := newPushAllow([]string{"*"}, false).check("https://anything.example/x"); err != nil {
		t.Errorf("check with * = %v", err)
	}
	// The dial refuses a host outside the list without connecting.
	if _, err := a.dial(context.Background(), "tcp", "10.255.255.1:80"); err == nil || !strings.Contains(err.Error(), "not allowed") {
		t.Errorf("dial(10.255.255.1) = %v, want not allowed", err)
	}
}

// TestPushQueueBounded: a webhook that never answers gets at most pushQueueLen waiting
// notifications; the rest are dropped and counted, and deliver never blocks.
func TestPushQueueBounded(t *testing.T) {
	t.Parallel()
	hang := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body) // read first: net/http notices a closed connection only after the body
		<-r.Context().Done()
	}))
	defer hang.Close()
	p := NewPusher(nil, nil)
	cfg := []pushHook{{cfg: &a2a.PushConfig{TaskID: "t", ID: "c", URL: hang.URL}}}
	ev := a2a.NewStatusUpdateEvent(a2a.TaskInfo{TaskID: "t", ContextID: "c"}, a2a.TaskStateWorking, nil)
	start := time.Now()
	const n = pushQueueLen + 50
	for range n {
		p.deliver(cfg, ev, nil)
	}
	if took := time.Since(start); took > 2*time.Second {
		t.Errorf("deliver of %d events took %v", n, took)
	}
	// The first one is in flight; pushQueueLen wait; the rest are dropped.
	if d := p.dropped.Load(); d < n-pushQueueLen-1 || d > n-pushQueueLen {
		t.Errorf("dropped = %d, want about %d", d, n-pushQueueLen)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancel()
	p.close(ctx)
}

// Off loopback, webhooks to this machine need a loopback host named: '*' does not reach them, neither by URL nor
// by the address a name resolves to (the dialer's control sees the address really dialled).
func TestPushAllowOffLoopback(t *testing.T) {
	t.Parallel()
	off := newPushAllow([]string{"*"}, true)
	for _, u := range []string{"http://127.0.0.1:1/admin", "http://localhost:1/", "http://0.0.0.0:1/", "http://[::1]:1/"} {
		if err := off.check(u); err == nil || !strings.Contains(err.Error(), "--push-allow") {
			t.Errorf("off loopback, check(%s) = %v, want a refusal naming --push-allow", u, err)
		}
	}
	for _, addr := range []string{"127.0.0.1:80", "[::1]:80", "0.0.0.0:80"} {
		if err := off.control("tcp", addr, nil); err == nil {
			t.Errorf("off loopback, dialling %s was allowed", addr)
		}
	}
	if err := off.check("https://hooks.example/x"); err != nil {
		t.Errorf("off loopback, '*' refused a public host: %v", err)
	}
	named := newPushAllow([]string{"localhost"}, true)
	if err := named.check("http://127.0.0.1:1/"); err != nil || named.control("tcp", "127.0.0.1:80", nil) != nil {
		t.Errorf("off loopback with localhost named: check %v", err)
	}
	on := newPushAllow(nil, false)
	if err := on.check("http://127.0.0.1:1/"); err != nil || on.control("tcp", "127.0.0.1:80", nil) != nil {
		t.Errorf("on loopback: check %v", err)
	}
}

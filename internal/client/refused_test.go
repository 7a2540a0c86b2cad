package client

import (
	"context"
	"errors"
	"net"
	"net/http"
	"syscall"
	"testing"
	"time"
)

// TestRefusedRetryStopsAtTheCallsDeadline: the retry of a refused loopback connection (up to refusedRetry) ends
// before the call's own deadline, although http.Transport dials with a context that has lost it, so the call fails
// as refused (unreachable, exit 3), not as a timeout (exit 5).
func TestRefusedRetryStopsAtTheCallsDeadline(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // nothing listens there now: every connection is refused

	d := NewDialer(&Options{}, &Log{}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+addr+"/", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := d.httpClient().Do(req)
	if err == nil {
		resp.Body.Close()
		t.Fatalf("GET %s: got %s, want connection refused", addr, resp.Status)
	}
	if !errors.Is(err, syscall.ECONNREFUSED) {
		t.Errorf("GET %s: %v, want connection refused before the 300ms deadline", addr, err)
	}
}

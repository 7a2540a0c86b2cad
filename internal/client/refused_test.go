package client

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestRefusedRetryStopsAtTheCallsDeadline: the retry of a refused loopback connection (up to refusedRetry) ends
// before the call's own deadline, although http.Transport dials with a context that has lost it, so the call fails
// as refused (unreachable, exit 3), not as a timeout (exit 5). The deadline is derived from how late timers fire on
// this machine now (at least 300 ms, at most 2 s: well inside refusedRetry, so a retry that ignored the deadline
// would still run past it and fail the test).
func TestRefusedRetryStopsAtTheCallsDeadline(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // nothing listens there now: every connection is refused

	// A stall of the whole machine (2 loaded cores) longer than the margin the retry keeps before the deadline
	// turns one run into a timeout; it does not come back three times in a row, a retry that ignores the deadline
	// does.
	var failures []string
	for range 3 {
		msg := refusedOnce(t, addr)
		if msg == "" {
			return
		}
		failures = append(failures, msg)
	}
	t.Fatalf("three runs in a row:\n%s", strings.Join(failures, "\n"))
}

// refusedOnce runs one GET of addr, where nothing listens, under a deadline, and says what was wrong ("": nothing).
func refusedOnce(t *testing.T, addr string) string {
	t.Helper()
	late := timerLateness(20)
	bound := min(max(300*time.Millisecond, 8*late), 2*time.Second)
	d := NewDialer(&Options{}, &Log{}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), bound)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+addr+"/", nil)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	resp, err := d.httpClient().Do(req)
	took := time.Since(start)
	if err == nil {
		resp.Body.Close()
		t.Fatalf("GET %s: got %s, want connection refused", addr, resp.Status)
	}
	if !errors.Is(err, syscall.ECONNREFUSED) {
		return fmt.Sprintf("GET %s: %v after %s, want connection refused before the %s deadline (timers here late by up to %s)",
			addr, err, took, bound, late)
	}
	if took < bound/2 {
		return fmt.Sprintf("gave up after %s, want the retry to go on until shortly before the %s deadline", took, bound)
	}
	return ""
}

// timerLateness is the most the last n short timers fired after their time.
func timerLateness(n int) time.Duration {
	var late time.Duration
	for range n {
		start := time.Now()
		<-time.After(time.Millisecond)
		late = max(late, time.Since(start)-time.Millisecond)
	}
	return late
}

package client

import (
	"context"
	"net"
	"sync"
	"time"
)

// ConnTracker counts the TCP connections the process's one HTTP transport holds open, so that a command can wait
// until the server has closed them.
//
// Why: the Gemini CLI A2A server aborts a turn (cancelling the tools that wait for permission) when the TCP
// connection of the request that started the turn closes. A one-shot `send` that stops at a permission prompt must
// therefore not close its idle keep-alive connection by exiting; it waits until the server closes it (Node's
// keep-alive timeout, about 5 s), and only then exits. http.Transport offers no hook for "the peer closed an idle
// connection", but its background read loop notices the peer's FIN at once and closes the connection: wrapping the
// dialled net.Conn and counting Close calls tells us exactly when every connection is gone.
type ConnTracker struct {
	mu      sync.Mutex
	open    int
	changed chan struct{} // closed and replaced on every change of open
}

func newConnTracker() *ConnTracker {
	return &ConnTracker{changed: make(chan struct{})}
}

// wrapDial returns a DialContext that tracks the connections dial makes.
func (t *ConnTracker) wrapDial(dial func(ctx context.Context, network, addr string) (net.Conn, error)) func(ctx context.Context, network, addr string) (net.Conn, error) {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := dial(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		t.add(1)
		return &trackedConn{Conn: c, t: t}, nil
	}
}

func (t *ConnTracker) add(n int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.open += n
	close(t.changed)
	t.changed = make(chan struct{})
}

// Open returns how many tracked connections are open now.
func (t *ConnTracker) Open() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.open
}

// WaitClosed waits until no tracked connection is open, at most bound. It reports whether they all closed.
func (t *ConnTracker) WaitClosed(ctx context.Context, bound time.Duration) bool {
	timer := time.NewTimer(bound)
	defer timer.Stop()
	for {
		t.mu.Lock()
		open, changed := t.open, t.changed
		t.mu.Unlock()
		if open == 0 {
			return true
		}
		select {
		case <-changed:
		case <-timer.C:
			return false
		case <-ctx.Done():
			return false
		}
	}
}

// trackedConn reports its Close once to the tracker.
type trackedConn struct {
	net.Conn
	t    *ConnTracker
	once sync.Once
}

func (c *trackedConn) Close() error {
	c.once.Do(func() { c.t.add(-1) })
	return c.Conn.Close()
}

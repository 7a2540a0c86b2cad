package replay

import (
	"context"
	"net"
	"net/http"
	"sync"
	"time"
)

// The connection rule of the Gemini CLI A2A server: when the TCP connection of the streaming
// request that started a turn is closed by the client, the tools that wait for permission are
// cancelled, and a later answer finds them aborted. A connection the server closes itself (after
// its idle timeout) does no harm.
//
// net/http does not say who closed a connection, so the replay agent infers it from the
// connection's states: the server closes a connection only after it was idle for the idle
// timeout (or at shutdown, when it no longer matters). A connection that closes while active, or
// idle for clearly less than the timeout, was closed by the client.

// connTable tracks the connections of the HTTP server.
type connTable struct {
	mu    sync.Mutex
	conns map[net.Conn]*connInfo
}

// connInfo is one connection: its state and what runs when the client closes it.
type connInfo struct {
	mu         sync.Mutex
	idleSince  time.Time
	idle       bool
	closed     bool
	onCloseFns []func(byClient bool)
}

// connKey carries the connection a call came in on down to the replay handler (the connection
// rule): request input only, never a result back up.
type connKey struct{}

// context is the http.Server's ConnContext: it makes the connection known to the handlers.
func (t *connTable) context(ctx context.Context, c net.Conn) context.Context {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.conns == nil {
		t.conns = map[net.Conn]*connInfo{}
	}
	ci := &connInfo{}
	t.conns[c] = ci
	return context.WithValue(ctx, connKey{}, ci)
}

// connFrom returns the connection a request arrived on, or nil.
func connFrom(ctx context.Context) *connInfo {
	ci, _ := ctx.Value(connKey{}).(*connInfo)
	return ci
}

// idleSlack tolerates timer jitter when telling an idle timeout from a client's close.
const idleSlack = 10

// hook is the http.Server's ConnState: it follows idleness and, on close, runs the callbacks when
// the close was the client's.
func (t *connTable) hook(idleTimeout time.Duration) func(net.Conn, http.ConnState) {
	return func(c net.Conn, st http.ConnState) {
		t.mu.Lock()
		ci := t.conns[c]
		if st == http.StateClosed || st == http.StateHijacked {
			delete(t.conns, c)
		}
		t.mu.Unlock()
		if ci == nil {
			return
		}
		ci.mu.Lock()
		switch st {
		case http.StateIdle:
			ci.idle, ci.idleSince = true, time.Now()
		case http.StateActive:
			ci.idle = false
		}
		if st != http.StateClosed {
			ci.mu.Unlock()
			return
		}
		byServer := ci.idle && time.Since(ci.idleSince) >= idleTimeout-idleTimeout/idleSlack
		ci.closed = true
		fns := ci.onCloseFns
		ci.onCloseFns = nil
		ci.mu.Unlock()
		for _, f := range fns {
			f(!byServer)
		}
	}
}

// onClose registers f to run when the connection closes, telling whether the client closed it;
// at once (as the client's) when it is already closed.
func (ci *connInfo) onClose(f func(byClient bool)) {
	ci.mu.Lock()
	if !ci.closed {
		ci.onCloseFns = append(ci.onCloseFns, f)
		ci.mu.Unlock()
		return
	}
	ci.mu.Unlock()
	f(true)
}

package proxy

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"sync"
	"time"
)

// leanTransport is the proxy's HTTP/1.1 client for plain-http upstreams. net/http's Transport
// hands every request to a per-connection writer goroutine and every answer back from a reader
// goroutine: two goroutine switches per call, a large share of what a proxied call costs on top
// of a direct one. Here the calling goroutine writes the request and reads the answer on a pooled
// keep-alive connection itself. Anything else (https, or a call the environment sends through an
// HTTP proxy) goes to next.
type leanTransport struct {
	next    http.RoundTripper
	proxy   func(*http.Request) (*url.URL, error) // next's proxy choice, when next has one
	maxIdle int                                   // idle connections kept per upstream address
	dialer  net.Dialer

	mu     sync.Mutex
	idle   map[string][]*leanConn
	closed bool
}

// leanConn is one upstream connection with its buffers.
type leanConn struct {
	c  net.Conn
	br *bufio.Reader
	bw *bufio.Writer
}

func newLeanTransport(next http.RoundTripper, maxIdle int) *leanTransport {
	t := &leanTransport{next: next, maxIdle: maxIdle, idle: map[string][]*leanConn{},
		dialer: net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}}
	if tr, ok := next.(*http.Transport); ok {
		t.proxy = tr.Proxy
	}
	return t
}

// RoundTrip implements http.RoundTripper.
func (t *leanTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.URL.Scheme != "http" || req.URL.Host == "" || t.viaProxy(req) {
		return t.next.RoundTrip(req)
	}
	addr := req.URL.Host
	if req.URL.Port() == "" {
		addr = net.JoinHostPort(req.URL.Hostname(), "80")
	}
	for attempt := 0; ; attempt++ {
		lc, reused, err := t.conn(req.Context(), addr)
		if err != nil {
			return nil, err
		}
		resp, err := t.exchange(lc, req, addr)
		if err == nil {
			return resp, nil
		}
		lc.c.Close()
		// A kept connection the upstream closed while it was idle fails before any answer: try once
		// more on a new one, with the body again.
		if !reused || attempt > 0 || !errors.Is(err, errStaleConn) || req.Context().Err() != nil {
			return nil, err
		}
		if req.Body != nil && req.Body != http.NoBody {
			if req.GetBody == nil {
				return nil, err
			}
			body, gerr := req.GetBody()
			if gerr != nil {
				return nil, err
			}
			req = req.Clone(req.Context())
			req.Body = body
		}
	}
}

// viaProxy says whether next would send req through an HTTP proxy (HTTP_PROXY and friends).
func (t *leanTransport) viaProxy(req *http.Request) bool {
	if t.proxy == nil {
		return false
	}
	u, err := t.proxy(req)
	return err != nil || u != nil // an error is next's to report
}

// errStaleConn marks a kept connection that answered nothing at all.
var errStaleConn = errors.New("upstream closed the idle connection")

// exchange writes req on lc and reads the answer's head; the body is read from lc by the caller,
// which gets the connection back in the pool by reading the body to its end.
func (t *leanTransport) exchange(lc *leanConn, req *http.Request, addr string) (*http.Response, error) {
	ctx := req.Context()
	stop := context.AfterFunc(ctx, func() { _ = lc.c.SetDeadline(time.Unix(1, 0)) }) // unblocks I/O; cannot fail on an open conn
	if err := req.Write(lc.bw); err != nil {
		stop()
		return nil, fmt.Errorf("write request: %w", err)
	}
	if err := lc.bw.Flush(); err != nil {
		stop()
		return nil, fmt.Errorf("write request: %w", err)
	}
	if _, err := lc.br.Peek(1); err != nil {
		stop()
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, fmt.Errorf("%w: %v", errStaleConn, err)
	}
	resp, err := http.ReadResponse(lc.br, req)
	if err != nil {
		stop()
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, fmt.Errorf("read response: %w", err)
	}
	reuse := !resp.Close && !req.Close && resp.StatusCode != http.StatusSwitchingProtocols
	resp.Body = &leanBody{rc: resp.Body, t: t, lc: lc, addr: addr, reuse: reuse, stop: stop, eof: resp.Body == http.NoBody}
	return resp, nil
}

// conn returns an idle connection to addr, or dials one.
func (t *leanTransport) conn(ctx context.Context, addr string) (*leanConn, bool, error) {
	t.mu.Lock()
	if list := t.idle[addr]; len(list) > 0 {
		lc := list[len(list)-1]
		t.idle[addr] = list[:len(list)-1]
		t.mu.Unlock()
		return lc, true, nil
	}
	t.mu.Unlock()
	c, err := t.dialer.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, false, err
	}
	return &leanConn{c: c, br: bufio.NewReader(c), bw: bufio.NewWriter(c)}, false, nil
}

// put keeps lc for the next call to addr, or closes it.
func (t *leanTransport) put(addr string, lc *leanConn) {
	t.mu.Lock()
	if !t.closed && len(t.idle[addr]) < t.maxIdle && lc.br.Buffered() == 0 {
		t.idle[addr] = append(t.idle[addr], lc)
		t.mu.Unlock()
		return
	}
	t.mu.Unlock()
	lc.c.Close()
}

// CloseIdleConnections closes the kept connections; later ones are closed when their call ends.
func (t *leanTransport) CloseIdleConnections() {
	t.mu.Lock()
	idle := t.idle
	t.idle, t.closed = map[string][]*leanConn{}, true
	t.mu.Unlock()
	for _, list := range idle {
		for _, lc := range list {
			lc.c.Close()
		}
	}
	if ci, ok := t.next.(interface{ CloseIdleConnections() }); ok {
		ci.CloseIdleConnections()
	}
}

// leanBody is an answer's body: read to its end, it gives the connection back; closed before, it
// closes the connection.
type leanBody struct {
	rc    io.ReadCloser
	t     *leanTransport
	lc    *leanConn
	addr  string
	reuse bool
	stop  func() bool
	once  sync.Once
	eof   bool
}

func (b *leanBody) Read(p []byte) (int, error) {
	n, err := b.rc.Read(p)
	if err == io.EOF {
		b.eof = true
		b.release()
	}
	return n, err
}

func (b *leanBody) Close() error {
	b.release()
	return nil
}

func (b *leanBody) release() {
	b.once.Do(func() {
		cancelled := !b.stop() // the deadline may have been set: the connection is spent
		if b.eof && b.reuse && !cancelled {
			b.t.put(b.addr, b.lc)
			return
		}
		b.lc.c.Close()
	})
}

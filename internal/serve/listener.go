package serve

import (
	"bytes"
	"crypto/tls"
	"errors"
	"net"
	"sync"
	"time"
)

// http2Preface starts every HTTP/2 connection (RFC 9113 §3.4). Plaintext gRPC clients send it
// first; HTTP/1.1 clients never do.
const http2Preface = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"

// sniffTimeout bounds how long an accepted connection may stay silent before it is classified.
const sniffTimeout = 10 * time.Second

// splitter accepts connections on one listener and routes them, by their first bytes, to a gRPC
// listener (HTTP/2 preface) or an HTTP/1 listener (everything else).
type splitter struct {
	ln         net.Listener
	grpc, http *connQueue
	onError    func(error) // told of the first accept error after a success; nil => not told
	tls        *tls.Config // TLS on every connection (tlsconf.go); nil => plain
	// tlsRefused is told of a failed TLS handshake: the client's address and why; nil => not told.
	tlsRefused func(client, reason string)
}

// newSplitter routes HTTP/2-preface connections to the grpc queue when withGRPC, else all
// connections go to the HTTP server.
func newSplitter(ln net.Listener, withGRPC bool) *splitter {
	s := &splitter{ln: ln, http: newConnQueue(ln.Addr())}
	if withGRPC {
		s.grpc = newConnQueue(ln.Addr())
	}
	return s
}

// serve accepts until the listener is closed. Classification happens on a goroutine per
// connection so that a silent client cannot stall the accept loop.
func (s *splitter) serve() {
	defer func() {
		s.http.Close()
		if s.grpc != nil {
			s.grpc.Close()
		}
	}()
	var backoff time.Duration
	for {
		c, err := s.ln.Accept()
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return
			}
			// Out of file descriptors (EMFILE, ENFILE), buffers, or a connection reset before it was accepted: as
			// net/http does, wait a little longer each time (up to a second) and accept again; the connection
			// waits in the kernel's backlog meanwhile.
			backoff = min(max(2*backoff, 5*time.Millisecond), time.Second)
			if s.onError != nil && backoff == 5*time.Millisecond {
				s.onError(err)
			}
			time.Sleep(backoff)
			continue
		}
		backoff = 0
		go s.route(c)
	}
}

func (s *splitter) route(c net.Conn) {
	if s.tls != nil {
		tc, h2, ok := handshake(c, s.tls, s.tlsRefused)
		if !ok {
			return
		}
		q := s.http
		if h2 && s.grpc != nil {
			q = s.grpc
		}
		if !q.put(tc) {
			tc.Close()
		}
		return
	}
	if s.grpc == nil {
		if !s.http.put(c) {
			c.Close()
		}
		return
	}
	buf := make([]byte, 0, len(http2Preface))
	_ = c.SetReadDeadline(time.Now().Add(sniffTimeout)) // best effort: a failure only loses the bound
	isGRPC := false
	for len(buf) < len(http2Preface) {
		n, err := c.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if !bytes.HasPrefix([]byte(http2Preface), buf) {
			break
		}
		if err != nil {
			c.Close()
			return
		}
		isGRPC = len(buf) == len(http2Preface)
	}
	_ = c.SetReadDeadline(time.Time{}) // best effort, see above
	pc := &prefixConn{Conn: c, prefix: buf}
	q := s.http
	if isGRPC && s.grpc != nil {
		q = s.grpc
	}
	if !q.put(pc) {
		c.Close()
	}
}

// prefixConn replays the sniffed bytes before reading from the connection.
type prefixConn struct {
	net.Conn
	prefix []byte
}

func (c *prefixConn) Read(p []byte) (int, error) {
	if len(c.prefix) > 0 {
		n := copy(p, c.prefix)
		c.prefix = c.prefix[n:]
		return n, nil
	}
	return c.Conn.Read(p)
}

// connQueue is a net.Listener fed by the splitter.
type connQueue struct {
	addr   net.Addr
	ch     chan net.Conn
	done   chan struct{}
	closer sync.Once
}

func newConnQueue(addr net.Addr) *connQueue {
	return &connQueue{addr: addr, ch: make(chan net.Conn), done: make(chan struct{})}
}

func (q *connQueue) put(c net.Conn) bool {
	select {
	case q.ch <- c:
		return true
	case <-q.done:
		return false
	}
}

// Accept implements net.Listener.
func (q *connQueue) Accept() (net.Conn, error) {
	select {
	case c := <-q.ch:
		return c, nil
	case <-q.done:
		return nil, net.ErrClosed
	}
}

// Close implements net.Listener.
func (q *connQueue) Close() error {
	q.closer.Do(func() { close(q.done) })
	return nil
}

// Addr implements net.Listener.
func (q *connQueue) Addr() net.Addr { return q.addr }

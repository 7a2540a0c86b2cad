package hotpath

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

// Splitter accepts connections on one listener and routes them, by their first bytes, to a gRPC
// listener (HTTP/2 preface) or an HTTP/1 listener (everything else).
type Splitter struct {
	ln         net.Listener
	GRPC, HTTP *ConnQueue  // the queues the servers accept from; GRPC is nil without gRPC
	OnError    func(error) // told of the first accept error after a success; nil => not told
	TLS        *tls.Config // TLS on every connection (tls.go); nil => plain
	// TLSRefused is told of a failed TLS handshake: the client's address and why; nil => not told.
	TLSRefused func(client, reason string)
}

// NewSplitter routes HTTP/2-preface connections to the grpc queue when withGRPC, else all
// connections go to the HTTP server.
func NewSplitter(ln net.Listener, withGRPC bool) *Splitter {
	s := &Splitter{ln: ln, HTTP: newConnQueue(ln.Addr())}
	if withGRPC {
		s.GRPC = newConnQueue(ln.Addr())
	}
	return s
}

// Serve accepts until the listener is closed. Classification happens on a goroutine per
// connection so that a silent client cannot stall the accept loop.
func (s *Splitter) Serve() {
	defer func() {
		s.HTTP.Close()
		if s.GRPC != nil {
			s.GRPC.Close()
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
			if s.OnError != nil && backoff == 5*time.Millisecond {
				s.OnError(err)
			}
			time.Sleep(backoff)
			continue
		}
		backoff = 0
		go s.route(c)
	}
}

func (s *Splitter) route(c net.Conn) {
	if s.TLS != nil {
		tc, h2, ok := handshake(c, s.TLS, s.TLSRefused)
		if !ok {
			return
		}
		q := s.HTTP
		if h2 && s.GRPC != nil {
			q = s.GRPC
		}
		if !q.Put(tc) {
			tc.Close()
		}
		return
	}
	if s.GRPC == nil {
		if !s.HTTP.Put(c) {
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
	q := s.HTTP
	if isGRPC && s.GRPC != nil {
		q = s.GRPC
	}
	if !q.Put(pc) {
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

// ConnQueue is a net.Listener fed by the Splitter.
type ConnQueue struct {
	addr   net.Addr
	ch     chan net.Conn
	done   chan struct{}
	closer sync.Once
}

func newConnQueue(addr net.Addr) *ConnQueue {
	return &ConnQueue{addr: addr, ch: make(chan net.Conn), done: make(chan struct{})}
}

func (q *ConnQueue) Put(c net.Conn) bool {
	select {
	case q.ch <- c:
		return true
	case <-q.done:
		return false
	}
}

// Accept implements net.Listener.
func (q *ConnQueue) Accept() (net.Conn, error) {
	select {
	case c := <-q.ch:
		return c, nil
	case <-q.done:
		return nil, net.ErrClosed
	}
}

// Close implements net.Listener.
func (q *ConnQueue) Close() error {
	q.closer.Do(func() { close(q.done) })
	return nil
}

// Addr implements net.Listener.
func (q *ConnQueue) Addr() net.Addr { return q.addr }

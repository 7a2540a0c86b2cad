package hotpath

import (
	"bytes"
	"context"
	"crypto/tls"
	"iter"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/a2acli/a2a/internal/fdwatch"
)

// A stream may stay open for as long as its task runs: hours, for a thousand clients at once. Served by
// net/http, each one holds the connection's goroutine with the stack it grew parsing the request, a
// second goroutine watching for the client's close, 10 KiB of buffers and the request's state. A
// detacher takes the connection over once the call is decoded and runs the stream on a fresh
// goroutine that writes the response itself (HTTP/1.1, chunked), holding only what the stream needs;
// net/http lets go of everything else. When the stream ends cleanly the connection goes back to the
// HTTP server, as a new one, so clients keep their keep-alive connections.
type Detacher struct {
	Requeue   func(net.Conn) bool // hands a connection back to the HTTP server; false once it stopped
	writeIdle time.Duration       // a write the client does not take within this fails; 0 => no bound

	wg      sync.WaitGroup
	mu      sync.Mutex
	closing bool                    // wait has begun: no more streams are taken over
	live    map[net.Conn]liveStream // connections of running streams
	waiting map[net.Conn]struct{}   // handed back, before their next request
}

// liveStream is a running detached stream: the watch for its client's hangup, and what ends its call.
type liveStream struct {
	hangup *fdwatch.Handle
	cancel context.CancelFunc
}

// NewDetacher returns a detacher whose writes fail when the client takes none for writeIdle (0 => no bound).
// Set Requeue before the first stream, and install ConnState as the HTTP server's hook.
func NewDetacher(writeIdle time.Duration) *Detacher {
	return &Detacher{writeIdle: writeIdle, live: map[net.Conn]liveStream{}, waiting: map[net.Conn]struct{}{}}
}

// streamCall starts a streaming call in ctx and returns its events.
type streamCall func(ctx context.Context) iter.Seq2[a2a.Event, error]

// stream serves call on a connection of its own when it can take r's connection over, and reports
// whether it did; false leaves w and r untouched for the caller to serve as usual.
func (d *Detacher) stream(f *server, w http.ResponseWriter, r *http.Request, body []byte, call streamCall, enc encodeFunc) bool {
	if d == nil || r.ProtoMajor != 1 || r.ProtoMinor < 1 || r.Close { // chunked needs HTTP/1.1
		return false
	}
	// The stream counts from here: wait sets closing under mu before it waits, so no Add follows it.
	d.mu.Lock()
	if d.closing {
		d.mu.Unlock()
		return false // shutting down: net/http's own shutdown covers the call
	}
	d.wg.Add(1)
	d.mu.Unlock()
	conn, brw, err := http.NewResponseController(w).Hijack() // not under mu: it runs the ConnState hook
	if err != nil {
		d.wg.Done()
		return false
	}
	// Bytes the client sent after the request (a pipelined next one) are read before the connection.
	var pending []byte
	if n := brw.Reader.Buffered(); n > 0 {
		pending, _ = brw.Reader.Peek(n) // Peek of what is buffered cannot fail
		pending = append([]byte(nil), pending...)
	}
	// The call outlives the handler: its context keeps the request's values, not its cancellation,
	// which comes from the client's hangup instead.
	ctx, cancel := context.WithCancel(context.WithoutCancel(r.Context()))
	rw := &rawResponse{c: conn, h: w.Header(), writeIdle: d.writeIdle}
	hangup := watchHangup(conn, func() {
		rw.hungUp.Store(true)
		cancel()
	})
	d.mu.Lock()
	d.live[conn] = liveStream{hangup: hangup, cancel: cancel}
	d.mu.Unlock()
	var out http.ResponseWriter = rw
	if g := FlushGateFrom(ctx); g != nil {
		out = &gatedWriter{ResponseWriter: rw, g: g}
	}
	r2 := r.WithContext(ctx)
	r2.Body = http.NoBody // the original body reads from net/http's buffer, which is let go
	go func() {
		defer d.wg.Done()
		defer cancel()
		f.stream(out, r2, body, call(callContext(ctx, r.Header)), enc)
		d.finish(conn, rw, pending)
	}()
	return true
}

// finish ends the response and gives the connection back to the HTTP server, or closes it when the
// response could not be completed.
func (d *Detacher) finish(conn net.Conn, rw *rawResponse, pending []byte) {
	d.mu.Lock()
	ls := d.live[conn]
	delete(d.live, conn)
	d.mu.Unlock()
	ls.hangup.Stop() // before the descriptor is closed or serves another request
	if rw.end() != nil || !rw.reusable() {
		conn.Close()
		return
	}
	_ = conn.SetWriteDeadline(time.Time{}) // best effort: the next request's handler renews it when it writes
	if len(pending) > 0 {
		conn = &prefixConn{Conn: conn, prefix: pending}
	}
	d.mu.Lock()
	d.waiting[conn] = struct{}{}
	d.mu.Unlock()
	if d.Requeue == nil || !d.Requeue(conn) {
		d.forget(conn)
		conn.Close()
	}
}

// ConnState is the HTTP server's ConnState hook. net/http counts a connection that has not sent a
// request yet as new, not idle, and its Shutdown waits 5 seconds for new connections to turn active:
// a handed-back connection is followed until its next request starts (see closeWaiting).
func (d *Detacher) ConnState(c net.Conn, st http.ConnState) {
	if st != http.StateNew {
		d.forget(c)
	}
}

func (d *Detacher) forget(c net.Conn) {
	d.mu.Lock()
	delete(d.waiting, c)
	d.mu.Unlock()
}

// closeWaiting closes the handed-back connections that are waiting for a request, as net/http's
// Shutdown closes its idle ones.
func (d *Detacher) closeWaiting() {
	d.mu.Lock()
	defer d.mu.Unlock()
	for c := range d.waiting {
		c.Close()
		delete(d.waiting, c)
	}
}

// Wait waits for the detached streams to end, until ctx is done; then it ends their calls and
// closes their connections.
func (d *Detacher) Wait(ctx context.Context) error {
	if d == nil {
		return nil
	}
	d.mu.Lock()
	d.closing = true
	d.mu.Unlock()
	done := make(chan struct{})
	go func() {
		d.wg.Wait()
		close(done)
	}()
	select {
	case <-done:
		d.closeWaiting()
		return nil
	case <-ctx.Done():
	}
	defer d.closeWaiting()
	d.mu.Lock()
	for c, ls := range d.live {
		ls.cancel()
		ls.hangup.Stop() // a watch must never outlive its descriptor: the number may be reused
		c.Close()
	}
	d.mu.Unlock()
	<-done
	return ctx.Err()
}

// watchHangup calls gone (on the watcher goroutine) when the client closes conn; nil when conn
// cannot be watched, and then a gone client is noticed by the next write.
func watchHangup(conn net.Conn, gone func()) *fdwatch.Handle {
	if pc, ok := conn.(*prefixConn); ok {
		conn = pc.Conn
	}
	if tc, ok := conn.(*tls.Conn); ok {
		conn = tc.NetConn() // a hang-up is the TCP connection's
	}
	sc, ok := conn.(syscall.Conn)
	if !ok {
		return nil
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return nil
	}
	var h *fdwatch.Handle
	_ = rc.Control(func(fd uintptr) { // fails only for a closed connection, which the first write reports
		h, _ = fdwatch.Watch(int(fd), fdwatch.Hangup, func(fdwatch.Events) bool {
			gone()
			return false
		})
	})
	return h
}

// rawResponse is an http.ResponseWriter writing an HTTP/1.1 response straight to a connection:
// chunked unless the handler set a Content-Length. Written bytes are buffered until Flush, in a
// buffer let go after each flush, so that an idle stream holds none.
type rawResponse struct {
	c       net.Conn
	h       http.Header
	status  int
	chunked bool
	buf     []byte
	err     error
	hungUp  atomic.Bool // the client closed the connection (or half-closed it)
	// writeIdle bounds each write to the client: one that stops reading is let go (0 => no bound).
	writeIdle time.Duration
}

// Header implements http.ResponseWriter.
func (w *rawResponse) Header() http.Header { return w.h }

// WriteHeader implements http.ResponseWriter.
func (w *rawResponse) WriteHeader(code int) {
	if w.status != 0 {
		return
	}
	w.status = code
	w.h.Del("Transfer-Encoding")
	if w.h.Get("Date") == "" {
		w.h.Set("Date", time.Now().UTC().Format(http.TimeFormat))
	}
	w.chunked = w.h.Get("Content-Length") == ""
	if w.chunked {
		w.h.Set("Transfer-Encoding", "chunked")
	}
	w.grow()
	w.buf = append(w.buf, "HTTP/1.1 "...)
	w.buf = appendStatusLine(w.buf, code)
	hb := bytes.NewBuffer(w.buf)
	_ = w.h.Write(hb) // writes into memory: cannot fail
	w.buf = hb.Bytes()
	w.buf = append(w.buf, "\r\n"...)
}

// Write implements http.ResponseWriter.
func (w *rawResponse) Write(p []byte) (int, error) {
	if w.status == 0 {
		if w.h.Get("Content-Type") == "" {
			w.h.Set("Content-Type", http.DetectContentType(p))
		}
		w.WriteHeader(http.StatusOK)
	}
	if w.err != nil {
		return 0, w.err
	}
	if len(p) == 0 {
		return 0, nil
	}
	w.grow()
	if w.chunked {
		w.buf = strconv.AppendInt(w.buf, int64(len(p)), 16)
		w.buf = append(w.buf, "\r\n"...)
		w.buf = append(w.buf, p...)
		w.buf = append(w.buf, "\r\n"...)
	} else {
		w.buf = append(w.buf, p...)
	}
	return len(p), nil
}

// Flush implements http.Flusher.
func (w *rawResponse) Flush() { _ = w.flush() }

func (w *rawResponse) flush() error {
	if w.err != nil || len(w.buf) == 0 {
		return w.err
	}
	if w.writeIdle > 0 {
		_ = w.c.SetWriteDeadline(time.Now().Add(w.writeIdle)) // best effort: a connection without deadlines keeps none
	}
	_, w.err = w.c.Write(w.buf)
	putBuf(w.buf)
	w.buf = nil
	return w.err
}

// end completes the response (the last chunk) and writes what is buffered.
func (w *rawResponse) end() error {
	if w.status == 0 {
		w.WriteHeader(http.StatusOK)
	}
	if w.chunked {
		w.grow()
		w.buf = append(w.buf, "0\r\n\r\n"...)
	}
	return w.flush()
}

// grow makes sure w has a buffer.
func (w *rawResponse) grow() {
	if w.buf == nil {
		w.buf = getBuf()
	}
}

// reusable says whether the connection can carry another request: a response whose length the
// client knows, completely written.
func (w *rawResponse) reusable() bool {
	return w.err == nil && !w.hungUp.Load() && !strings.EqualFold(w.h.Get("Connection"), "close")
}

func appendStatusLine(b []byte, code int) []byte {
	b = strconv.AppendInt(b, int64(code), 10)
	b = append(b, ' ')
	b = append(b, http.StatusText(code)...)
	return append(b, "\r\n"...)
}

// bufPool holds the write buffers of streams between events: an idle stream holds none.
var bufPool = sync.Pool{New: func() any { b := make([]byte, 0, 2048); return &b }}

// maxPooled is the largest buffer kept for reuse: a huge event's buffer is left to the collector.
const maxPooled = 64 << 10

func getBuf() []byte { return (*bufPool.Get().(*[]byte))[:0] }

func putBuf(b []byte) {
	if cap(b) <= maxPooled {
		bufPool.Put(&b)
	}
}

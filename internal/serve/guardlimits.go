package serve

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/a2acli/a2a/internal/serve/traffic"
)

// Request bodies are held in memory as they arrive, never as they are announced: a Content-Length sizes nothing
// before its bytes come. A body's buffer starts at bodyStep and doubles as it fills, up to the announced length (or
// the limit), so a client that announces 4 MB and sends one byte costs one step. All the bodies being read, and
// those read but not yet taken by their handler, hold at most bodyBudgetFactor × MaxRequestBytes together (the
// budget counts the buffers' capacity, what the heap really holds): a request whose body would grow past it is
// answered 503 with Retry-After, and its connection closed, rather than waited for, so that a flood of slow
// bodies costs the attacker and not the server. A body stops counting once its handler read it to the end, or
// returned.
const (
	bodyStep         = 16 << 10
	bodyBudgetFactor = 64
	bodyRetryAfter   = "1" // seconds, for a body refused over the budget
)

// bodyBudget is what request bodies in flight may hold together; nil => no bound.
type bodyBudget struct {
	max  int64
	held atomic.Int64
	log  *traffic.Log // its gauges of bodies in flight; nil => none
}

func newBodyBudget(maxBody int64) *bodyBudget {
	if maxBody <= 0 {
		return &bodyBudget{max: -1}
	}
	return &bodyBudget{max: bodyBudgetFactor * maxBody}
}

// take reserves n more bytes, reporting false (and reserving nothing) past the budget.
func (b *bodyBudget) take(n int64) bool {
	if b.held.Add(n) > b.max && b.max >= 0 {
		b.held.Add(-n)
		return false
	}
	b.log.BodyBytes(0, n)
	return true
}

func (b *bodyBudget) give(n int64) {
	b.held.Add(-n)
	b.log.BodyBytes(0, -n)
}

// heldBody hands the handler a body read into memory, and gives its bytes back to the budget once the handler
// read it to the end or returned, whichever comes first.
type heldBody struct {
	mu     sync.Mutex
	r      *bytes.Reader // nil once released
	budget *bodyBudget
	n      int64 // bytes reserved
}

func (h *heldBody) Read(p []byte) (int, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.r == nil {
		return 0, io.EOF
	}
	n, err := h.r.Read(p)
	if err == io.EOF {
		h.releaseLocked()
	}
	return n, err
}

func (h *heldBody) Close() error {
	h.release()
	return nil
}

func (h *heldBody) release() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.releaseLocked()
}

func (h *heldBody) releaseLocked() {
	if h.r != nil {
		h.r = nil
		h.budget.give(h.n)
		h.budget.log.BodyBytes(-1, 0)
	}
}

// readBody reads the request's body, within the size bound, the budget of bodies in flight and the read timeout,
// and hands the handler a copy in memory; it answers the request itself (and returns false) when the body is too
// large, too slow or over the budget. The returned release gives the body's bytes back (idempotent).
func (g *guard) readBody(w http.ResponseWriter, r *http.Request) (release func(), ok bool) {
	if r.Body == nil || r.Body == http.NoBody || r.ContentLength == 0 {
		return func() {}, true
	}
	if g.maxBody >= 0 && r.ContentLength > g.maxBody {
		w.Header().Set("Connection", "close") // the body is not read: the connection cannot carry another request
		g.refuse(w, r, http.StatusRequestEntityTooLarge, a2a.ErrInvalidRequest, tooLarge(r.ContentLength, g.maxBody))
		return nil, false
	}
	rc := http.NewResponseController(w)
	if g.readTO > 0 {
		_ = rc.SetReadDeadline(time.Now().Add(g.readTO)) // best effort: a connection without deadlines keeps none
	}
	limit := g.maxBody
	if limit < 0 {
		limit = 1<<63 - 2
	}
	g.bodies.log.BodyBytes(1, 0)
	buf, err := g.readBounded(r.Body, r.ContentLength, limit)
	_ = rc.SetReadDeadline(time.Time{}) // see above; the stream that follows may read nothing for hours
	if err != nil {
		g.bodies.give(int64(cap(buf)))
		g.bodies.log.BodyBytes(-1, 0)
	}
	var ne net.Error
	switch {
	case err == nil:
	case errors.Is(err, errBodyTooLarge):
		w.Header().Set("Connection", "close")
		g.refuse(w, r, http.StatusRequestEntityTooLarge, a2a.ErrInvalidRequest, tooLarge(-1, g.maxBody))
		return nil, false
	case errors.Is(err, errBodyBudget):
		w.Header().Set("Connection", "close")
		w.Header().Set("Retry-After", bodyRetryAfter)
		g.refuse(w, r, http.StatusServiceUnavailable, a2a.ErrInternalError, fmt.Sprintf(
			"a2a serve: too many request bodies are arriving at once (%d bytes held together at most): try again "+
				"in a moment", g.bodies.max))
		return nil, false
	case errors.As(err, &ne) && ne.Timeout():
		w.Header().Set("Connection", "close")
		g.refuse(w, r, http.StatusRequestTimeout, a2a.ErrInvalidRequest,
			fmt.Sprintf("a2a serve: the request body did not arrive within %s", g.readTO))
		return nil, false
	default:
		return nil, false // a client that hung up gets no answer
	}
	hb := &heldBody{r: bytes.NewReader(buf), budget: g.bodies, n: int64(cap(buf))}
	r.Body = hb
	r.ContentLength = int64(len(buf))
	return hb.release, true
}

var (
	errBodyTooLarge = errors.New("request body too large")
	errBodyBudget   = errors.New("request bodies over the budget")
)

// readBounded reads body into a buffer that grows with what arrives (see bodyStep), reserving each growth in the
// budget first. On an error, the buffer returned is what is reserved (its capacity).
func (g *guard) readBounded(body io.Reader, announced, limit int64) ([]byte, error) {
	ceiling := limit + 1 // one byte past the limit tells a body too large
	if announced > 0 {
		ceiling = min(ceiling, announced)
	}
	var buf []byte
	grow := func() error {
		size := min(max(2*int64(cap(buf)), bodyStep), ceiling)
		if size <= int64(cap(buf)) {
			size = int64(cap(buf)) + bodyStep // the body goes on past what it announced or the limit: see below
		}
		if !g.bodies.take(size - int64(cap(buf))) {
			return errBodyBudget
		}
		nb := make([]byte, len(buf), size)
		copy(nb, buf)
		buf = nb
		return nil
	}
	for {
		if len(buf) == cap(buf) {
			if int64(len(buf)) >= ceiling {
				// Full at the announced length or past the limit: a probe tells the end from more.
				var probe [1]byte
				n, err := io.ReadFull(body, probe[:])
				if n == 0 {
					if err == io.EOF || err == io.ErrUnexpectedEOF {
						return buf, nil
					}
					return buf, err
				}
				if int64(len(buf)) > limit-1 {
					return buf, errBodyTooLarge
				}
				if err := grow(); err != nil {
					return buf, err
				}
				buf = append(buf, probe[0])
				continue
			}
			if err := grow(); err != nil {
				return buf, err
			}
		}
		n, err := body.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if int64(len(buf)) > limit {
			return buf, errBodyTooLarge
		}
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return buf, err
		}
	}
}

func tooLarge(size, limit int64) string {
	what := "the request body"
	if size >= 0 {
		what = fmt.Sprintf("the request body (%d bytes)", size)
	}
	return fmt.Sprintf("a2a serve: %s is larger than this server accepts (%d bytes): start it with a larger "+
		"--max-request-bytes to accept it", what, limit)
}

// deadlineWriter renews the connection's write deadline before writes: a write the client does not take within d
// fails (and ends the call), while a stream may stay quiet between events for as long as its task runs.
type deadlineWriter struct {
	http.ResponseWriter
	rc   *http.ResponseController
	d    time.Duration
	last time.Time // when the deadline was last set
}

func (w *deadlineWriter) renew() {
	now := time.Now()
	if now.Sub(w.last) > w.d/4 { // renewing on every write would reset a timer per event for nothing
		w.last = now
		_ = w.rc.SetWriteDeadline(now.Add(w.d)) // best effort: a connection without deadlines keeps none
	}
}

func (w *deadlineWriter) WriteHeader(code int) {
	w.renew()
	w.ResponseWriter.WriteHeader(code)
}

func (w *deadlineWriter) Write(p []byte) (int, error) {
	w.renew()
	return w.ResponseWriter.Write(p)
}

// Flush implements http.Flusher.
func (w *deadlineWriter) Flush() { _ = w.FlushError() }

// FlushError is what http.ResponseController calls to flush.
func (w *deadlineWriter) FlushError() error {
	w.renew()
	return http.NewResponseController(w.ResponseWriter).Flush()
}

// Unwrap lets http.ResponseController reach the underlying writer (the fast path hijacks through it).
func (w *deadlineWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

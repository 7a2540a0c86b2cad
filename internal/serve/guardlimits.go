package serve

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

// readBody reads the request's body, within the size bound and the read timeout, and hands the handler a copy in
// memory; it answers the request itself (and returns false) when the body is too large or too slow.
func (g *guard) readBody(w http.ResponseWriter, r *http.Request) bool {
	if r.Body == nil || r.Body == http.NoBody || r.ContentLength == 0 {
		return true
	}
	if g.maxBody >= 0 && r.ContentLength > g.maxBody {
		w.Header().Set("Connection", "close") // the body is not read: the connection cannot carry another request
		g.refuse(w, r, http.StatusRequestEntityTooLarge, a2a.ErrInvalidRequest, tooLarge(r.ContentLength, g.maxBody))
		return false
	}
	rc := http.NewResponseController(w)
	if g.readTO > 0 {
		_ = rc.SetReadDeadline(time.Now().Add(g.readTO)) // best effort: a connection without deadlines keeps none
	}
	limit := g.maxBody
	if limit < 0 {
		limit = 1<<63 - 2
	}
	var buf bytes.Buffer
	if r.ContentLength > 0 {
		buf.Grow(int(r.ContentLength))
	}
	n, err := buf.ReadFrom(io.LimitReader(r.Body, limit+1))
	_ = rc.SetReadDeadline(time.Time{}) // see above; the stream that follows may read nothing for hours
	switch {
	case n > limit:
		w.Header().Set("Connection", "close")
		g.refuse(w, r, http.StatusRequestEntityTooLarge, a2a.ErrInvalidRequest, tooLarge(-1, g.maxBody))
		return false
	case err != nil:
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() {
			w.Header().Set("Connection", "close")
			g.refuse(w, r, http.StatusRequestTimeout, a2a.ErrInvalidRequest,
				fmt.Sprintf("a2a serve: the request body did not arrive within %s", g.readTO))
		}
		return false // a client that hung up gets no answer
	}
	r.Body = io.NopCloser(bytes.NewReader(buf.Bytes()))
	r.ContentLength = n
	return true
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

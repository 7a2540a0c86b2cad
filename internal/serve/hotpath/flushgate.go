package hotpath

import (
	"context"
	"net/http"
	"strings"
	"sync/atomic"
)

// An SSE stream flushes the response after every event: one write system call per event, and one
// wake-up of the client's reader. When the next events of a stream are already waiting, that
// flush only costs time: the flush after the last waiting event delivers them all at once, so no
// event is delayed by more than the time it takes to encode the ones waiting with it.
//
// Merging waiting chunks into one event with several parts would save more (fewer events to
// encode and parse), but the grammar streams each piece as its own artifact chunk event and
// clients see events (-o json prints them), so events stay one per chunk and only the system
// calls are shared.
//
// FlushGate carries what the event source knows (how many events are waiting) to the response
// writer. The writer puts the gate in the request context (which only carries it down to the
// handler); the handler reports by calling SetWaiting (package tasks takes it as a FlushHint,
// package serve finds it with FlushGateFrom). A stream whose source does not report (the proxy)
// keeps flushing every event.
type FlushGate struct {
	waiting atomic.Int64
}

type flushGateKey struct{}

// FlushGateFrom returns the gate of a stream's request context; nil when the writer has none.
func FlushGateFrom(ctx context.Context) *FlushGate {
	g, _ := ctx.Value(flushGateKey{}).(*FlushGate)
	return g
}

// SetWaiting records how many events are waiting after the one being sent.
func (g *FlushGate) SetWaiting(n int) {
	if g != nil {
		g.waiting.Store(int64(n))
	}
}

// gatedWriter skips the flushes requested while more events are waiting. Every skipped flush is
// followed by another one: a waiting event is always written and flushed after it (or the
// response ends, which flushes too).
type gatedWriter struct {
	http.ResponseWriter
	g *FlushGate
}

// Flush implements http.Flusher.
func (w *gatedWriter) Flush() {
	if w.g.waiting.Load() > 0 {
		return
	}
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap lets http.ResponseController reach the underlying writer.
func (w *gatedWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// GateFlushes wraps the requests that may be streams (SSE accepted, or a REST stream path) in a
// gatedWriter. Other requests pass untouched, so unary calls pay nothing.
func GateFlushes(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !mayStream(r) {
			next.ServeHTTP(w, r)
			return
		}
		g := &FlushGate{}
		next.ServeHTTP(&gatedWriter{ResponseWriter: w, g: g}, r.WithContext(context.WithValue(r.Context(), flushGateKey{}, g)))
	})
}

func mayStream(r *http.Request) bool {
	return strings.Contains(r.Header.Get("Accept"), "text/event-stream") ||
		strings.HasSuffix(r.URL.Path, ":stream") || strings.HasSuffix(r.URL.Path, ":subscribe")
}

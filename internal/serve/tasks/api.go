package tasks

import (
	"context"
	"strings"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

// Logf writes one line to the server's log (the format ends with a newline); nil => discarded.
type Logf func(format string, args ...any)

func (l Logf) printf(format string, args ...any) {
	if l != nil {
		l(format, args...)
	}
}

// NewHandler returns the a2asrv.RequestHandler over r: sending starts r's turns, the other
// methods read and change r's store.
func NewHandler(r *Runner, opts ...HandlerOption) *Handler {
	h := &Handler{ts: r, subs: newSubLimits(MaxSubscriptionsPerTask, MaxSubscriptions)}
	for _, o := range opts {
		o(h)
	}
	return h
}

// HandlerOption configures a Handler.
type HandlerOption func(*Handler)

// FlushHint is a stream's response writer that wants to know, before each event is yielded, how
// many more wait behind it, so that one flush delivers them all (package hotpath's FlushGate).
// The writer is an interface the handler calls: no result travels back up through the context.
type FlushHint interface{ SetWaiting(n int) }

// WithFlushHints gives the handler the FlushHint of a stream's request context (from returns nil
// when the writer takes none). serve.Env.TaskParts passes the server's.
func WithFlushHints(from func(context.Context) FlushHint) HandlerOption {
	return func(h *Handler) { h.hints = from }
}

// Runner returns the runner h serves.
func (h *Handler) Runner() *Runner { return h.ts }

// Store returns the store the runner keeps its tasks in.
func (ts *Runner) Store() *Store { return ts.store }

// Shutdown cancels every running turn, waits for them to record their final state and stops
// push delivery, within ctx.
func (ts *Runner) Shutdown(ctx context.Context) error { return ts.shutdown(ctx) }

// Base is the context every turn's context derives from; it is done once Shutdown begins.
func (ts *Runner) Base() context.Context { return ts.base }

// SetMaxArtifactBytes bounds the artifact bytes kept per task (see artbudget.go); <= 0 => no bound.
// Call it before the store is used.
func (s *Store) SetMaxArtifactBytes(n int64) { s.maxArtifactBytes = n }

// SetMaxTaskBytes bounds what the finished tasks kept hold together (see retention.go): past it, the oldest
// finished tasks are dropped; <= 0 => no bound. Call it before the store is used.
func (s *Store) SetMaxTaskBytes(n int64) { s.maxBytes = n }

// DefaultMaxTaskBytes is the bound of SetMaxTaskBytes when it is not called.
const DefaultMaxTaskBytes = defaultMaxTaskBytes

// Events is the channel the subscriber's events arrive on; it is closed after the turn's last event.
func (s *Subscriber) Events() <-chan a2a.Event { return s.ch }

// Err is, once Events is closed, why the turn's last event did not come: the task store could not save the end of
// the turn in time (the caller must not hear of an end a crash would lose). nil when the last event came.
func (s *Subscriber) Err() error { return s.err }

// ShortState renders TASK_STATE_INPUT_REQUIRED as input-required, and a state that renders empty (none, or
// an upstream's bare "TASK_STATE_") as "-", so the log's state column is never blank.
func ShortState(s a2a.TaskState) string {
	short := strings.ReplaceAll(strings.ToLower(strings.TrimPrefix(string(s), "TASK_STATE_")), "_", "-")
	if short == "" {
		return "-"
	}
	return short
}

// PartOverhead is what the store counts for each part, message and artifact it keeps besides the payload, against
// SetMaxArtifactBytes and SetMaxTaskBytes.
const PartOverhead = partOverhead

// TruncatedKey is the metadata key of an artifact (or history message) some of whose bytes were not
// kept: its value is the number of bytes dropped.
const TruncatedKey = truncatedKey

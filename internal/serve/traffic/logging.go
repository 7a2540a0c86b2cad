package traffic

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv"

	"github.com/a2acli/a2a/internal/redact"
	"github.com/a2acli/a2a/internal/serve/tasks"
	"github.com/a2acli/a2a/internal/termsafe"
)

// maxLoggedPayload bounds one payload in the verbose traffic log.
const maxLoggedPayload = 4096

// Log writes one line per call to the configured writer, plus payloads and request
// parameters when verbose. Credentials are always redacted.
type Log struct {
	w       *lockedWriter
	quiet   bool
	verbose bool
	metrics *metrics // nil => no /metrics (metrics.go)
	obs     Observer // sees every call, even when quiet; nil => none (observer.go)
}

// Slogger is the logger handed to a2asrv: a2a-go's own messages go to the log only when verbose.
// Otherwise it discards without formatting: a2asrv derives a logger with attributes on every call,
// which a text handler would pre-format for nothing.
func (l *Log) Slogger() *slog.Logger {
	if !l.verbose || l.quiet {
		return slog.New(slog.DiscardHandler)
	}
	opts := &slog.HandlerOptions{Level: slog.LevelWarn}
	if l.w.json != nil {
		return slog.New(slog.NewJSONHandler(&lineWriter{l: l.w, w: l.w.w}, opts))
	}
	return slog.New(slog.NewTextHandler(&lineWriter{l: l.w, w: l.w.w}, opts))
}

// lineWriter routes slog output through the same lock as the traffic lines.
type lineWriter struct {
	l *lockedWriter
	w io.Writer
}

func (lw *lineWriter) Write(p []byte) (int, error) {
	if lw.w == io.Discard {
		return len(p), nil
	}
	clean := termsafe.Sanitize(string(p))
	lw.l.mu.Lock()
	defer lw.l.mu.Unlock()
	if _, err := io.WriteString(lw.w, clean); err != nil {
		return 0, err
	}
	return len(p), nil
}

// formatParams renders request parameters with credentials redacted, sorted by name.
func formatParams(params map[string][]string) string { return redact.Lines(params, " %s=%s", ",") }

func payloadText(v any) string {
	raw, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprintf("<%v>", err)
	}
	raw = redact.JSON(raw)
	if len(raw) > maxLoggedPayload {
		return fmt.Sprintf("%s… (%d bytes)", raw[:maxLoggedPayload], len(raw))
	}
	return string(raw)
}

func payloadSize(v any) int {
	if v == nil {
		return 0
	}
	raw, err := json.Marshal(v)
	if err != nil {
		return 0
	}
	return len(raw)
}

// describe extracts the task ID and state a response is about.
func describe(v any) (id string, state string) {
	switch x := v.(type) {
	case *a2a.Task:
		return string(x.ID), tasks.ShortState(x.Status.State)
	case *a2a.Message:
		return string(x.TaskID), "message"
	case *a2a.TaskStatusUpdateEvent:
		return string(x.TaskID), tasks.ShortState(x.Status.State)
	case *a2a.TaskArtifactUpdateEvent:
		return string(x.TaskID), "-"
	case *a2a.ListTasksResponse:
		return fmt.Sprintf("(%d tasks)", len(x.Tasks)), "-"
	}
	return "", "-"
}

// Call accumulates what is logged (and counted, metrics.go) about one call.
type Call struct {
	l      *Log
	method string
	start  time.Time
	id     string
	state  string
	bytes  int
	events int
	client string          // the caller's address; "" => unknown
	stream bool            // counted among the open streams until end
	ctx    context.Context // the caller's: done when it went away (outcome.go)
	watch  CallWatch       // nil when nobody observes (observer.go)
}

func (l *Log) begin(ctx context.Context, method string, req any, taskID string) *Call {
	if l.quiet && l.metrics == nil && l.obs == nil {
		return nil
	}
	if l.verbose && !l.quiet {
		var params map[string][]string
		if cc, ok := a2asrv.CallContextFrom(ctx); ok && cc.ServiceParams() != nil {
			params = map[string][]string{}
			for k, v := range cc.ServiceParams().List() {
				params[k] = v
			}
		}
		l.Printf("%s params:%s\n  > %s\n", method, formatParams(params), payloadText(req))
	}
	c := l.Record(ctx, method, taskID)
	c.watch = l.watchCall(ctx, method, req, taskID)
	return c
}

// observe records one response or stream event.
func (c *Call) observe(v any) {
	if c == nil || v == nil {
		return
	}
	c.events++
	if c.l.quiet && c.watch == nil {
		return // metrics only: no size or task to describe (payloadSize marshals the value again)
	}
	c.bytes += payloadSize(v)
	id, state := describe(v)
	if id != "" {
		c.id = id
	}
	if state != "-" {
		c.state = state
	}
	if c.l.verbose && !c.l.quiet {
		c.l.Printf("  < %s\n", payloadText(v))
	}
	watchEvent(c.watch, v)
}

func (c *Call) end(err error) {
	if c == nil {
		return
	}
	err = c.outcome(err)
	d := time.Since(c.start)
	c.l.metrics.ended(c, d, err)
	c.endWatch(err, false)
	if c.l.quiet {
		return
	}
	c.l.writeCall(c, d, err)
}

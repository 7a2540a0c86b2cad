package traffic

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"path"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"google.golang.org/grpc/peer"
	"google.golang.org/grpc/status"
)

// The traffic log has one line per call, in text or JSON (Config.JSON, serve's --log-format):
//
//	2026-11-24T20:30:01.123Z 127.0.0.1:41234 SendMessage task=9f… state=completed 1.2ms 345B
//	{"time":"…","level":"INFO","msg":"call","client":"127.0.0.1:41234","method":"SendMessage","task":"9f…",…}
//
// A request no call took (Call) but that was refused (serve's guard and conformance layer, a body a2asrv could not
// read, an unknown path) gets a line too, with the status and the reason the client was given:
//
//	2026-11-24T20:30:01.125Z 127.0.0.1:41236 POST /message:send task=- state=refused 31µs 0B status=401 reason="…"
//
// Every line goes through the lockedWriter: sanitised (termsafe), whole, credentials never in it (the guard
// drops serve's token before anything logs; verbose payloads are redacted in logging.go).

// logTime is the time format of text lines (JSON lines use slog's own).
const logTime = "2006-01-02T15:04:05.000Z07:00"

// maxReason bounds the refusal reason kept from an answer.
const maxReason = 512

// callMeta is what serve knows of a request before any handler reads it. A Call that begins under it
// takes it: the call's own line then says what happened, and no refusal is logged.
type callMeta struct {
	client string
	start  time.Time
	taken  atomic.Bool
}

type callMetaKey struct{}

func callMetaFrom(ctx context.Context) *callMeta {
	m, _ := ctx.Value(callMetaKey{}).(*callMeta)
	return m
}

// jsonLines writes each line of s as one JSON object with the line as its msg.
func (l *lockedWriter) jsonLines(s string) {
	for line := range strings.SplitSeq(strings.TrimRight(s, "\n"), "\n") {
		l.json.Info(line)
	}
}

// Record starts the record of one call; the caller's address comes from the request (Front) or the gRPC peer.
func (l *Log) Record(ctx context.Context, method, taskID string) *Call {
	c := &Call{l: l, method: method, start: time.Now(), id: taskID, state: "-", stream: streamMethod(method), ctx: ctx}
	if m := callMetaFrom(ctx); m != nil {
		m.taken.Store(true)
		c.client = m.client
	} else if p, ok := peer.FromContext(ctx); ok && p.Addr != nil {
		c.client = p.Addr.String()
	}
	l.metrics.started(c)
	return c
}

func streamMethod(method string) bool {
	return method == "SendStreamingMessage" || method == "SubscribeToTask"
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// writeCall writes the line of a call that ended after d.
func (l *Log) writeCall(c *Call, d time.Duration, err error) {
	if l.w.json != nil {
		attrs := []slog.Attr{slog.String("client", orDash(c.client)), slog.String("method", c.method),
			slog.String("task", orDash(c.id)), slog.String("state", c.state),
			slog.Float64("duration_ms", float64(d.Microseconds())/1000), slog.Int("bytes", c.bytes)}
		if c.events > 1 {
			attrs = append(attrs, slog.Int("events", c.events))
		}
		if err != nil {
			attrs = append(attrs, slog.String("error", err.Error()))
		}
		l.w.json.LogAttrs(context.Background(), slog.LevelInfo, "call", attrs...)
		return
	}
	line := fmt.Sprintf("%s %s %s task=%s state=%s %s %dB", time.Now().Format(logTime), orDash(c.client), c.method,
		orDash(c.id), c.state, d.Round(time.Microsecond), c.bytes)
	if c.events > 1 {
		line += fmt.Sprintf(" events=%d", c.events)
	}
	if err != nil {
		line += fmt.Sprintf(" error=%q", err.Error())
	}
	l.Printf("%s\n", line)
}

// refused logs and counts a request turned away before any call took it.
func (l *Log) refused(m *callMeta, method, code, reason string) {
	l.metrics.refused(method)
	if l.quiet {
		return
	}
	d := time.Since(m.start)
	if l.w.json != nil {
		l.w.json.LogAttrs(context.Background(), slog.LevelWarn, "refused", slog.String("client", orDash(m.client)),
			slog.String("method", method), slog.String("state", "refused"),
			slog.Float64("duration_ms", float64(d.Microseconds())/1000), slog.String("status", code),
			slog.String("reason", reason))
		return
	}
	l.Printf("%s %s %s task=- state=refused %s 0B status=%s reason=%q\n", time.Now().Format(logTime), orDash(m.client),
		method, d.Round(time.Microsecond), code, reason)
}

// Front is the outermost HTTP handler: it hands every request its callMeta and logs the requests refused
// before a call took them. rpc reports a request on the JSON-RPC endpoint, whose errors come with status 200.
func (l *Log) Front(next http.Handler, rpc func(*http.Request) bool) http.Handler {
	return &front{next: next, rpc: rpc, log: l}
}

type front struct {
	next http.Handler
	rpc  func(*http.Request) bool
	log  *Log
}

func (f *front) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if f.log.quiet && f.log.metrics == nil {
		f.next.ServeHTTP(w, r)
		return
	}
	m := &callMeta{client: r.RemoteAddr, start: time.Now()}
	r = r.WithContext(context.WithValue(r.Context(), callMetaKey{}, m))
	rw := &refusalWriter{ResponseWriter: w, m: m, rpc: f.rpc(r)}
	f.next.ServeHTTP(rw, r)
	if m.taken.Load() {
		return
	}
	if reason, ok := rw.refusal(); ok {
		p := r.URL.Path
		if len(p) > 200 {
			p = p[:200] + "…"
		}
		f.log.refused(m, r.Method+" "+p, strconv.Itoa(rw.status), reason)
	}
}

// refusalWriter notes the status of an answer no call took and keeps the start of its body when it may be a
// refusal: a status of 400 or more, or any answer on the JSON-RPC endpoint (whose errors come with 200).
type refusalWriter struct {
	http.ResponseWriter
	m      *callMeta
	rpc    bool
	status int
	keep   bool
	body   []byte
}

func (w *refusalWriter) WriteHeader(code int) {
	if w.status == 0 && code >= 200 {
		w.status = code
		w.keep = !w.m.taken.Load() && (code >= 400 || w.rpc)
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *refusalWriter) Write(p []byte) (int, error) {
	if w.status == 0 {
		w.WriteHeader(http.StatusOK)
	}
	if w.keep && len(w.body) < maxReason {
		w.body = append(w.body, p[:min(len(p), maxReason-len(w.body))]...)
	}
	return w.ResponseWriter.Write(p)
}

// Flush implements http.Flusher.
func (w *refusalWriter) Flush() { _ = http.NewResponseController(w.ResponseWriter).Flush() }

// FlushError is what http.ResponseController calls to flush.
func (w *refusalWriter) FlushError() error {
	return http.NewResponseController(w.ResponseWriter).Flush()
}

// Unwrap lets http.ResponseController reach the underlying writer (the fast path hijacks through it).
func (w *refusalWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// refusal reports whether the answer refused the request, and the reason it gave.
func (w *refusalWriter) refusal() (string, bool) {
	if !w.keep {
		return "", false
	}
	var doc struct {
		Error *struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	if json.Unmarshal(w.body, &doc) == nil {
		if doc.Error == nil {
			return "", w.status >= 400
		}
		return doc.Error.Message, true
	}
	if w.status < 400 {
		return "", false
	}
	reason, _, _ := strings.Cut(strings.TrimSpace(string(w.body)), "\n")
	return reason, true
}

// GRPCCall hands a gRPC call its callMeta (the guard's interceptor, outermost); call done with the call's
// outcome: it logs a call that failed before any call record took it (the guard, the conformance layer).
func (l *Log) GRPCCall(ctx context.Context) (_ context.Context, done func(fullMethod string, err error)) {
	if l == nil || (l.quiet && l.metrics == nil) {
		return ctx, func(string, error) {}
	}
	m := &callMeta{start: time.Now()}
	if p, ok := peer.FromContext(ctx); ok && p.Addr != nil {
		m.client = p.Addr.String()
	}
	return context.WithValue(ctx, callMetaKey{}, m), func(fullMethod string, err error) { l.grpcRefused(m, fullMethod, err) }
}

// grpcRefused logs a gRPC call that failed before any call record took it.
func (l *Log) grpcRefused(m *callMeta, fullMethod string, err error) {
	if err == nil || m.taken.Load() {
		return
	}
	st := status.Convert(err)
	l.refused(m, path.Base(fullMethod), st.Code().String(), st.Message())
}

// TLSRefused logs and counts a connection whose TLS handshake failed.
func (l *Log) TLSRefused(client, reason string) {
	if l.quiet && l.metrics == nil {
		return
	}
	l.refused(&callMeta{client: client, start: time.Now()}, "TLS", "handshake", reason)
}

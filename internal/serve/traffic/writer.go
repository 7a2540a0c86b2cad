package traffic

import (
	"fmt"
	"io"
	"log"
	"log/slog"
	"strings"
	"sync"

	"github.com/a2acli/a2a/internal/termsafe"
)

// Config says where the log goes and what it records.
type Config struct {
	W       io.Writer // nil => io.Discard
	JSON    bool      // one JSON object per line (--log-format json); false => text
	Quiet   bool      // no lines (metrics and the observer still see every call)
	Verbose bool      // payloads, request parameters and a2a-go's own messages too
	Metrics bool      // count calls for Metrics (GET /metrics)
	// Observer sees every call, even with a quiet log; nil => none.
	Observer Observer
}

// New builds the traffic log of c.
func New(c Config) *Log {
	if c.W == nil {
		c.W = io.Discard
	}
	lw := &lockedWriter{w: c.W}
	if c.JSON {
		lw.json = slog.New(slog.NewJSONHandler(&lineWriter{l: lw, w: c.W}, nil))
	}
	l := &Log{w: lw, quiet: c.Quiet, verbose: c.Verbose, obs: c.Observer}
	if c.Metrics {
		l.metrics = newMetrics()
	}
	return l
}

// Printf writes a line to the log (sanitised; a JSON log makes each line an object's msg), whether or not
// the log is quiet: the caller's own notes check that.
func (l *Log) Printf(format string, args ...any) {
	if l != nil && l.w != nil {
		l.w.printf(format, args...)
	}
}

// Plainf writes text whatever the log's form (sanitised): the lines scripts wait for, like "listening on".
func (l *Log) Plainf(format string, args ...any) { l.w.plainf(format, args...) }

// Records reports whether calls are recorded at all: a log line, metrics or an observer.
func (l *Log) Records() bool { return !l.quiet || l.metrics != nil || l.obs != nil }

// Verbose reports whether payloads are logged.
func (l *Log) Verbose() bool { return l.verbose && !l.quiet }

// ErrorLog is a standard logger writing (sanitised) to the log, for http.Server.ErrorLog.
func (l *Log) ErrorLog(prefix string) *log.Logger {
	return log.New(&lineWriter{l: l.w, w: l.w.w}, prefix, 0)
}

// lockedWriter serialises writes of whole lines to the log. Every line goes through termsafe.Sanitize: the log
// prints what clients chose (task ids from the path, methods, error messages, headers), which must never carry an
// escape sequence to the operator's terminal.
type lockedWriter struct {
	mu   sync.Mutex
	w    io.Writer
	json *slog.Logger // --log-format json: each line becomes one object's msg (calllog.go); nil => text
}

func (l *lockedWriter) printf(format string, args ...any) {
	if l.json != nil {
		l.jsonLines(fmt.Sprintf(format, oneLineArgs(format, args)...))
		return
	}
	l.plainf(format, args...)
}

// plainf writes text whatever the log's form.
func (l *lockedWriter) plainf(format string, args ...any) {
	line := termsafe.Sanitize(fmt.Sprintf(format, oneLineArgs(format, args)...))
	l.mu.Lock()
	defer l.mu.Unlock()
	io.WriteString(l.w, line) //nolint:errcheck // a log line that cannot be written has nowhere else to go
}

// oneLineArgs keeps each value on the line its format puts it: the text of every string, error, Stringer or byte
// slice goes through termsafe.Line, so a line break a client put in a path, a task id or an error (%0a, U+2028)
// shows as an escape instead of starting a forged line. Values formatted with %q are left alone: the quoting
// escapes them already.
func oneLineArgs(format string, args []any) []any {
	var out []any
	verbs := formatVerbs(format)
	for i, a := range args {
		var s string
		switch v := a.(type) {
		case string:
			s = v
		case []byte:
			s = string(v)
		case error:
			s = v.Error()
		case fmt.Stringer:
			s = v.String()
		default:
			continue
		}
		if i < len(verbs) && verbs[i] == 'q' {
			continue
		}
		if t := termsafe.Line(s); t != s || a != any(s) {
			if out == nil {
				out = append([]any(nil), args...)
			}
			out[i] = t
		}
	}
	if out == nil {
		return args
	}
	return out
}

// formatVerbs lists the verb of each argument of a Printf format, in order ("%s %5d %q" gives s, d, q).
func formatVerbs(format string) []byte {
	var verbs []byte
	for i := 0; i < len(format); i++ {
		if format[i] != '%' {
			continue
		}
		i++
		for i < len(format) && strings.IndexByte("+-# 0123456789.*[]", format[i]) >= 0 {
			i++
		}
		if i < len(format) && format[i] != '%' {
			verbs = append(verbs, format[i])
		}
	}
	return verbs
}

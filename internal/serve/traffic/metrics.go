package traffic

import (
	"bytes"
	"net/http"
	"strconv"
	"time"

	"github.com/a2acli/a2a/internal/serve/promtext"
)

// metrics are what GET /metrics shows, in Prometheus' text format (serve's ops.go): every call the traffic log sees, by
// method and outcome, its latency, the streams open now and the --exec processes running now. Each Run has its
// own registry: two servers in one process (tests) count apart.
type metrics struct {
	reg     *promtext.Registry
	calls   *promtext.CounterVec
	latency *promtext.HistogramVec
	streams *promtext.Gauge
	procs   *promtext.Gauge
	bodies  *promtext.Gauge // request bodies being read or waiting for their handler
	bodyB   *promtext.Gauge // the bytes they hold
}

// Outcomes of a call, the outcome label's values.
const (
	outcomeOK      = "ok"      // answered (a task that failed is still an answer)
	outcomeError   = "error"   // the call ended in an error
	outcomeRefused = "refused" // turned away before any handler took it (token, Host, Origin, content type, …)
)

// knownMethods are the method label's values; any other name (a proxy passing an unknown one through, a refused
// request's path) counts as "other", so that clients cannot grow the label set.
var knownMethods = map[string]bool{
	"SendMessage": true, "SendStreamingMessage": true, "SubscribeToTask": true, "GetTask": true, "ListTasks": true,
	"CancelTask": true, "GetTaskPushConfig": true, "ListTaskPushConfigs": true, "CreateTaskPushConfig": true,
	"DeleteTaskPushConfig": true, "GetExtendedAgentCard": true,
}

func methodLabel(m string) string {
	if knownMethods[m] {
		return m
	}
	return "other"
}

// latencyBuckets are a2a_serve_call_duration_seconds' bucket bounds, in seconds.
var latencyBuckets = []float64{.001, .005, .01, .05, .1, .5, 1, 5, 10, 30, 60, 300}

func newMetrics() *metrics {
	m := &metrics{
		reg: promtext.NewRegistry(),
		calls: promtext.NewCounterVec("a2a_serve_calls_total",
			"A2A calls ended, by method and outcome (ok, error, refused).", "method", "outcome"),
		latency: promtext.NewHistogramVec("a2a_serve_call_duration_seconds",
			"How long A2A calls took, from the request to the last byte of the answer (a stream's whole life).",
			latencyBuckets, "method"),
		streams: promtext.NewGauge("a2a_serve_open_streams", "Event streams (SendStreamingMessage, SubscribeToTask) open now."),
		procs:   promtext.NewGauge("a2a_serve_running_processes", "Commands run by --exec that are running now."),
		bodies:  promtext.NewGauge("a2a_serve_request_bodies", "Request bodies being read, or read and not yet taken by their handler."),
		bodyB: promtext.NewGauge("a2a_serve_request_body_bytes",
			"Bytes held by those request bodies (bounded by 64 × --max-request-bytes)."),
	}
	m.reg.Register(m.calls, m.latency, m.streams, m.procs, m.bodies, m.bodyB, promtext.GoCollector{}, promtext.ProcessCollector{})
	return m
}

// started counts a call that began; nil-safe, like every method here.
func (m *metrics) started(c *Call) {
	if m != nil && c.stream {
		m.streams.Inc()
	}
}

// ended counts a call that ended after d.
func (m *metrics) ended(c *Call, d time.Duration, err error) {
	if m == nil {
		return
	}
	if c.stream {
		m.streams.Dec()
	}
	outcome := outcomeOK
	if err != nil {
		outcome = outcomeError
	}
	method := methodLabel(c.method)
	m.calls.WithLabelValues(method, outcome).Inc()
	m.latency.WithLabelValues(method).Observe(d.Seconds())
}

// dropped forgets a call that began but is counted by another record (the proxy's fast path handing a call to
// the A2A handler).
func (m *metrics) dropped(c *Call) {
	if m != nil && c.stream {
		m.streams.Dec()
	}
}

// refused counts a request turned away before any call took it.
func (m *metrics) refused(method string) {
	if m != nil {
		m.calls.WithLabelValues(methodLabel(method), outcomeRefused).Inc()
	}
}

// Metrics serves the metrics in Prometheus' text format; nil when the log counts none.
func (l *Log) Metrics() http.Handler {
	if l.metrics == nil {
		return nil
	}
	return http.HandlerFunc(l.metrics.serveHTTP)
}

// ProcStarted and ProcEnded count the --exec processes running.
func (l *Log) ProcStarted() {
	if l != nil && l.metrics != nil {
		l.metrics.procs.Inc()
	}
}

// ProcEnded counts an --exec process that ended.
func (l *Log) ProcEnded() {
	if l != nil && l.metrics != nil {
		l.metrics.procs.Dec()
	}
}

// BodyBytes counts request bodies in flight (n) and the bytes they hold (b); nil-safe.
func (l *Log) BodyBytes(n, b int64) {
	if l != nil && l.metrics != nil {
		l.metrics.bodies.Add(n)
		l.metrics.bodyB.Add(b)
	}
}

// serveHTTP writes the metrics in the text format (HEAD gets the headers only).
func (m *metrics) serveHTTP(w http.ResponseWriter, r *http.Request) {
	var b bytes.Buffer
	if err := m.reg.WriteText(&b); err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", promtext.ContentType)
	w.Header().Set("Content-Length", strconv.Itoa(b.Len()))
	if r.Method != http.MethodHead {
		_, _ = w.Write(b.Bytes()) // a scraper gone away is no matter
	}
}

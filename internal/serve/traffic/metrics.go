package traffic

import (
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// metrics are what GET /metrics shows, in Prometheus' text format (serve's ops.go): every call the traffic log sees, by
// method and outcome, its latency, the streams open now and the --exec processes running now. Each Run has its
// own registry: two servers in one process (tests) count apart.
type metrics struct {
	reg     *prometheus.Registry
	calls   *prometheus.CounterVec
	latency *prometheus.HistogramVec
	streams prometheus.Gauge
	procs   prometheus.Gauge
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

func newMetrics() *metrics {
	m := &metrics{
		reg: prometheus.NewRegistry(),
		calls: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "a2a_serve_calls_total",
			Help: "A2A calls ended, by method and outcome (ok, error, refused).",
		}, []string{"method", "outcome"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "a2a_serve_call_duration_seconds",
			Help:    "How long A2A calls took, from the request to the last byte of the answer (a stream's whole life).",
			Buckets: []float64{.001, .005, .01, .05, .1, .5, 1, 5, 10, 30, 60, 300},
		}, []string{"method"}),
		streams: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "a2a_serve_open_streams",
			Help: "Event streams (SendStreamingMessage, SubscribeToTask) open now.",
		}),
		procs: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "a2a_serve_running_processes",
			Help: "Commands run by --exec that are running now.",
		}),
	}
	m.reg.MustRegister(m.calls, m.latency, m.streams, m.procs,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
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
	return promhttp.HandlerFor(l.metrics.reg, promhttp.HandlerOpts{})
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

package traffic

import (
	"bytes"
	"errors"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/common/expfmt"
)

// Serve's own families are what they were with client_golang (its definitions as of bbceada, below): the same
// calls counted by newMetrics and by client_golang give the same text, byte for byte, through GET /metrics.
func TestMetricsAsClientGolang(t *testing.T) {
	reg := prometheus.NewRegistry()
	calls := prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "a2a_serve_calls_total",
		Help: "A2A calls ended, by method and outcome (ok, error, refused).",
	}, []string{"method", "outcome"})
	latency := prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "a2a_serve_call_duration_seconds",
		Help:    "How long A2A calls took, from the request to the last byte of the answer (a stream's whole life).",
		Buckets: []float64{.001, .005, .01, .05, .1, .5, 1, 5, 10, 30, 60, 300},
	}, []string{"method"})
	streams := prometheus.NewGauge(prometheus.GaugeOpts{
		Name: "a2a_serve_open_streams",
		Help: "Event streams (SendStreamingMessage, SubscribeToTask) open now.",
	})
	procs := prometheus.NewGauge(prometheus.GaugeOpts{
		Name: "a2a_serve_running_processes",
		Help: "Commands run by --exec that are running now.",
	})
	bodies := prometheus.NewGauge(prometheus.GaugeOpts{
		Name: "a2a_serve_request_bodies",
		Help: "Request bodies being read, or read and not yet taken by their handler.",
	})
	bodyBytes := prometheus.NewGauge(prometheus.GaugeOpts{
		Name: "a2a_serve_request_body_bytes",
		Help: "Bytes held by those request bodies (bounded by 64 × --max-request-bytes).",
	})
	reg.MustRegister(calls, latency, streams, procs, bodies, bodyBytes)

	m := newMetrics()
	tl := &Log{metrics: m}
	tl.BodyBytes(2, 3<<20)
	tl.BodyBytes(-1, -1<<20)
	bodies.Add(1)
	bodyBytes.Add(2 << 20)
	for i, c := range []struct {
		rec *Call
		d   time.Duration
		err error
	}{
		{&Call{method: "SendMessage"}, 3 * time.Millisecond, nil},
		{&Call{method: "GetTask"}, 200 * time.Microsecond, errors.New("no such task")},
		{&Call{method: "SendStreamingMessage", stream: true}, 2 * time.Minute, nil},
		{&Call{method: "NoSuchMethod"}, time.Second, nil},
		{&Call{method: "SubscribeToTask", stream: true}, 400 * time.Second, errors.New("gone")},
	} {
		m.started(c.rec)
		if c.rec.stream {
			streams.Inc()
		}
		if i == 4 { // still open at the scrape
			continue
		}
		m.ended(c.rec, c.d, c.err)
		if c.rec.stream {
			streams.Dec()
		}
		outcome := outcomeOK
		if c.err != nil {
			outcome = outcomeError
		}
		calls.WithLabelValues(methodLabel(c.rec.method), outcome).Inc()
		latency.WithLabelValues(methodLabel(c.rec.method)).Observe(c.d.Seconds())
	}
	m.dropped(&Call{method: "SendStreamingMessage", stream: true})
	streams.Dec()
	m.refused("POST /x")
	calls.WithLabelValues("other", outcomeRefused).Inc()
	tl.ProcStarted()
	tl.ProcStarted()
	tl.ProcEnded()
	procs.Add(1)

	fams, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	var want bytes.Buffer
	for _, f := range fams {
		if _, err := expfmt.MetricFamilyToText(&want, f); err != nil {
			t.Fatal(err)
		}
	}

	rec := httptest.NewRecorder()
	tl.Metrics().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	if rec.Code != 200 || !strings.HasPrefix(rec.Header().Get("Content-Type"), "text/plain; version=0.0.4") {
		t.Fatalf("GET /metrics = %d %q", rec.Code, rec.Header().Get("Content-Type"))
	}
	var got strings.Builder
	for _, line := range strings.SplitAfter(rec.Body.String(), "\n") {
		if strings.HasPrefix(line, "a2a_") || strings.HasPrefix(line, "# HELP a2a_") || strings.HasPrefix(line, "# TYPE a2a_") {
			got.WriteString(line)
		}
	}
	if got.String() != want.String() {
		t.Errorf("serve's families differ from client_golang's\n--- ours\n%s--- client_golang\n%s", got.String(), want.String())
	}

	rec = httptest.NewRecorder()
	tl.Metrics().ServeHTTP(rec, httptest.NewRequest("HEAD", "/metrics", nil))
	if rec.Code != 200 || rec.Body.Len() != 0 {
		t.Errorf("HEAD /metrics = %d with %d bytes, want 200 and no body: %.200s", rec.Code, rec.Body.Len(), rec.Body.String())
	}
}

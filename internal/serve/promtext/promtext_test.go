package promtext_test

import (
	"bytes"
	"math"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/a2acli/a2a/internal/serve/promtext"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"google.golang.org/protobuf/proto"
)

// gatherText is client_golang's text for a registry, as promhttp writes it.
func gatherText(t *testing.T, reg *prometheus.Registry) string {
	t.Helper()
	fams, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	for _, f := range fams {
		if _, err := expfmt.MetricFamilyToText(&b, f); err != nil {
			t.Fatal(err)
		}
	}
	return b.String()
}

func ourText(t *testing.T, reg *promtext.Registry) string {
	t.Helper()
	var b bytes.Buffer
	if err := reg.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// parse reads text with Prometheus' own parser.
func parse(t *testing.T, what, text string) map[string]*dto.MetricFamily {
	t.Helper()
	parser := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := parser.TextToMetricFamilies(strings.NewReader(text))
	if err != nil {
		t.Fatalf("parse %s: %v\n%s", what, err, text)
	}
	return fams
}

// The same observations into a client_golang registry and into ours give the same text, byte for byte, and the
// same families once parsed: label values and help texts that need escaping, values on bucket bounds, below
// the first and above the last, label sets created in any order, gauges going below zero.
func TestDifferential(t *testing.T) {
	buckets := []float64{.001, .005, .01, .05, .1, .5, 1, 5, 10, 30, 60, 300}
	const weirdHelp = "Help with a backslash \\ and a\nnewline and \"quotes\" and ünïcode."
	cReg := prometheus.NewRegistry()
	cCalls := prometheus.NewCounterVec(prometheus.CounterOpts{Name: "x_calls_total", Help: weirdHelp}, []string{"method", "outcome"})
	cLat := prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "x_duration_seconds", Help: "Durations.", Buckets: buckets}, []string{"method"})
	cUp := prometheus.NewGauge(prometheus.GaugeOpts{Name: "x_open", Help: "Open now."})
	cDown := prometheus.NewGauge(prometheus.GaugeOpts{Name: "a_negative", Help: ""})
	cZed := prometheus.NewCounterVec(prometheus.CounterOpts{Name: "z_by_b_a", Help: "Labels given out of order."}, []string{"zeta", "alpha"})
	cReg.MustRegister(cCalls, cLat, cUp, cDown, cZed)

	oReg := promtext.NewRegistry()
	oCalls := promtext.NewCounterVec("x_calls_total", weirdHelp, "method", "outcome")
	oLat := promtext.NewHistogramVec("x_duration_seconds", "Durations.", buckets, "method")
	oUp := promtext.NewGauge("x_open", "Open now.")
	oDown := promtext.NewGauge("a_negative", "")
	oZed := promtext.NewCounterVec("z_by_b_a", "Labels given out of order.", "zeta", "alpha")
	oReg.Register(oCalls, oLat, oUp, oDown, oZed)

	labelSets := [][2]string{
		{"SendMessage", "ok"}, {"GetTask", "error"}, {"other", "refused"}, {"SendMessage", "error"},
		{`quo"te`, "ok"}, {`back\slash`, "ok"}, {"new\nline", "ok"}, {"ünï", "ok"}, {"", "ok"}, {"a", "b\\\"\n"},
	}
	for i, ls := range labelSets {
		for range i + 1 {
			cCalls.WithLabelValues(ls[0], ls[1]).Inc()
			oCalls.WithLabelValues(ls[0], ls[1]).Inc()
		}
	}
	for range 1000000 / 1000 { // a count past 1e3 and the 'g' format's exponent form below
		cCalls.WithLabelValues("many", "ok").Inc()
		oCalls.WithLabelValues("many", "ok").Inc()
	}
	obs := []float64{0, -1, .0005, .001, .0010001, .005, .3, 1, 1.5, 300, 300.5, 1e6, 12.25}
	for i, v := range obs {
		m := []string{"SendMessage", "GetTask", "ä\"b"}[i%3]
		cLat.WithLabelValues(m).Observe(v)
		oLat.WithLabelValues(m).Observe(v)
	}
	for range 3 {
		cUp.Inc()
		oUp.Inc()
	}
	cUp.Dec()
	oUp.Dec()
	for range 2 {
		cDown.Dec()
		oDown.Dec()
	}
	cZed.WithLabelValues("2", "1").Inc()
	oZed.WithLabelValues("2", "1").Inc()
	cZed.WithLabelValues("1", "2").Inc()
	oZed.WithLabelValues("1", "2").Inc()

	want, got := gatherText(t, cReg), ourText(t, oReg)
	if got != want {
		t.Errorf("text differs from client_golang's\n--- ours\n%s\n--- client_golang\n%s", got, want)
	}
	wf, gf := parse(t, "client_golang's", want), parse(t, "ours", got)
	if len(gf) != len(wf) {
		t.Errorf("%d families, want %d", len(gf), len(wf))
	}
	for name, w := range wf {
		if g := gf[name]; !proto.Equal(g, w) {
			t.Errorf("family %s:\n ours %v\n want %v", name, g, w)
		}
	}
}

// clientRuntime is client_golang's default Go and process collectors, as serve registered them.
func clientRuntime(t *testing.T) map[string]*dto.MetricFamily {
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return parse(t, "client_golang's", gatherText(t, reg))
}

// omitted are client_golang's runtime families this package does not provide (README says which it does).
var omitted = map[string]bool{
	"process_network_receive_bytes_total":  true,
	"process_network_transmit_bytes_total": true,
}

// The Go runtime and process families are client_golang's: the same names, types, help texts and label names,
// values of the same nature (the ones that cannot differ between two reads, equal).
func TestRuntimeFamilies(t *testing.T) {
	reg := promtext.NewRegistry()
	reg.Register(promtext.GoCollector{}, promtext.ProcessCollector{})
	ours := parse(t, "ours", ourText(t, reg))
	theirs := clientRuntime(t)
	for name, w := range theirs {
		g := ours[name]
		if omitted[name] {
			if g != nil {
				t.Errorf("%s is provided: take it off the omitted list", name)
			}
			continue
		}
		if g == nil {
			t.Errorf("family %s missing", name)
			continue
		}
		if g.GetType() != w.GetType() || g.GetHelp() != w.GetHelp() {
			t.Errorf("%s: type %v help %q, want %v %q", name, g.GetType(), g.GetHelp(), w.GetType(), w.GetHelp())
		}
		if len(g.Metric) != len(w.Metric) {
			t.Errorf("%s: %d metrics, want %d", name, len(g.Metric), len(w.Metric))
			continue
		}
		for i := range w.Metric {
			if !proto.Equal(&dto.Metric{Label: g.Metric[i].Label}, &dto.Metric{Label: w.Metric[i].Label}) {
				t.Errorf("%s: labels %v, want %v", name, g.Metric[i].Label, w.Metric[i].Label)
			}
		}
	}
	for name := range ours {
		if theirs[name] == nil {
			t.Errorf("family %s is not client_golang's", name)
		}
	}
	gauge := func(fams map[string]*dto.MetricFamily, name string) float64 {
		if f := fams[name]; f != nil && len(f.Metric) > 0 {
			if f.Metric[0].Gauge != nil {
				return f.Metric[0].Gauge.GetValue()
			}
			return f.Metric[0].Counter.GetValue()
		}
		return math.NaN()
	}
	for _, name := range []string{"go_sched_gomaxprocs_threads", "go_gc_gogc_percent", "go_gc_gomemlimit_bytes", "process_max_fds", "process_virtual_memory_max_bytes"} {
		if g, w := gauge(ours, name), gauge(theirs, name); g != w && !(math.IsNaN(g) && math.IsNaN(w)) {
			t.Errorf("%s = %v, want %v", name, g, w)
		}
	}
	if d := math.Abs(gauge(ours, "process_start_time_seconds") - gauge(theirs, "process_start_time_seconds")); d > 1 {
		t.Errorf("process_start_time_seconds off by %vs", d)
	}
	if s := gauge(ours, "process_start_time_seconds"); theirs["process_start_time_seconds"] != nil && (s > float64(time.Now().Unix())+1 || s < float64(time.Now().Add(-24*time.Hour).Unix())) {
		t.Errorf("process_start_time_seconds %v is not this test's start", s)
	}
	for _, name := range []string{"process_resident_memory_bytes", "process_virtual_memory_bytes", "process_open_fds", "go_goroutines", "go_memstats_sys_bytes"} {
		g, w := gauge(ours, name), gauge(theirs, name)
		if math.IsNaN(w) {
			continue
		}
		if g <= 0 || g > 4*w || w > 4*g {
			t.Errorf("%s = %v, client_golang's %v", name, g, w)
		}
	}
}

// Counting while another goroutine scrapes is safe (the race detector watches) and loses nothing.
func TestConcurrent(t *testing.T) {
	reg := promtext.NewRegistry()
	c := promtext.NewCounterVec("c_total", "c", "k")
	h := promtext.NewHistogramVec("h_seconds", "h", []float64{1, 2}, "k")
	g := promtext.NewGauge("g", "g")
	reg.Register(c, h, g)
	var wg sync.WaitGroup
	for i := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			k := []string{"a", "b"}[i%2]
			for j := range 500 {
				c.WithLabelValues(k).Inc()
				h.WithLabelValues(k).Observe(float64(j % 3))
				g.Inc()
				g.Dec()
				if j%100 == 0 {
					_ = reg.WriteText(&bytes.Buffer{})
				}
			}
		}()
	}
	wg.Wait()
	fams := parse(t, "ours", ourText(t, reg))
	var n float64
	for _, m := range fams["c_total"].Metric {
		n += m.Counter.GetValue()
	}
	if n != 2000 {
		t.Errorf("counted %v, want 2000", n)
	}
	if v := fams["g"].Metric[0].Gauge.GetValue(); v != 0 {
		t.Errorf("gauge %v, want 0", v)
	}
}

// A wrong number of label values is a programming error, named in the panic.
func TestLabelCount(t *testing.T) {
	defer func() {
		if r := recover(); r == nil || !strings.Contains(r.(string), "1 label values for 2 labels") {
			t.Errorf("recover() = %v", r)
		}
	}()
	promtext.NewCounterVec("c_total", "c", "a", "b").WithLabelValues("x")
}

// TestRuntimeFamiliesUnderEnv runs TestRuntimeFamilies (our families against client_golang's, which reads
// runtime/metrics) in a child process per setting of GOGC, GOMEMLIMIT and GOMAXPROCS, the variables the runtime
// reads at start: GoCollector reads those values without runtime/metrics and must agree with it on every one.
func TestRuntimeFamiliesUnderEnv(t *testing.T) {
	if os.Getenv("PROMTEXT_CHILD") != "" {
		t.Skip("in the child")
	}
	for _, env := range [][]string{
		{"GOGC=off"}, {"GOGC=50"}, {"GOGC=+250"}, {"GOGC=-7"}, {"GOGC=1_000"}, {"GOGC=abc"}, {"GOGC=99999999999"}, {"GOGC="},
		{"GOMEMLIMIT=123MiB", "GOMAXPROCS=1"}, {"GOMEMLIMIT=off", "GOMAXPROCS=3"},
	} {
		cmd := exec.Command(os.Args[0], "-test.run", "^TestRuntimeFamilies$", "-test.count=1", "-test.v")
		cmd.Env = append(append(os.Environ(), "PROMTEXT_CHILD=1"), env...)
		out, err := cmd.CombinedOutput()
		if err != nil || !strings.Contains(string(out), "--- PASS: TestRuntimeFamilies") {
			t.Errorf("%v: %v\n%s", env, err, out)
		}
	}
}

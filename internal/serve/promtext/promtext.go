// Package promtext writes metrics in Prometheus' text exposition format 0.0.4: counters, gauges and histograms
// with labels, and the Go runtime and process families client_golang's default collectors expose. It replaces
// github.com/prometheus/client_golang in the binary, whose initialisation (with procfs, yaml and expvar) cost
// about 0.8 ms of every `a2a` start-up for an endpoint only `serve` uses. The differential tests hold its output
// to client_golang's and parse it with prometheus/common/expfmt. It imports nothing from this module.
package promtext

import (
	"io"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
)

// ContentType is the text format's media type.
const ContentType = "text/plain; version=0.0.4; charset=utf-8"

// Metric types, as the TYPE line names them.
const (
	typeCounter   = "counter"
	typeGauge     = "gauge"
	typeHistogram = "histogram"
	typeSummary   = "summary"
)

// family is one metric family ready to write: samples are written in the order of metrics, each metric's
// labels sorted by name.
type family struct {
	name, help, typ string
	metrics         []metric
}

type metric struct {
	labels []label // sorted by name
	value  float64
	// histogram (or summary: quantiles in buckets' upper bounds, values in counts)
	buckets []float64
	counts  []float64
	sum     float64
	count   uint64
}

type label struct{ name, value string }

// Collector yields families at scrape time.
type Collector interface {
	collect() []family
}

// Registry is a set of collectors written together, families sorted by name like client_golang's registry.
type Registry struct {
	mu   sync.Mutex
	cols []Collector
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry { return &Registry{} }

// Register adds collectors.
func (r *Registry) Register(cs ...Collector) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.cols = append(r.cols, cs...)
}

// WriteText writes every family in the text format.
func (r *Registry) WriteText(w io.Writer) error {
	r.mu.Lock()
	cols := slices.Clone(r.cols)
	r.mu.Unlock()
	var fams []family
	for _, c := range cols {
		fams = append(fams, c.collect()...)
	}
	sort.Slice(fams, func(i, j int) bool { return fams[i].name < fams[j].name })
	var b []byte
	for _, f := range fams {
		b = appendFamily(b, f)
	}
	_, err := w.Write(b)
	return err
}

var (
	helpEscaper  = strings.NewReplacer(`\`, `\\`, "\n", `\n`)
	valueEscaper = strings.NewReplacer(`\`, `\\`, "\n", `\n`, `"`, `\"`)
)

func appendFamily(b []byte, f family) []byte {
	// client_golang writes the HELP line even for an empty help text.
	b = append(b, "# HELP "...)
	b = append(b, f.name...)
	b = append(b, ' ')
	b = append(b, helpEscaper.Replace(f.help)...)
	b = append(b, '\n')
	b = append(b, "# TYPE "...)
	b = append(b, f.name...)
	b = append(b, ' ')
	b = append(b, f.typ...)
	b = append(b, '\n')
	sortMetrics(f.metrics)
	for _, m := range f.metrics {
		switch f.typ {
		case typeHistogram:
			for i, ub := range m.buckets {
				b = appendSample(b, f.name, "_bucket", m.labels, "le", ub, m.counts[i])
			}
			b = appendSample(b, f.name, "_bucket", m.labels, "le", math.Inf(+1), float64(m.count))
			b = appendSample(b, f.name, "_sum", m.labels, "", 0, m.sum)
			b = appendSample(b, f.name, "_count", m.labels, "", 0, float64(m.count))
		case typeSummary:
			for i, q := range m.buckets {
				b = appendSample(b, f.name, "", m.labels, "quantile", q, m.counts[i])
			}
			b = appendSample(b, f.name, "_sum", m.labels, "", 0, m.sum)
			b = appendSample(b, f.name, "_count", m.labels, "", 0, float64(m.count))
		default:
			b = appendSample(b, f.name, "", m.labels, "", 0, m.value)
		}
	}
	return b
}

// sortMetrics orders metrics by their label values, label by label (client_golang's order).
func sortMetrics(ms []metric) {
	sort.SliceStable(ms, func(i, j int) bool {
		a, c := ms[i].labels, ms[j].labels
		for k := 0; k < len(a) && k < len(c); k++ {
			if a[k].value != c[k].value {
				return a[k].value < c[k].value
			}
		}
		return len(a) < len(c)
	})
}

func appendSample(b []byte, name, suffix string, labels []label, extraName string, extraValue, v float64) []byte {
	b = append(b, name...)
	b = append(b, suffix...)
	if len(labels) > 0 || extraName != "" {
		b = append(b, '{')
		for i, l := range labels {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, l.name...)
			b = append(b, `="`...)
			b = append(b, valueEscaper.Replace(l.value)...)
			b = append(b, '"')
		}
		if extraName != "" {
			if len(labels) > 0 {
				b = append(b, ',')
			}
			b = append(b, extraName...)
			b = append(b, `="`...)
			b = appendFloat(b, extraValue)
			b = append(b, '"')
		}
		b = append(b, '}')
	}
	b = append(b, ' ')
	b = appendFloat(b, v)
	return append(b, '\n')
}

// appendFloat formats like expfmt: +Inf, -Inf, NaN, else the shortest 'g' form.
func appendFloat(b []byte, f float64) []byte {
	switch {
	case math.IsNaN(f):
		return append(b, "NaN"...)
	case math.IsInf(f, +1):
		return append(b, "+Inf"...)
	case math.IsInf(f, -1):
		return append(b, "-Inf"...)
	}
	return strconv.AppendFloat(b, f, 'g', -1, 64)
}

// desc names a family and its label names.
type desc struct {
	name, help string
	labelNames []string
}

func (d desc) labels(values []string) []label {
	ls := make([]label, len(d.labelNames))
	for i, n := range d.labelNames {
		ls[i] = label{n, values[i]}
	}
	sort.Slice(ls, func(i, j int) bool { return ls[i].name < ls[j].name })
	return ls
}

// vec holds one child per distinct label values.
type vec[T any] struct {
	desc
	mu       sync.Mutex
	children map[string]*child[T]
	newT     func() *T
}

type child[T any] struct {
	values []string
	t      *T
}

func (v *vec[T]) with(values []string) *T {
	if len(values) != len(v.labelNames) {
		panic("promtext: " + v.name + ": " + strconv.Itoa(len(values)) + " label values for " + strconv.Itoa(len(v.labelNames)) + " labels")
	}
	key := strings.Join(values, "\xff")
	v.mu.Lock()
	defer v.mu.Unlock()
	c := v.children[key]
	if c == nil {
		c = &child[T]{values: slices.Clone(values), t: v.newT()}
		v.children[key] = c
	}
	return c.t
}

func (v *vec[T]) each(f func(values []string, t *T)) {
	v.mu.Lock()
	cs := make([]*child[T], 0, len(v.children))
	for _, c := range v.children {
		cs = append(cs, c)
	}
	v.mu.Unlock()
	for _, c := range cs {
		f(c.values, c.t)
	}
}

// Counter is a count that only goes up.
type Counter struct{ n atomic.Uint64 }

// Inc adds one.
func (c *Counter) Inc() { c.n.Add(1) }

// CounterVec is counters by label values.
type CounterVec struct{ v vec[Counter] }

// NewCounterVec returns a counter family with these label names.
func NewCounterVec(name, help string, labelNames ...string) *CounterVec {
	return &CounterVec{vec[Counter]{desc: desc{name, help, labelNames}, children: map[string]*child[Counter]{}, newT: func() *Counter { return new(Counter) }}}
}

// WithLabelValues is the counter for these label values (in the order of the label names), made on first use.
func (c *CounterVec) WithLabelValues(values ...string) *Counter { return c.v.with(values) }

func (c *CounterVec) collect() []family {
	f := family{name: c.v.name, help: c.v.help, typ: typeCounter}
	c.v.each(func(values []string, t *Counter) {
		f.metrics = append(f.metrics, metric{labels: c.v.labels(values), value: float64(t.n.Load())})
	})
	return []family{f}
}

// Gauge is a value that goes up and down.
type Gauge struct {
	desc
	n atomic.Int64
}

// NewGauge returns a gauge with no labels.
func NewGauge(name, help string) *Gauge { return &Gauge{desc: desc{name: name, help: help}} }

// Inc adds one.
func (g *Gauge) Inc() { g.n.Add(1) }

// Dec subtracts one.
func (g *Gauge) Dec() { g.n.Add(-1) }

// Add adds n (which may be negative).
func (g *Gauge) Add(n int64) { g.n.Add(n) }

func (g *Gauge) collect() []family {
	return []family{{name: g.name, help: g.help, typ: typeGauge, metrics: []metric{{value: float64(g.n.Load())}}}}
}

// Histogram counts observations in buckets (each bucket holds the values <= its upper bound).
type Histogram struct {
	mu     sync.Mutex
	bounds []float64
	counts []uint64
	sum    float64
	count  uint64
}

// Observe counts v.
func (h *Histogram) Observe(v float64) {
	i := sort.SearchFloat64s(h.bounds, v) // the first bound >= v
	h.mu.Lock()
	defer h.mu.Unlock()
	if i < len(h.counts) {
		h.counts[i]++
	}
	h.sum += v
	h.count++
}

// HistogramVec is histograms by label values.
type HistogramVec struct {
	v      vec[Histogram]
	bounds []float64
}

// NewHistogramVec returns a histogram family with these (increasing) bucket bounds and label names.
func NewHistogramVec(name, help string, buckets []float64, labelNames ...string) *HistogramVec {
	bounds := slices.Clone(buckets)
	if n := len(bounds); n > 0 && math.IsInf(bounds[n-1], +1) {
		bounds = bounds[:n-1]
	}
	if !sort.Float64sAreSorted(bounds) {
		panic("promtext: " + name + ": buckets not in increasing order")
	}
	h := &HistogramVec{bounds: bounds}
	h.v = vec[Histogram]{desc: desc{name, help, labelNames}, children: map[string]*child[Histogram]{},
		newT: func() *Histogram { return &Histogram{bounds: bounds, counts: make([]uint64, len(bounds))} }}
	return h
}

// WithLabelValues is the histogram for these label values, made on first use.
func (h *HistogramVec) WithLabelValues(values ...string) *Histogram { return h.v.with(values) }

func (h *HistogramVec) collect() []family {
	f := family{name: h.v.name, help: h.v.help, typ: typeHistogram}
	h.v.each(func(values []string, t *Histogram) {
		t.mu.Lock()
		m := metric{labels: h.v.labels(values), buckets: h.bounds, counts: make([]float64, len(t.counts)), sum: t.sum, count: t.count}
		var cum uint64
		for i, c := range t.counts {
			cum += c
			m.counts[i] = float64(cum)
		}
		t.mu.Unlock()
		f.metrics = append(f.metrics, m)
	})
	return []family{f}
}

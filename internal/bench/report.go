package bench

import (
	"math"
	"sort"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

// Report is a run's outcome; its JSON is `a2a bench -o json` and what --compare reads back.
type Report struct {
	Target    Target  `json:"target"`
	Mode      string  `json:"mode"`
	Loop      string  `json:"loop"` // "closed" or "open"
	Workers   int     `json:"workers"`
	Rate      float64 `json:"rate,omitempty"`
	WarmupSec float64 `json:"warmupSeconds"`

	Requests    int64   `json:"requests"`
	Errors      int64   `json:"errors"`
	ElapsedSec  float64 `json:"elapsedSeconds"`
	Throughput  float64 `json:"throughput"` // answered requests per second, errors included
	Interrupted bool    `json:"interrupted,omitempty"`
	// CPUPerRequestUs is the generator's own CPU time (user and system) per request, in microseconds.
	CPUPerRequestUs float64 `json:"cpuPerRequestUs,omitempty"`

	Latency    *Latency            `json:"latencyMs"`
	FirstEvent *Latency            `json:"firstEventMs,omitempty"`
	EventGap   *Latency            `json:"eventGapMs,omitempty"`
	Ops        map[string]*OpStats `json:"ops,omitempty"`
	ErrorsBy   map[string]int64    `json:"errorsByClass"`
	States     map[string]int64    `json:"states"`
	// Noise is each statistic's standard error from the run's own spread (batch means over 200 ms windows), as
	// a fraction of its value; --compare marks a delta beyond three of them.
	Noise map[string]float64 `json:"noise,omitempty"`
	// Histogram is the latency distribution in log-spaced buckets, for the terminal's bars.
	Histogram []Bucket `json:"histogram,omitempty"`
}

// Target is the agent the run drove.
type Target struct {
	URL       string `json:"url"`
	Transport string `json:"transport"`
	Version   string `json:"protocolVersion"`
}

// Latency is a distribution's summary in milliseconds.
type Latency struct {
	Count int64   `json:"count"`
	Mean  float64 `json:"mean"`
	P50   float64 `json:"p50"`
	P90   float64 `json:"p90"`
	P99   float64 `json:"p99"`
	P999  float64 `json:"p99.9"`
	Max   float64 `json:"max"`
}

// OpStats is one op's share of a mix.
type OpStats struct {
	Requests int64    `json:"requests"`
	Errors   int64    `json:"errors"`
	Latency  *Latency `json:"latencyMs"`
}

// Bucket counts the latencies up to UpToMs (and above the bucket before).
type Bucket struct {
	UpToMs float64 `json:"upToMs"`
	Count  int64   `json:"count"`
}

func ms(us int64) float64 { return float64(us) / 1000 }

func summary(h *hdrhistogram.Histogram) *Latency {
	if h.TotalCount() == 0 {
		return nil
	}
	// The histogram's highest equivalent value is a bucket's top; the percentiles are its values as recorded.
	return &Latency{Count: h.TotalCount(), Mean: h.Mean() / 1000,
		P50: ms(h.ValueAtQuantile(50)), P90: ms(h.ValueAtQuantile(90)), P99: ms(h.ValueAtQuantile(99)),
		P999: ms(h.ValueAtQuantile(99.9)), Max: ms(h.Max())}
}

func (r *recorder) report(cfg Config, interrupted bool, cpu time.Duration) *Report {
	r.mu.Lock()
	defer r.mu.Unlock()
	rep := &Report{Loop: "closed", Workers: cfg.Workers, Rate: cfg.Rate, WarmupSec: cfg.Warmup.Seconds(),
		Requests: r.n, Errors: r.errs, Interrupted: interrupted, ErrorsBy: r.errors, States: r.states,
		Latency: summary(r.total), FirstEvent: summary(r.first), EventGap: summary(r.gaps)}
	if cfg.Rate > 0 {
		rep.Loop = "open"
	}
	if rep.Latency == nil {
		rep.Latency = &Latency{}
	}
	if r.n > 0 && r.last.After(r.start) {
		el := r.last.Sub(r.start)
		rep.ElapsedSec = el.Seconds()
		rep.Throughput = float64(r.n) / el.Seconds()
		if cpu > 0 {
			rep.CPUPerRequestUs = float64(cpu.Microseconds()) / float64(r.n)
		}
	}
	if len(r.perOp) > 1 {
		rep.Ops = map[string]*OpStats{}
		for name, st := range r.perOp {
			rep.Ops[name] = &OpStats{Requests: st.n, Errors: st.errs, Latency: summary(st.h)}
		}
	}
	rep.Noise = r.noise()
	rep.Histogram = buckets(r.total)
	return rep
}

// noise is the standard error of the throughput and the percentiles, relative to their values, from the spread of
// the full 200 ms windows (batch means); nil with fewer than four windows.
func (r *recorder) noise() map[string]float64 {
	var ws []*window
	for i, w := range r.windows {
		// The last window is partial; an empty one (a stall) still counts for the throughput.
		if i < len(r.windows)-1 {
			ws = append(ws, w)
		}
	}
	if len(ws) < 4 {
		return nil
	}
	out := map[string]float64{}
	rel := func(xs []float64) float64 {
		m, v := 0.0, 0.0
		for _, x := range xs {
			m += x
		}
		m /= float64(len(xs))
		if m == 0 {
			return 0
		}
		for _, x := range xs {
			v += (x - m) * (x - m)
		}
		v /= float64(len(xs) - 1)
		return math.Sqrt(v/float64(len(xs))) / m
	}
	counts := make([]float64, len(ws))
	for i, w := range ws {
		counts[i] = float64(w.n)
	}
	out["throughput"] = rel(counts)
	for _, q := range []struct {
		name string
		q    float64
	}{{"p50", 50}, {"p90", 90}, {"p99", 99}} {
		var xs []float64
		for _, w := range ws {
			if w.n > 0 {
				xs = append(xs, float64(w.h.ValueAtQuantile(q.q)))
			}
		}
		if len(xs) >= 4 {
			out[q.name] = rel(xs)
		}
	}
	return out
}

// buckets lays the distribution out in at most 12 buckets, log-spaced between the smallest and largest latency.
func buckets(h *hdrhistogram.Histogram) []Bucket {
	if h.TotalCount() == 0 {
		return nil
	}
	lo, hi := float64(max(h.Min(), 1)), float64(max(h.Max(), 1))
	n := 12
	if hi/lo < 1.05 {
		return []Bucket{{UpToMs: ms(h.Max()), Count: h.TotalCount()}}
	}
	step := math.Pow(hi/lo, 1/float64(n))
	out := make([]Bucket, n)
	for i := range out {
		out[i].UpToMs = lo * math.Pow(step, float64(i+1)) / 1000
	}
	out[n-1].UpToMs = ms(h.Max())
	for _, b := range h.Distribution() {
		if b.Count == 0 {
			continue
		}
		v := float64(b.From+b.To) / 2 / 1000
		i := sort.Search(n, func(i int) bool { return out[i].UpToMs >= v })
		if i == n {
			i = n - 1
		}
		out[i].Count += b.Count
	}
	return out
}

package bench

import (
	"fmt"
	"io"
	"math"
	"sort"
	"strings"
)

// WriteText prints the report for a person; bars adds the compact histogram (on a terminal).
func (r *Report) WriteText(w io.Writer, bars bool) {
	p := func(format string, a ...any) { fmt.Fprintf(w, format, a...) }
	loop := fmt.Sprintf("closed loop, %d %s", r.Workers, plural(r.Workers, "worker"))
	if r.Loop == "open" {
		loop = fmt.Sprintf("open loop at %g/s, up to %d in flight", r.Rate, r.Workers)
	}
	p("%s %s %s: %s, %s\n", r.Target.URL, r.Target.Transport, r.Target.Version, r.Mode, loop)
	if r.Interrupted {
		p("interrupted: a partial report\n")
	}
	p("requests    %d in %.2fs, %d errors\n", r.Requests, r.ElapsedSec, r.Errors)
	p("throughput  %.1f req/s", r.Throughput)
	if r.CPUPerRequestUs > 0 {
		p("  (a2a used %.0f µs of CPU per request)", r.CPUPerRequestUs)
	}
	p("\n")
	line := func(name string, l *Latency) {
		if l == nil || l.Count == 0 {
			return
		}
		p("%-11s p50 %s  p90 %s  p99 %s  p99.9 %s  max %s\n", name, fmtMs(l.P50), fmtMs(l.P90), fmtMs(l.P99), fmtMs(l.P999), fmtMs(l.Max))
	}
	line("latency", r.Latency)
	line("first event", r.FirstEvent)
	line("event gap", r.EventGap)
	for _, name := range sortedKeys(r.Ops) {
		o := r.Ops[name]
		p("  %-9s %d requests, %d errors", name, o.Requests, o.Errors)
		if l := o.Latency; l != nil {
			p(": p50 %s  p99 %s  max %s", fmtMs(l.P50), fmtMs(l.P99), fmtMs(l.Max))
		}
		p("\n")
	}
	if len(r.States) > 0 {
		p("states      %s\n", counts(r.States))
	}
	if len(r.ErrorsBy) > 0 {
		p("errors      %s\n", counts(r.ErrorsBy))
	}
	if bars && len(r.Histogram) > 1 {
		var most int64
		for _, b := range r.Histogram {
			most = max(most, b.Count)
		}
		for _, b := range r.Histogram {
			n := int(math.Ceil(float64(b.Count) / float64(most) * 40))
			p("  ≤ %9s %7d %s\n", fmtMs(b.UpToMs), b.Count, strings.Repeat("▇", n))
		}
	}
}

func fmtMs(v float64) string {
	switch {
	case v >= 1000:
		return fmt.Sprintf("%.2fs", v/1000)
	case v >= 100:
		return fmt.Sprintf("%.0fms", v)
	case v >= 10:
		return fmt.Sprintf("%.1fms", v)
	default:
		return fmt.Sprintf("%.2fms", v)
	}
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// counts is "a 3, b 1": the most frequent first.
func counts(m map[string]int64) string {
	keys := sortedKeys(m)
	sort.SliceStable(keys, func(i, j int) bool { return m[keys[i]] > m[keys[j]] })
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s %d", k, m[k])
	}
	return strings.Join(parts, ", ")
}

// Delta is one statistic of a comparison.
type Delta struct {
	Name        string  `json:"name"`
	Before      float64 `json:"before"`
	Now         float64 `json:"now"`
	Change      float64 `json:"change"` // (now - before) / before
	BeyondNoise bool    `json:"beyondNoise"`
}

// Compare is the change from prev to r of the throughput and the percentiles. A change is beyond the noise when it
// exceeds three standard errors of the two runs together (each run's own, or the other's when one has none).
func (r *Report) Compare(prev *Report) []Delta {
	type stat struct {
		name      string
		now, then float64
	}
	stats := []stat{{"throughput", r.Throughput, prev.Throughput}}
	if r.Latency != nil && prev.Latency != nil {
		stats = append(stats, stat{"p50", r.Latency.P50, prev.Latency.P50}, stat{"p90", r.Latency.P90, prev.Latency.P90},
			stat{"p99", r.Latency.P99, prev.Latency.P99}, stat{"p99.9", r.Latency.P999, prev.Latency.P999},
			stat{"max", r.Latency.Max, prev.Latency.Max})
	}
	var out []Delta
	for _, s := range stats {
		d := Delta{Name: s.name, Before: s.then, Now: s.now}
		if s.then != 0 {
			d.Change = (s.now - s.then) / s.then
		}
		a, aok := r.Noise[s.name]
		b, bok := prev.Noise[s.name]
		if !aok {
			a = b
		}
		if !bok {
			b = a
		}
		if aok || bok {
			d.BeyondNoise = math.Abs(d.Change) > 3*math.Sqrt(a*a+b*b)
		}
		out = append(out, d)
	}
	return out
}

// WriteDeltas prints a comparison; "!" marks a change beyond the noise.
func WriteDeltas(w io.Writer, ds []Delta) {
	fmt.Fprintf(w, "compared with the previous run (! beyond this run's noise):\n")
	for _, d := range ds {
		mark := " "
		if d.BeyondNoise {
			mark = "!"
		}
		before, now := fmtMs(d.Before), fmtMs(d.Now)
		if d.Name == "throughput" {
			before, now = fmt.Sprintf("%.1f/s", d.Before), fmt.Sprintf("%.1f/s", d.Now)
		}
		fmt.Fprintf(w, "%s %-10s %10s -> %-10s %+6.1f%%\n", mark, d.Name, before, now, d.Change*100)
	}
}

func plural(n int, word string) string {
	if n == 1 {
		return word
	}
	return word + "s"
}

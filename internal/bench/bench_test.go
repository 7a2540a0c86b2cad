package bench

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// TestMixIsExact: every sum of the weights sends each op its weight's share.
func TestMixIsExact(t *testing.T) {
	ops := []Op{{Name: "a", Weight: 3}, {Name: "b", Weight: 1}, {Name: "c", Weight: 2}}
	n := map[string]int{}
	for k := int64(0); k < 600; k++ {
		n[pick(ops, 6, k).Name]++
	}
	if n["a"] != 300 || n["b"] != 100 || n["c"] != 200 {
		t.Fatalf("mix %v, want a 300, b 100, c 200", n)
	}
}

// TestRunCountsWarmupAndErrors: the count bounds the measured requests only, the warm-up's are sent but not
// counted, errors go to their class and out of the latencies, an interrupted request ("" class) is dropped.
func TestRunCountsWarmupAndErrors(t *testing.T) {
	var sent atomic.Int64
	boom := errors.New("boom")
	op := Op{Name: "send", Weight: 1, Do: func(ctx context.Context, s *Sample) {
		k := sent.Add(1)
		work(ctx, time.Millisecond) // the request's own work
		switch {
		case k%10 == 0:
			s.Err = boom
		default:
			s.State = "completed"
		}
	}}
	rep := Run(context.Background(), Config{Workers: 2, Count: 100, Warmup: 50 * time.Millisecond, Ops: []Op{op},
		Classify: func(error) string { return "x" }}, nil)
	if rep.Requests != 100 || sent.Load() <= 100 {
		t.Fatalf("%d measured of %d sent, want 100 measured and a warm-up before", rep.Requests, sent.Load())
	}
	if rep.Errors+rep.States["completed"] != 100 || rep.ErrorsBy["x"] != rep.Errors || rep.Latency.Count != rep.States["completed"] {
		t.Fatalf("errors and states do not add up: %+v", rep)
	}
	if rep.Latency.P50 < 1 || rep.Latency.Max > 1000 {
		t.Fatalf("latencies %+v, want about 1 ms", rep.Latency)
	}
}

// TestOpenLoopTimesFromIntendedStart: in an open loop a request that waits for a free worker is timed from when it
// should have started; in a closed loop from when it did.
func TestOpenLoopTimesFromIntendedStart(t *testing.T) {
	op := Op{Name: "send", Weight: 1, Do: func(ctx context.Context, s *Sample) { work(ctx, 20*time.Millisecond) }}
	// One worker, 100 requests a second, 20 ms each: the n-th request starts 10n ms late.
	rep := Run(context.Background(), Config{Workers: 1, Count: 20, Rate: 100, Ops: []Op{op}, Classify: func(error) string { return "x" }}, nil)
	if rep.Loop != "open" || rep.Latency.P50 < 100 || rep.Latency.Max < 180 {
		t.Fatalf("open loop p50 %.1f ms, max %.1f ms; want about 120 and 210 ms (the backlog counted)", rep.Latency.P50, rep.Latency.Max)
	}
	rep = Run(context.Background(), Config{Workers: 1, Count: 20, Ops: []Op{op}, Classify: func(error) string { return "x" }}, nil)
	if rep.Loop != "closed" || rep.Latency.P50 > 60 {
		t.Fatalf("closed loop p50 %.1f ms, want about 20 ms", rep.Latency.P50)
	}
}

// TestInterruptedRunReports: a canceled context ends the run with what was measured, marked interrupted.
func TestInterruptedRunReports(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	var n atomic.Int64
	op := Op{Name: "send", Weight: 1, Do: func(ctx context.Context, s *Sample) {
		if n.Add(1) == 30 {
			cancel()
		}
		if ctx.Err() != nil {
			s.Err = ctx.Err()
		}
	}}
	rep := Run(ctx, Config{Workers: 1, Duration: time.Hour, Ops: []Op{op}, Classify: func(error) string { return "" }}, nil)
	if !rep.Interrupted || rep.Requests != 29 || rep.Errors != 0 {
		t.Fatalf("want 29 requests, interrupted, no errors: %+v", rep)
	}
}

// TestCompareMarksBeyondNoise: a change beyond three combined standard errors is marked, a smaller one is not.
func TestCompareMarksBeyondNoise(t *testing.T) {
	prev := &Report{Throughput: 100, Latency: &Latency{P50: 10}, Noise: map[string]float64{"throughput": 0.01, "p50": 0.1}}
	now := &Report{Throughput: 110, Latency: &Latency{P50: 12}, Noise: map[string]float64{"throughput": 0.01, "p50": 0.1}}
	got := map[string]bool{}
	for _, d := range now.Compare(prev) {
		got[d.Name] = d.BeyondNoise
	}
	if !got["throughput"] || got["p50"] {
		t.Fatalf("want +10%% throughput (noise 1%%) marked, +20%% p50 (noise 10%%) not: %v", got)
	}
}

// TestWriteText: the text report names the run, its counts and percentiles, each op of a mix on one line, and
// draws the histogram only when asked (on a terminal).
func TestWriteText(t *testing.T) {
	op := func(name string) Op {
		return Op{Name: name, Weight: 1, Do: func(ctx context.Context, s *Sample) { s.State = "completed" }}
	}
	rep := Run(context.Background(), Config{Workers: 1, Count: 40, Ops: []Op{op("send"), op("get")}, Classify: func(error) string { return "x" }}, nil)
	rep.Mode, rep.Target = "send+get", Target{URL: "http://127.0.0.1:1", Transport: "JSONRPC", Version: "1.0"}
	rep.Histogram = []Bucket{{UpToMs: 1, Count: 10}, {UpToMs: 2, Count: 30}} // the ops above take about no time
	var plain, bars strings.Builder
	rep.WriteText(&plain, false)
	rep.WriteText(&bars, true)
	for _, want := range []string{"http://127.0.0.1:1 JSONRPC 1.0: send+get, closed loop, 1 worker\n", "requests    40 in ",
		"\n  get       20 requests, 0 errors: p50 ", "\n  send      20 requests, 0 errors: p50 ", "\nstates      completed 40\n"} {
		if !strings.Contains(plain.String(), want) {
			t.Errorf("text report lacks %q:\n%s", want, plain.String())
		}
	}
	if strings.Contains(plain.String(), "▇") || !strings.Contains(bars.String(), "▇") {
		t.Errorf("bars only when asked:\n%s\n%s", plain.String(), bars.String())
	}
}

// work stands for a request that takes d (or ends with ctx): an operation's own duration, not synchronisation.
func work(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
}

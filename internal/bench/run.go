package bench

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

// Sample is what one request tells the runner beyond its start and end.
type Sample struct {
	FirstAt time.Time       // when the first event arrived (streams); zero otherwise
	Gaps    []time.Duration // the time between consecutive events (streams)
	State   string          // the final task state, "message" for a message answer, "" when unknown
	ID      string          // the task the request made or read, "" when none (Config.Trace records it)
	Err     error
}

// Done is one finished request as Config.Trace sees it, warm-up included.
type Done struct {
	Op       string
	Intended time.Time // when it should have started (open loop) or started
	End      time.Time
	Sample   *Sample
	Class    string // the error's class; "" when it succeeded or was interrupted
	Measured bool   // false in the warm-up
}

// Op is one kind of request, chosen Weight times in every sum of the weights.
type Op struct {
	Name   string
	Weight int
	Do     func(ctx context.Context, s *Sample)
}

// Config says how to drive the Ops.
type Config struct {
	Workers  int           // concurrent requests at most
	Count    int           // measured requests (0: no bound)
	Duration time.Duration // measured time (0: no bound); Count or Duration must be set
	Rate     float64       // open loop: requests per second (0: closed loop)
	Warmup   time.Duration // time before measuring, its requests are not counted
	Ops      []Op
	// Classify names an error's class ("http 502", "a2a TASK_NOT_FOUND"); "" drops the sample (an interrupted request).
	Classify func(error) string
	// Trace, when set, sees every request when it ends (from many goroutines at once).
	Trace func(Done)
}

// Live is what a progress line reads while Run runs.
type Live struct {
	Done, Errors atomic.Int64
	started      atomic.Int64 // unix nanoseconds when the measured phase starts
}

// Measuring reports whether the warm-up is over, and since when the measured phase runs.
func (l *Live) Measuring(now time.Time) (time.Duration, bool) {
	s := l.started.Load()
	if s == 0 || now.UnixNano() < s {
		return 0, false
	}
	return now.Sub(time.Unix(0, s)), true
}

const (
	lowestUs  = 1
	highestUs = int64(time.Hour / time.Microsecond)
	sigFigs   = 3
	// windowLen and maxWindows make the batches the noise of a run is estimated from.
	windowLen  = 200 * time.Millisecond
	maxWindows = 300
	maxClasses = 32
)

func newHist() *hdrhistogram.Histogram { return hdrhistogram.New(lowestUs, highestUs, sigFigs) }

func record(h *hdrhistogram.Histogram, d time.Duration) {
	us := d.Microseconds()
	if us < lowestUs {
		us = lowestUs
	}
	if us > highestUs {
		us = highestUs
	}
	_ = h.RecordValue(us) // cannot fail: clamped to the histogram's range
}

// recorder gathers the measured samples; one mutex, held for a few histogram updates per request.
type recorder struct {
	mu      sync.Mutex
	start   time.Time
	last    time.Time
	total   *hdrhistogram.Histogram
	first   *hdrhistogram.Histogram
	gaps    *hdrhistogram.Histogram
	perOp   map[string]*opStats
	errors  map[string]int64
	states  map[string]int64
	windows []*window
	n, errs int64
}

type opStats struct {
	n, errs int64
	h       *hdrhistogram.Histogram
}

type window struct {
	n int64
	h *hdrhistogram.Histogram
}

func (r *recorder) add(op string, intended, end time.Time, s *Sample, class string) {
	lat := end.Sub(intended)
	r.mu.Lock()
	defer r.mu.Unlock()
	r.n++
	if end.After(r.last) {
		r.last = end
	}
	st := r.perOp[op]
	if st == nil {
		st = &opStats{h: newHist()}
		r.perOp[op] = st
	}
	st.n++
	if s.Err != nil {
		r.errs++
		st.errs++
		if _, ok := r.errors[class]; !ok && len(r.errors) >= maxClasses {
			class = "other"
		}
		r.errors[class]++
		return
	}
	record(r.total, lat)
	record(st.h, lat)
	if !s.FirstAt.IsZero() {
		record(r.first, s.FirstAt.Sub(intended))
	}
	for _, g := range s.Gaps {
		record(r.gaps, g)
	}
	if s.State != "" {
		if _, ok := r.states[s.State]; ok || len(r.states) < maxClasses {
			r.states[s.State]++
		}
	}
	if i := int(end.Sub(r.start) / windowLen); i >= 0 && i < maxWindows {
		for len(r.windows) <= i {
			r.windows = append(r.windows, &window{h: hdrhistogram.New(lowestUs, highestUs, 2)})
		}
		r.windows[i].n++
		record(r.windows[i].h, lat)
	}
}

// pick is the op of the k-th request: the weights laid out in turn, so a mix is exact over every sum of weights.
func pick(ops []Op, total int, k int64) *Op {
	if len(ops) == 1 {
		return &ops[0]
	}
	w := int(k % int64(total))
	for i := range ops {
		if w < ops[i].Weight {
			return &ops[i]
		}
		w -= ops[i].Weight
	}
	return &ops[len(ops)-1]
}

// Run drives the agent as cfg says until the count or the duration is reached or ctx is done (then the report says
// Interrupted and holds what was measured).
func Run(ctx context.Context, cfg Config, live *Live) *Report {
	if live == nil {
		live = &Live{}
	}
	total := 0
	for _, o := range cfg.Ops {
		total += o.Weight
	}
	t0 := time.Now()
	measure := t0.Add(cfg.Warmup)
	live.started.Store(measure.UnixNano())
	var end time.Time
	if cfg.Duration > 0 {
		end = measure.Add(cfg.Duration)
	}
	rec := &recorder{start: measure, total: newHist(), first: newHist(), gaps: newHist(),
		perOp: map[string]*opStats{}, errors: map[string]int64{}, states: map[string]int64{}}
	cpu0 := cpuTime()

	var next, measured atomic.Int64
	var interval time.Duration
	if cfg.Rate > 0 {
		interval = time.Duration(float64(time.Second) / cfg.Rate)
	}
	one := func(k int64, intended time.Time, counted bool) {
		op := pick(cfg.Ops, total, k)
		s := &Sample{}
		op.Do(ctx, s)
		now := time.Now()
		class := ""
		if s.Err != nil {
			class = cfg.Classify(s.Err)
		}
		if cfg.Trace != nil {
			cfg.Trace(Done{Op: op.Name, Intended: intended, End: now, Sample: s, Class: class, Measured: counted})
		}
		if !counted {
			return
		}
		if s.Err != nil {
			if class == "" {
				return
			}
			live.Errors.Add(1)
		}
		live.Done.Add(1)
		rec.add(op.Name, intended, now, s, class)
	}
	// claim reports whether a request starting at (or intended for) at may go, and whether it is measured.
	claim := func(at time.Time) (ok, counted bool) {
		if at.Before(measure) {
			return true, false
		}
		if !end.IsZero() && !at.Before(end) {
			return false, false
		}
		if cfg.Count > 0 && measured.Add(1) > int64(cfg.Count) {
			return false, false
		}
		return true, true
	}
	var wg sync.WaitGroup
	for w := 0; w < cfg.Workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			timer := time.NewTimer(time.Hour)
			timer.Stop()
			for ctx.Err() == nil {
				k := next.Add(1) - 1
				var at time.Time
				if interval > 0 {
					at = t0.Add(time.Duration(k) * interval)
					if !end.IsZero() && !at.Before(end) {
						return
					}
					if d := time.Until(at); d > 0 {
						timer.Reset(d)
						select {
						case <-ctx.Done():
							timer.Stop()
							return
						case <-timer.C:
						}
					}
				} else {
					at = time.Now()
				}
				ok, counted := claim(at)
				if !ok {
					return
				}
				one(k, at, counted)
			}
		}()
	}
	wg.Wait()
	return rec.report(cfg, ctx.Err() != nil, cpuTime()-cpu0)
}

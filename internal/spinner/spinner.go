// Package spinner owns the progress line a waiting command shows on a terminal: a frame, the elapsed time and what
// is awaited, redrawn in place and erased at the end. The caller decides whether it may run at all (a terminal, no
// JSON, no -v); a spinner that may not does nothing.
//
// It is a small ticker rather than a library: the maintained spinner libraries cost 0.04-0.07 ms and 100-150
// allocations at every start of the program (package init, measured with GODEBUG=inittrace=1: briandowns/spinner
// v1.23.2, theckman/yacspin v0.13.12) and want an *os.File, where a2a writes to injected streams.
//
// It must not import any other package of this repository but output (to sanitise the label).
package spinner

import (
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/a2acli/a2a/internal/output"
)

// Spinner shows that a wait is alive. The zero of its methods' receivers (nil) and a spinner started off do nothing.
type Spinner struct {
	w     io.Writer
	mu    sync.Mutex
	label string
	start time.Time
	done  chan struct{}
	wg    sync.WaitGroup
	drawn bool
}

var frames = []string{"⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"}

// Interval is how often the line is redrawn. The first frame waits one interval, so a quick answer shows none.
const Interval = 120 * time.Millisecond

// Start starts a spinner writing to w when on is set; else it returns a spinner whose methods do nothing.
func Start(w io.Writer, on bool, label string) *Spinner {
	if !on {
		return &Spinner{w: w, label: label}
	}
	t := time.NewTicker(Interval)
	return start(w, label, t.C, t.Stop)
}

// start runs a spinner that draws a frame on every tick; stop ends the ticks.
func start(w io.Writer, label string, tick <-chan time.Time, stop func()) *Spinner {
	s := &Spinner{w: w, label: label, start: time.Now(), done: make(chan struct{})}
	s.wg.Add(1)
	go s.loop(tick, stop)
	return s
}

func (s *Spinner) loop(tick <-chan time.Time, stop func()) {
	defer s.wg.Done()
	defer stop()
	for i := 0; ; i++ {
		select {
		case <-s.done:
			return
		case <-tick:
		}
		s.mu.Lock()
		el := time.Since(s.start).Truncate(100 * time.Millisecond)
		fmt.Fprintf(s.w, "\r\x1b[K%s %s %s", frames[i%len(frames)], el, output.Sanitize(s.label))
		s.drawn = true
		s.mu.Unlock()
	}
}

// Set changes what the spinner says it waits for.
func (s *Spinner) Set(label string) {
	if s == nil {
		return
	}
	s.mu.Lock()
	s.label = label
	s.mu.Unlock()
}

// Stop ends the spinner and erases its line; safe to call more than once, from the goroutine that started it.
func (s *Spinner) Stop() {
	if s == nil || s.done == nil {
		return
	}
	close(s.done)
	s.wg.Wait()
	s.done = nil
	if s.drawn {
		fmt.Fprint(s.w, "\r\x1b[K")
	}
}

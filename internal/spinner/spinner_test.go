package spinner

import (
	"strings"
	"testing"
	"time"
)

// writes is a writer that hands every write to the test.
type writes chan string

func (f writes) Write(p []byte) (int, error) {
	f <- string(p)
	return len(p), nil
}

func next(t *testing.T, f writes) string {
	t.Helper()
	select {
	case s := <-f:
		return s
	case <-time.After(10 * time.Second):
		t.Fatal("no frame within 10s of a tick")
		return ""
	}
}

// TestSpinnerDrawsAndErases: each tick redraws the line in place (carriage return, erase) with the label, a new
// label shows on the next tick with its escape sequences neutralised, and Stop erases the line.
func TestSpinnerDrawsAndErases(t *testing.T) {
	t.Parallel()
	w := make(writes, 4)
	tick := make(chan time.Time)
	s := start(w, "waiting", tick, func() {})
	tick <- time.Now()
	if f := next(t, w); !strings.HasPrefix(f, "\r\x1b[K") || !strings.HasSuffix(f, " waiting") {
		t.Errorf("first frame %q", f)
	}
	s.Set("task t1 \x1b[31mworking")
	tick <- time.Now()
	f := next(t, w)
	if !strings.Contains(f, "task t1 ") || strings.Contains(f, "\x1b[31m") {
		t.Errorf("frame after Set %q: want the label, its escape sequence neutralised", f)
	}
	s.Stop()
	if f := next(t, w); f != "\r\x1b[K" {
		t.Errorf("Stop wrote %q, want the line erased", f)
	}
	s.Stop() // twice is fine
}

// TestSpinnerOff: a spinner started off runs nothing and writes nothing; a nil one is safe too.
func TestSpinnerOff(t *testing.T) {
	t.Parallel()
	w := make(writes, 4)
	s := Start(w, false, "waiting")
	s.Set("x")
	s.Stop()
	if s.done != nil || len(w) != 0 {
		t.Errorf("an off spinner runs (%v) or wrote %d writes", s.done != nil, len(w))
	}
	var nilSpinner *Spinner
	nilSpinner.Set("x")
	nilSpinner.Stop()
}

// TestSpinnerStopBeforeAnyFrame: a quick answer stops the spinner before its first frame: nothing is drawn or erased.
func TestSpinnerStopBeforeAnyFrame(t *testing.T) {
	t.Parallel()
	w := make(writes, 4)
	stopped := false
	s := start(w, "waiting", make(chan time.Time), func() { stopped = true })
	s.Stop()
	if len(w) != 0 || !stopped {
		t.Errorf("wrote %d writes, ticker stopped %v; want nothing drawn and the ticker stopped", len(w), stopped)
	}
}

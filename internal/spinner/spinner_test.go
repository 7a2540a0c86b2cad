package spinner

import (
	"bytes"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/a2acli/a2a/third_party/charmbracelet/x/ansi"
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

// none fails if anything was written.
func none(t *testing.T, f writes) {
	t.Helper()
	select {
	case s := <-f:
		t.Fatalf("unexpected write %q", s)
	default:
	}
}

// TestSpinnerDrawsAndErases: each tick redraws the line in place (carriage return, erase) with the label and leaves
// the cursor at the start of the line (a line another process writes there overwrites the frame instead of being
// appended to it), a new label shows on the next tick with its escape sequences neutralised, and Stop erases the line.
func TestSpinnerDrawsAndErases(t *testing.T) {
	t.Parallel()
	w := make(writes, 4)
	tick := make(chan time.Time)
	s := NewTerminal(w, nil).start("waiting", tick, func() {})
	tick <- time.Now()
	if f := next(t, w); !strings.HasPrefix(f, "\r\x1b[K") || !strings.HasSuffix(f, " waiting\r") {
		t.Errorf("first frame %q, want it drawn from the start of the line and the cursor back there", f)
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
	none(t, w)
}

// TestSpinnerOff: a spinner started off, or on no terminal, runs nothing and writes nothing; a nil one is safe too.
func TestSpinnerOff(t *testing.T) {
	t.Parallel()
	w := make(writes, 4)
	s := NewTerminal(w, nil).Start(false, "waiting")
	s.Set("x")
	s.Stop()
	if s.done != nil || len(w) != 0 {
		t.Errorf("an off spinner runs (%v) or wrote %d writes", s.done != nil, len(w))
	}
	var noTerm *Terminal
	s = noTerm.Start(true, "waiting")
	s.Stop()
	if s.done != nil {
		t.Error("a spinner on a nil Terminal runs")
	}
	var buf bytes.Buffer
	if noTerm.Writer(&buf) != &buf {
		t.Error("a nil Terminal's Writer is not the stream itself")
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
	s := NewTerminal(w, nil).start("waiting", make(chan time.Time), func() { stopped = true })
	s.Stop()
	if len(w) != 0 || !stopped {
		t.Errorf("wrote %d writes, ticker stopped %v; want nothing drawn and the ticker stopped", len(w), stopped)
	}
}

// TestOutputErasesFrame: what the command writes to the terminal (stdout or stderr) while a frame is on the screen
// erases the frame first, so the answer never lands on the spinner's line (it used to be erased only at Stop, after
// the answer: "⠙ 1.4s task … workingTask ID: …"). The next frame comes back below a finished line, and Stop erases
// only a frame that is on the screen.
func TestOutputErasesFrame(t *testing.T) {
	t.Parallel()
	w := make(writes, 8)
	term := NewTerminal(w, nil)
	out := term.Writer(w)
	tick := make(chan time.Time)
	s := term.start("waiting", tick, func() {})
	tick <- time.Now()
	next(t, w) // a frame
	if _, err := out.Write([]byte("Task ID: t1\n")); err != nil {
		t.Fatal(err)
	}
	if got := next(t, w); got != "\r\x1b[K" {
		t.Errorf("before the output: %q, want the frame erased", got)
	}
	if got := next(t, w); got != "Task ID: t1\n" {
		t.Errorf("output %q", got)
	}
	if _, err := out.Write([]byte("State: working\n")); err != nil {
		t.Fatal(err)
	}
	if got := next(t, w); got != "State: working\n" {
		t.Errorf("with no frame on the screen, the output comes alone; got %q", got)
	}
	tick <- time.Now()
	if got := next(t, w); !strings.HasSuffix(got, " waiting\r") {
		t.Errorf("after a finished line the spinner goes on; got %q", got)
	}
	s.Stop()
	if got := next(t, w); got != "\r\x1b[K" {
		t.Errorf("Stop wrote %q", got)
	}
	none(t, w)
}

// TestNoFrameMidLine: output that did not end its line (a raw chunk) is not wiped by the next frame: frames wait
// until a newline.
func TestNoFrameMidLine(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var screen bytes.Buffer
	term := NewTerminal(lockedWriter{&mu, &screen}, nil)
	out := term.Writer(lockedWriter{&mu, &screen})
	tick := make(chan time.Time)
	s := term.start("waiting", tick, func() {})
	out.Write([]byte("chunk 1 ")) //nolint:errcheck // a buffer
	tick <- time.Now()
	tick <- time.Now()
	s.Stop()                       // the loop handled both ticks
	out.Write([]byte("chunk 2\n")) //nolint:errcheck // a buffer
	mu.Lock()
	defer mu.Unlock()
	if got := screen.String(); got != "chunk 1 chunk 2\n" {
		t.Errorf("screen %q, want the chunks alone (no frame over an unfinished line)", got)
	}
}

type lockedWriter struct {
	mu *sync.Mutex
	w  *bytes.Buffer
}

func (l lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// TestFrameCutToWidth: in a pane narrower than the line, a frame is cut to one cell short of the width (a line that
// wrapped scrolled a new line by on every tick), and the width is asked again at each frame (a pane is resized).
func TestFrameCutToWidth(t *testing.T) {
	t.Parallel()
	w := make(writes, 4)
	var mu sync.Mutex
	width := 20
	term := NewTerminal(w, func() int { mu.Lock(); defer mu.Unlock(); return width })
	tick := make(chan time.Time)
	label := "task 019a6c5e-0000-7000-8000-00000000abcd working"
	s := term.start(label, tick, func() {})
	defer s.Stop()
	for _, cols := range []int{20, 8, 200} {
		mu.Lock()
		width = cols
		mu.Unlock()
		tick <- time.Now()
		f := strings.TrimSuffix(strings.TrimPrefix(next(t, w), "\r\x1b[K"), "\r")
		if cols < 200 && ansi.StringWidth(f) != cols-1 {
			t.Errorf("width %d: frame %q is %d cells, want %d", cols, f, ansi.StringWidth(f), cols-1)
		}
		if cols == 200 && !strings.HasSuffix(f, label) {
			t.Errorf("width %d: frame %q, want it whole", cols, f)
		}
	}
}

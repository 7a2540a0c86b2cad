// Package spinner owns the progress line a waiting command shows on a terminal: a frame, the elapsed time and what
// is awaited, redrawn in place and erased at the end. The caller decides whether it may run at all (a terminal, no
// JSON, no -v); a spinner that may not does nothing.
//
// The line shares its terminal with everything else the command writes (stdout and stderr are often the same tty):
// a Terminal hands out writers that erase the line before their bytes go out, and a frame is drawn only where the
// cursor is at the start of a line, so output never lands behind a frame or is wiped by one. A frame leaves the
// cursor at the start of its line, so what another process writes there (a background a2a serve's log) replaces it.
// A frame is cut to the terminal's width: a line that wrapped could not be redrawn in place.
//
// It is a small ticker rather than a library: the maintained spinner libraries cost 0.04-0.07 ms and 100-150
// allocations at every start of the program (package init, measured with GODEBUG=inittrace=1: briandowns/spinner
// v1.23.2, theckman/yacspin v0.13.12) and want an *os.File, where a2a writes to injected streams.
//
// It must not import any other package of this repository but output (to sanitise the label); x/ansi measures cells.
package spinner

import (
	"bytes"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/a2acli/a2a/internal/output"
	"github.com/a2acli/a2a/third_party/charmbracelet/x/ansi"
)

// erase moves to the start of the line and clears it.
const erase = "\r\x1b[K"

// Terminal is the terminal a spinner draws on, shared with what the command writes there.
type Terminal struct {
	w     io.Writer
	width func() int
	mu    sync.Mutex
	drawn bool // a frame is on the screen
	// midLine: the last bytes written through the terminal's writers did not end a line, so a frame would overwrite
	// them; frames wait for a newline.
	midLine bool
}

// NewTerminal returns the terminal the spinner draws on through w. width reports its width in cells now (a pane may be
// resized while a spinner runs); nil, or a result below 1, means unknown, and frames are not cut.
func NewTerminal(w io.Writer, width func() int) *Terminal {
	return &Terminal{w: w, width: width}
}

// Writer returns a writer to out, a stream that shows on the same terminal (stderr, or stdout when it is the
// terminal too): each write first erases a frame on the screen. A nil Terminal returns out.
func (t *Terminal) Writer(out io.Writer) io.Writer {
	if t == nil {
		return out
	}
	return &guard{t: t, out: out}
}

type guard struct {
	t   *Terminal
	out io.Writer
}

func (g *guard) Write(p []byte) (int, error) {
	if len(p) == 0 {
		return g.out.Write(p)
	}
	t := g.t
	t.mu.Lock()
	defer t.mu.Unlock()
	t.clear()
	n, err := g.out.Write(p)
	if n > 0 {
		t.midLine = !bytes.HasSuffix(p[:n], []byte("\n"))
	}
	return n, err
}

// clear erases a frame on the screen; t.mu is held.
func (t *Terminal) clear() {
	if t.drawn {
		io.WriteString(t.w, erase) //nolint:errcheck // a terminal that fails a write fails the next one too, which reports it
		t.drawn = false
	}
}

// draw shows line in place of the previous frame, cut to the terminal's width; nothing while a line is unfinished.
// The cursor goes back to the start of the line after the frame: a line another process writes to the same terminal
// (a2a serve started with & beside the client, as the README's tour does) then overwrites the frame instead of
// being appended to it ("⠹ 1.5s task … working2026-11-27T06:49:23Z 127.0.0.1:48052 SendStreamingMessage …"), and the
// next frame is drawn below it.
func (t *Terminal) draw(line string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.midLine {
		return
	}
	if t.width != nil {
		// One cell short of the width: a line that fills the last column leaves some terminals' cursor on the
		// next line.
		if w := t.width(); w > 1 && ansi.StringWidth(line) >= w {
			line = ansi.Truncate(line, w-1, "")
		}
	}
	io.WriteString(t.w, erase+line+"\r") //nolint:errcheck // see clear
	t.drawn = true
}

// Spinner shows that a wait is alive. The zero of its methods' receivers (nil) and a spinner started off do nothing.
type Spinner struct {
	t     *Terminal
	mu    sync.Mutex
	label string
	start time.Time
	done  chan struct{}
	wg    sync.WaitGroup
}

var frames = []string{"⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"}

// Interval is how often the line is redrawn. The first frame waits one interval, so a quick answer shows none.
const Interval = 120 * time.Millisecond

// Start starts a spinner on t when on is set; else, or on a nil Terminal, it returns a spinner whose methods do
// nothing.
func (t *Terminal) Start(on bool, label string) *Spinner {
	if !on || t == nil {
		return &Spinner{label: label}
	}
	tk := time.NewTicker(Interval)
	return t.start(label, tk.C, tk.Stop)
}

// start runs a spinner that draws a frame on every tick; stop ends the ticks.
func (t *Terminal) start(label string, tick <-chan time.Time, stop func()) *Spinner {
	s := &Spinner{t: t, label: label, start: time.Now(), done: make(chan struct{})}
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
		label := s.label
		s.mu.Unlock()
		el := time.Since(s.start).Truncate(100 * time.Millisecond)
		s.t.draw(fmt.Sprintf("%s %s %s", frames[i%len(frames)], el, output.Sanitize(label)))
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
	s.t.mu.Lock()
	s.t.clear()
	s.t.mu.Unlock()
}

package spinner

import (
	"strings"
	"testing"
	"time"

	"github.com/a2acli/a2a/internal/syncbuf"
)

func TestSpinnerDrawsAndErases(t *testing.T) {
	t.Parallel()
	var w syncbuf.Buffer
	s := Start(&w, true, "waiting")
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(w.String(), "waiting") {
		if time.Now().After(deadline) {
			t.Fatal("no frame within 10s")
		}
		time.Sleep(Interval / 4) // polling a buffer the spinner writes on its own clock
	}
	s.Set("task t1 \x1b[31mworking")
	for !strings.Contains(w.String(), "task t1 ") {
		if time.Now().After(deadline) {
			t.Fatal("the new label never drawn")
		}
		time.Sleep(Interval / 4)
	}
	s.Stop()
	s.Stop() // twice is fine
	out := w.String()
	if !strings.HasPrefix(out, "\r\x1b[K") || !strings.HasSuffix(out, "\r\x1b[K") {
		t.Errorf("frames not redrawn in place and erased at the end: %q", out)
	}
	if strings.Contains(out, "\x1b[31m") {
		t.Errorf("the label's escape sequence reached the terminal: %q", out)
	}
}

func TestSpinnerOff(t *testing.T) {
	t.Parallel()
	var w syncbuf.Buffer
	s := Start(&w, false, "waiting")
	s.Set("x")
	time.Sleep(2 * Interval) // an off spinner must not draw even when given the time to
	s.Stop()
	var nilSpinner *Spinner
	nilSpinner.Set("x")
	nilSpinner.Stop()
	if w.String() != "" {
		t.Errorf("an off spinner wrote %q", w.String())
	}
}

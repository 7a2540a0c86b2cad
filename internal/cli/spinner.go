package cli

import (
	"fmt"
	"sync"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/a2acli/a2a/internal/output"
)

// spinner shows on stderr that a blocking call is alive: a frame, the elapsed time, and what is awaited (the task
// and its state once known). It is a tiny ticker rather than a library: one line, redrawn in place, erased at stop;
// nothing else writes to stderr meanwhile (it is off under -v).
type spinner struct {
	f     *factory
	mu    sync.Mutex
	label string
	start time.Time
	done  chan struct{}
	wg    sync.WaitGroup
	drawn bool
}

var spinnerFrames = []string{"⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"}

// spinnerInterval is how often the line is redrawn.
const spinnerInterval = 120 * time.Millisecond

// startSpinner starts a spinner when stderr is a terminal, the output is not JSON and -v is off; else it returns
// a spinner whose methods do nothing. The first frame waits one interval, so a quick answer shows none.
func (f *factory) startSpinner(label string) *spinner {
	s := &spinner{f: f, label: label, start: time.Now()}
	if !f.io.ErrTTY || f.opts.output == string(output.JSON) || f.opts.verbose || f.io.getenv("TERM") == "dumb" {
		return s
	}
	s.done = make(chan struct{})
	s.wg.Add(1)
	go s.loop()
	return s
}

func (s *spinner) loop() {
	defer s.wg.Done()
	t := time.NewTicker(spinnerInterval)
	defer t.Stop()
	for i := 0; ; i++ {
		select {
		case <-s.done:
			return
		case <-t.C:
		}
		s.mu.Lock()
		el := time.Since(s.start).Truncate(100 * time.Millisecond)
		fmt.Fprintf(s.f.io.Err, "\r\x1b[K%s %s %s", spinnerFrames[i%len(spinnerFrames)], el, output.Sanitize(s.label))
		s.drawn = true
		s.mu.Unlock()
	}
}

// set changes what the spinner says it waits for.
func (s *spinner) set(label string) {
	if s == nil {
		return
	}
	s.mu.Lock()
	s.label = label
	s.mu.Unlock()
}

// stop ends the spinner and erases its line; safe to call more than once.
func (s *spinner) stop() {
	if s == nil || s.done == nil {
		return
	}
	close(s.done)
	s.wg.Wait()
	s.done = nil
	if s.drawn {
		fmt.Fprint(s.f.io.Err, "\r\x1b[K")
	}
}

// spinnerTask is the spinner's label for a task being waited for.
func spinnerTask(t *a2a.Task) string {
	return fmt.Sprintf("task %s %s", t.ID, shortState(t.Status.State))
}

package cli

import (
	"fmt"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/a2acli/a2a/internal/output"
	"github.com/a2acli/a2a/internal/spinner"
)

// startSpinner starts a spinner on stderr when it is a terminal, the output is not JSON and -v is off.
func (f *factory) startSpinner(label string) *spinner.Spinner {
	on := f.io.ErrTTY && f.opts.output != string(output.JSON) && !f.opts.verbose && f.io.getenv("TERM") != "dumb"
	return f.term.Start(on, label)
}

// shareTerminal returns s with its terminal streams written through the spinner's Terminal (see package spinner):
// whatever the run writes there first erases a frame on the screen. Streams with no terminal stderr come back as
// they are, with a nil Terminal.
func shareTerminal(s *Streams) (*Streams, *spinner.Terminal) {
	if !s.ErrTTY {
		return s, nil
	}
	t := spinner.NewTerminal(s.Err, s.ErrWidth)
	ts := *s
	ts.Err = t.Writer(s.Err)
	if s.OutTTY {
		ts.Out = t.Writer(s.Out)
	}
	return &ts, t
}

// spinnerTask is the spinner's label for a task being waited for.
func spinnerTask(t *a2a.Task) string {
	return fmt.Sprintf("task %s %s", t.ID, shortState(t.Status.State))
}

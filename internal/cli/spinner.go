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
	return spinner.Start(f.io.Err, on, label)
}

// spinnerTask is the spinner's label for a task being waited for.
func spinnerTask(t *a2a.Task) string {
	return fmt.Sprintf("task %s %s", t.ID, shortState(t.Status.State))
}

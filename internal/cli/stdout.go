package cli

import (
	"errors"
	"io"

	"github.com/a2acli/a2a/internal/client"
	"github.com/a2acli/a2a/internal/output"
)

// flushJQ writes what --jq still holds.
func (f *factory) flushJQ() error {
	if f.jq == nil {
		return nil
	}
	return f.jq.Flush()
}

// stdout is the real standard output, beneath any --jq filter: error documents are not filtered.
func (f *factory) stdout() io.Writer {
	if f.jq != nil {
		return f.jq.Under()
	}
	return f.io.Out
}

// writeJSON writes one compact JSON document and a newline to stdout (through --jq when set).
func (f *factory) writeJSON(b []byte) error {
	_, err := f.io.Out.Write(append(b, '\n'))
	return err
}

// outputColor decides colour for what goes to stdout. The text contract (the a2a-cli specification, §11.2) carries
// no control sequences: text is coloured only when asked for (--color always, CLICOLOR_FORCE, FORCE_COLOR), never
// for being on a terminal, so its bytes are the same on a terminal and in a pipe. JSON is coloured only with
// --color always.
func (f *factory) outputColor() bool {
	if f.opts.output == string(output.JSON) {
		return f.io.ColorMode == "always" && f.jq == nil
	}
	return f.io.colorOn(false)
}

// withCmd gives a usage error the command it concerns, for the help hint.
func withCmd(err error, cmd string) error {
	var ue *client.UsageError
	if errors.As(err, &ue) && ue.Cmd == "" {
		ue.Cmd = cmd
	}
	return err
}

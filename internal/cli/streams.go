package cli

import (
	"bytes"
	"io"
)

// Streams is where a command reads and writes. Only cmd/a2a builds it from the process's real files
// (checking for a terminal once); tests use TestStreams.
type Streams struct {
	In             io.Reader
	Out, Err       io.Writer
	InTTY          bool
	OutTTY, ErrTTY bool
	// Getenv reads the environment; nil means an empty environment.
	Getenv func(string) string
	// Environ is the whole environment (KEY=value), for the processes a2a starts; nil means an empty one.
	Environ func() []string
	// Width is the terminal width of Out, 0 when Out is not a terminal.
	Width int
	// ErrWidth reports the terminal width of Err now (a pane may be resized while a spinner runs); nil, or a result
	// below 1, means unknown.
	ErrWidth func() int
	// ColorMode is --color: "always", "never", or "auto" (and "") to decide from the terminal and environment.
	ColorMode string
}

// TestStreams returns streams backed by buffers, with every terminal flag off.
func TestStreams() (s *Streams, in, out, errOut *bytes.Buffer) {
	in, out, errOut = &bytes.Buffer{}, &bytes.Buffer{}, &bytes.Buffer{}
	return &Streams{In: in, Out: out, Err: errOut, Getenv: func(string) string { return "" }}, in, out, errOut
}

func (s *Streams) getenv(k string) string {
	if s.Getenv == nil {
		return ""
	}
	return s.Getenv(k)
}

// ColorEnabled reports whether styled output may go to Out (see colorOn).
func (s *Streams) ColorEnabled() bool { return s.colorOn(s.OutTTY) }

// colorOn decides colour for a stream: --color always/never first; then NO_COLOR (set and non-empty: off),
// CLICOLOR_FORCE or FORCE_COLOR (set, not "0": on), CLICOLOR=0 (off); then a terminal whose TERM is not dumb.
func (s *Streams) colorOn(tty bool) bool {
	switch s.ColorMode {
	case "always":
		return true
	case "never":
		return false
	}
	if s.getenv("NO_COLOR") != "" {
		return false
	}
	for _, k := range []string{"CLICOLOR_FORCE", "FORCE_COLOR"} {
		if v := s.getenv(k); v != "" && v != "0" {
			return true
		}
	}
	if s.getenv("CLICOLOR") == "0" {
		return false
	}
	return tty && s.getenv("TERM") != "dumb"
}

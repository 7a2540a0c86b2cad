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
	// Width is the terminal width of Out, 0 when Out is not a terminal.
	Width int
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

// ColorEnabled reports whether styled output may go to Out: a terminal, NO_COLOR unset or empty,
// TERM not dumb; CLICOLOR_FORCE=1 forces it on for pipes.
func (s *Streams) ColorEnabled() bool {
	if s.getenv("NO_COLOR") != "" {
		return false
	}
	if f := s.getenv("CLICOLOR_FORCE"); f != "" && f != "0" {
		return true
	}
	return s.OutTTY && s.getenv("TERM") != "dumb"
}

// ErrColorEnabled is ColorEnabled for the Err stream.
func (s *Streams) ErrColorEnabled() bool {
	if s.getenv("NO_COLOR") != "" {
		return false
	}
	if f := s.getenv("CLICOLOR_FORCE"); f != "" && f != "0" {
		return true
	}
	return s.ErrTTY && s.getenv("TERM") != "dumb"
}

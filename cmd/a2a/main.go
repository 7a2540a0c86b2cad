// Command a2a is a command-line client and toolbox for the A2A (Agent2Agent) protocol.
package main

import (
	"context"
	"os"

	"golang.org/x/term"

	"github.com/a2acli/a2a/internal/cli"
)

func main() {
	os.Exit(cli.Main(context.Background(), os.Args[1:], systemStreams()))
}

// systemStreams returns the process's standard streams, with terminal detection done once.
func systemStreams() *cli.Streams {
	s := &cli.Streams{
		In:      os.Stdin,
		Out:     os.Stdout,
		Err:     os.Stderr,
		InTTY:   term.IsTerminal(int(os.Stdin.Fd())),
		OutTTY:  term.IsTerminal(int(os.Stdout.Fd())),
		ErrTTY:  term.IsTerminal(int(os.Stderr.Fd())),
		Getenv:  os.Getenv,
		Environ: os.Environ,
	}
	if s.OutTTY {
		if w, _, err := term.GetSize(int(os.Stdout.Fd())); err == nil {
			s.Width = w
		}
	}
	if s.ErrTTY {
		s.ErrWidth = func() int {
			w, _, err := term.GetSize(int(os.Stderr.Fd()))
			if err != nil {
				return 0
			}
			return w
		}
	}
	return s
}

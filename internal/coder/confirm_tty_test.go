//go:build linux

package coder

import (
	"context"
	"io"
	"runtime"
	"testing"
	"time"

	"github.com/creack/pty"
	"golang.org/x/sys/unix"
)

// promptSignal is a writer that reports each write: the question has been shown.
type promptSignal chan struct{}

func (p promptSignal) Write(b []byte) (int, error) {
	p <- struct{}{}
	return len(b), nil
}

// TestLineAskerDropsTypeahead: on a real terminal, a line typed before the permission question showed (an Enter
// pressed early would approve) is not its answer; the line typed after the question is.
func TestLineAskerDropsTypeahead(t *testing.T) {
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Skipf("no pseudo-terminal here: %v", err)
	}
	defer ptmx.Close()
	defer tty.Close()
	if _, err := io.WriteString(ptmx, "\n"); err != nil { // an early Enter, typed before any question
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for n, _ := unix.IoctlGetInt(int(tty.Fd()), unix.TIOCINQ); n == 0; n, _ = unix.IoctlGetInt(int(tty.Fd()), unix.TIOCINQ) {
		if time.Now().After(deadline) {
			t.Fatal("the early Enter never reached the terminal's input")
		}
		runtime.Gosched()
	}
	shown := make(promptSignal, 1)
	a := NewLineAsker(tty, shown)
	answers := make(chan string, 1)
	go func() {
		line, err := a.Ask(context.Background(), "Allow WriteFile? ")
		if err != nil {
			line = "error: " + err.Error()
		}
		answers <- line
	}()
	<-shown
	if _, err := io.WriteString(ptmx, "n\n"); err != nil {
		t.Fatal(err)
	}
	select {
	case got := <-answers:
		if got != "n" {
			t.Fatalf("ask() = %q, want the answer typed after the question (n)", got)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no answer within 10s")
	}
}

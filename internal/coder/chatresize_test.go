//go:build linux

package coder

import (
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"
)

// widths records the widths it is given.
type widths struct {
	mu  sync.Mutex
	got []int
	ch  chan struct{}
}

func (w *widths) SetSize(width, _ int) error {
	w.mu.Lock()
	w.got = append(w.got, width)
	w.mu.Unlock()
	w.ch <- struct{}{}
	return nil
}

// TestFollowResize: when the terminal is resized (SIGWINCH), the chat's line editor takes the new width.
func TestFollowResize(t *testing.T) {
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Skipf("no pseudo-terminal here: %v", err)
	}
	defer ptmx.Close()
	defer tty.Close()
	w := &widths{ch: make(chan struct{}, 4)}
	stop := FollowResize(int(tty.Fd()), w)
	defer stop()
	if err := pty.Setsize(ptmx, &pty.Winsize{Rows: 24, Cols: 33}); err != nil {
		t.Fatal(err)
	}
	// The resize signal goes to the terminal's foreground group, which this test is not: send it as the terminal would.
	if err := syscall.Kill(syscall.Getpid(), syscall.SIGWINCH); err != nil {
		t.Fatal(err)
	}
	select {
	case <-w.ch:
	case <-time.After(10 * time.Second):
		t.Fatal("no resize within 10s of SIGWINCH")
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.got) != 1 || w.got[0] != 33 {
		t.Fatalf("widths set = %v, want [33]", w.got)
	}
}

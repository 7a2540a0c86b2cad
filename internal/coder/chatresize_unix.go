//go:build unix

package coder

import (
	"os"
	"os/signal"
	"syscall"

	"golang.org/x/term"
)

// sizer is what FollowResize resizes: the chat's line editor.
type sizer interface{ SetSize(width, height int) error }

// FollowResize keeps t as wide as the terminal fd while the chat runs (x/term wraps and redraws the input line by
// that width), until stop is called.
func FollowResize(fd int, t sizer) (stop func()) {
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, syscall.SIGWINCH)
	done := make(chan struct{})
	go func() {
		for {
			select {
			case <-ch:
				if w, _, err := term.GetSize(fd); err == nil && w > 0 {
					_ = t.SetSize(w, 0) // x/term's SetSize cannot fail; only the width matters to line editing
				}
			case <-done:
				return
			}
		}
	}()
	return func() {
		signal.Stop(ch)
		close(done)
	}
}

//go:build !linux

package fdwatch

import (
	"errors"
	"testing"
)

func TestWatchUnsupported(t *testing.T) {
	h, err := Watch(0, Readable, func(Events) bool { return false })
	if !errors.Is(err, errors.ErrUnsupported) {
		t.Errorf("Watch() error = %v, want errors.ErrUnsupported", err)
	}
	h.Stop() // a nil Handle: must not panic
}

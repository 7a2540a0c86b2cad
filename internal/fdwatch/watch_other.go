//go:build !linux

package fdwatch

import (
	"errors"
	"fmt"
)

// Handle is a watch; on this system there are none.
type Handle struct{}

// Watch reports an error wrapping [errors.ErrUnsupported]: there is no shared watcher on this system.
func Watch(fd int, ev Events, fn func(got Events) (again bool)) (*Handle, error) {
	return nil, fmt.Errorf("watch descriptor %d: %w", fd, errors.ErrUnsupported)
}

// Stop does nothing.
func (h *Handle) Stop() {}

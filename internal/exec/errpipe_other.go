//go:build !linux

package exec

import "os"

// open creates the stderr pipe and returns the child's end; our end is read by a goroutine.
func (e *errPipe) open() (*os.File, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	e.f.f = r
	return w, nil
}

package exec

import (
	"os"
	"syscall"
)

// open creates the stderr pipe and returns the child's end. Our end is a raw non-blocking descriptor for
// the watcher; the child's end stays blocking, as programs expect of stderr.
func (e *errPipe) open() (*os.File, error) {
	var fds [2]int
	if err := syscall.Pipe2(fds[:], syscall.O_CLOEXEC); err != nil {
		return nil, err
	}
	if err := syscall.SetNonblock(fds[0], true); err != nil {
		_ = syscall.Close(fds[0]) // cleaning up after a failure already reported
		_ = syscall.Close(fds[1])
		return nil, err
	}
	e.fd = fds[0]
	return os.NewFile(uintptr(fds[1]), "|1"), nil
}

package exec

import (
	"os"
	"sync"
	"syscall"

	"github.com/a2acli/a2a/internal/fdwatch"
)

// errPipe is our end of the child's stderr. It is drained into the tail (and the line callback) by the
// shared watcher of package fdwatch where there is one, so that a running child costs no goroutine here,
// or else by a goroutine of its own.
type errPipe struct {
	tail   *tail
	onLine func([]byte)
	done   chan struct{} // closed once stderr reached its end or was closed; then tail is complete

	f closer // the goroutine's way: our end, read by drainStderr

	fd      int // the watcher's way: our non-blocking read end, or -1
	h       *fdwatch.Handle
	lines   lineSplitter // fed when onLine is not nil
	endOnce sync.Once
}

// watchBuf is the read buffer of every errPipe drained by the watcher, which runs one callback at a time.
var watchBuf [32 << 10]byte

// watchReads bounds the reads of one callback, so that a child writing stderr fast does not starve others.
const watchReads = 8

// start begins draining our end, once the child has started.
func (e *errPipe) start() {
	if e.fd >= 0 {
		h, err := fdwatch.Watch(e.fd, fdwatch.Readable, e.onReadable)
		if err == nil {
			e.h = h
			return
		}
		// No watcher: a goroutine reads instead, through the runtime poller since the descriptor is non-blocking.
		e.f.f, e.fd = os.NewFile(uintptr(e.fd), "|0"), -1
	}
	go drainStderr(e.f.f, e.tail, e.onLine, e.done)
}

// onReadable runs on the watcher goroutine: it reads what the child wrote, and ends the watch at the end of
// stderr or on an error.
func (e *errPipe) onReadable(fdwatch.Events) (again bool) {
	for range watchReads {
		n, err := readFD(e.fd, watchBuf[:])
		switch {
		case err == syscall.EAGAIN:
			return true
		case err == syscall.EINTR:
			continue
		case err != nil || n <= 0:
			e.endOnce.Do(e.end)
			return false
		}
		e.tail.Write(watchBuf[:n])
		if e.onLine != nil {
			e.lines.write(watchBuf[:n])
		}
	}
	return true // more may be waiting: other watches first
}

// close closes our end, by force if the child (or a descendant) still holds the other one. The watch is
// stopped first, so the descriptor is not closed under a read.
func (e *errPipe) close() {
	if e.fd < 0 {
		e.f.close() // drainStderr sees the error and closes done
		return
	}
	e.h.Stop()
	e.endOnce.Do(e.end)
}

// end closes our end, passes on the unterminated last line and reports stderr done.
func (e *errPipe) end() {
	closeFD(e.fd) // a pipe end: nothing to do about a close error
	if e.onLine != nil {
		e.lines.flush()
	}
	close(e.done)
}

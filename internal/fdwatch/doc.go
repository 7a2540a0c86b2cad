// Package fdwatch runs callbacks when file descriptors become readable, for many descriptors at once, from
// one shared goroutine: on Linux an epoll instance that the runtime's network poller watches, so a thousand
// idle watches cost no goroutine and no OS thread each. It owns only that epoll instance and its goroutine;
// it must not read, write or close the watched descriptors, which stay their callers' (the callbacks do
// that themselves). Elsewhere [Watch] reports [errors.ErrUnsupported] and callers keep their own goroutines.
package fdwatch

// Events is a set of readiness events.
type Events uint32

// The events a watch can ask for and a callback can be given. Hangup (the peer closed, or an error on the
// descriptor) is always reported, asked for or not.
const (
	Readable Events = 1 << iota // data to read (EPOLLIN)
	Hangup                      // EPOLLRDHUP, EPOLLHUP or EPOLLERR
)

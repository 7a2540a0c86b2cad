package fdwatch

import (
	"errors"
	"fmt"
	"os"
	"sync"
	"syscall"
)

// Handle is one watch of a descriptor, from [Watch] until [Handle.Stop] or until its callback ends it.
type Handle struct {
	w  *watcher
	id uint64 // the epoll data: events for an ended watch of a reused descriptor number find no Handle
	fd int
	ev uint32 // the epoll events to arm with
	fn func(Events) bool

	mu   sync.Mutex // held while fn runs, so that Stop waits for it
	done bool       // fn will not run again
}

// Watch arranges for fn to run on the shared watcher goroutine when fd has one of ev, or an error or hangup.
// The watch is one-shot: when fn returns true, fd is armed again; when it returns false, the watch ends.
//
// fn may run before Watch returns. All callbacks run on one goroutine, one at a time, so fn must not block
// for long, must not wait for another watch to fire, and must not call Stop on its own Handle. fn may read
// fd; it may close fd only when it returns false (the watch then ends, and the kernel drops the
// registration with the descriptor). Otherwise fd must stay open until Stop returns. A descriptor should
// have one live watch at a time.
func Watch(fd int, ev Events, fn func(got Events) (again bool)) (*Handle, error) {
	w, err := shared()
	if err != nil {
		return nil, fmt.Errorf("watch descriptor %d: %w", fd, err)
	}
	h := &Handle{w: w, fd: fd, ev: toEpoll(ev), fn: fn}
	w.mu.Lock()
	w.next++
	h.id = w.next
	w.watches[h.id] = h
	w.mu.Unlock()
	err = w.ctl(syscall.EPOLL_CTL_ADD, h)
	if errors.Is(err, syscall.EEXIST) {
		// A watch whose callback returned false leaves fd registered but disarmed: arm it for this one.
		err = w.ctl(syscall.EPOLL_CTL_MOD, h)
	}
	if err != nil {
		w.forget(h.id)
		return nil, fmt.Errorf("watch descriptor %d: %w", fd, err)
	}
	return h, nil
}

// Stop ends the watch: once it returns, fn is not running and will not run again, and the caller may close
// the descriptor. It is safe to call more than once, concurrently, and after fn ended the watch.
func (h *Handle) Stop() {
	if h == nil {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.done {
		return
	}
	h.done = true
	_ = h.w.ctl(syscall.EPOLL_CTL_DEL, h) // EBADF, ENOENT: fd was closed early, so it is unregistered anyway
	h.w.forget(h.id)
}

// watcher is the shared epoll instance and the watches registered with it.
type watcher struct {
	epfd int
	file *os.File // wraps epfd for the runtime poller; kept here so that no finalizer closes epfd

	mu      sync.Mutex
	next    uint64
	watches map[uint64]*Handle
}

var (
	sharedOnce sync.Once
	sharedW    *watcher
	sharedErr  error
)

// shared returns the process-wide watcher, starting it on first use.
func shared() (*watcher, error) {
	sharedOnce.Do(func() { sharedW, sharedErr = start() })
	return sharedW, sharedErr
}

// start creates the epoll instance and the goroutine that waits on it.
func start() (*watcher, error) {
	epfd, err := syscall.EpollCreate1(syscall.EPOLL_CLOEXEC)
	if err != nil {
		return nil, fmt.Errorf("create epoll instance: %w", err)
	}
	// Non-blocking, so that os.NewFile hands it to the runtime poller: an epoll descriptor is readable while
	// it has events ready.
	if err := syscall.SetNonblock(epfd, true); err != nil {
		_ = syscall.Close(epfd)
		return nil, fmt.Errorf("set epoll instance non-blocking: %w", err)
	}
	w := &watcher{epfd: epfd, file: os.NewFile(uintptr(epfd), "fdwatch-epoll"), watches: map[uint64]*Handle{}}
	rc, err := w.file.SyscallConn()
	if err != nil {
		_ = w.file.Close()
		return nil, fmt.Errorf("start watcher: %w", err)
	}
	go w.run(rc)
	return w, nil
}

// run waits for events and dispatches them, forever. The goroutine parks in the runtime poller, not in
// epoll_wait, so it holds no OS thread while nothing happens.
func (w *watcher) run(rc syscall.RawConn) {
	events := make([]syscall.EpollEvent, 128)
	_ = rc.Read(func(uintptr) bool {
		w.poll(events, 0)
		return false // wait until the epoll instance is readable again
	})
	// Read returns only if the runtime cannot poll the epoll instance after all: block a thread in it instead.
	for {
		w.poll(events, -1)
	}
}

// poll collects ready events and dispatches them, until a wait returns less than a full batch.
func (w *watcher) poll(events []syscall.EpollEvent, msec int) {
	for {
		n, err := syscall.EpollWait(w.epfd, events, msec)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return
		}
		for _, e := range events[:n] {
			w.dispatch(e)
		}
		if n < len(events) {
			return
		}
	}
}

// dispatch runs the callback of the watch an event is for, and arms the watch again if asked to.
func (w *watcher) dispatch(e syscall.EpollEvent) {
	id := uint64(uint32(e.Fd)) | uint64(uint32(e.Pad))<<32
	w.mu.Lock()
	h := w.watches[id]
	w.mu.Unlock()
	if h == nil {
		return // the watch ended after the kernel queued this event
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.done {
		return
	}
	if h.fn(fromEpoll(e.Events)) && w.ctl(syscall.EPOLL_CTL_MOD, h) == nil {
		return
	}
	h.done = true
	w.forget(h.id)
}

// ctl adds, re-arms or removes h's registration.
func (w *watcher) ctl(op int, h *Handle) error {
	e := syscall.EpollEvent{Events: h.ev, Fd: int32(uint32(h.id)), Pad: int32(uint32(h.id >> 32))}
	if err := syscall.EpollCtl(w.epfd, op, h.fd, &e); err != nil {
		return fmt.Errorf("epoll_ctl: %w", err)
	}
	return nil
}

func (w *watcher) forget(id uint64) {
	w.mu.Lock()
	delete(w.watches, id)
	w.mu.Unlock()
}

// toEpoll converts ev to one-shot epoll events.
func toEpoll(ev Events) uint32 {
	e := uint32(syscall.EPOLLONESHOT)
	if ev&Readable != 0 {
		e |= syscall.EPOLLIN
	}
	if ev&Hangup != 0 {
		e |= syscall.EPOLLRDHUP
	}
	return e
}

// fromEpoll converts reported epoll events.
func fromEpoll(e uint32) Events {
	var ev Events
	if e&syscall.EPOLLIN != 0 {
		ev |= Readable
	}
	if e&(syscall.EPOLLRDHUP|syscall.EPOLLHUP|syscall.EPOLLERR) != 0 {
		ev |= Hangup
	}
	return ev
}

package fdwatch

import (
	"errors"
	"runtime"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// testPipe is a pipe whose read end is non-blocking.
type testPipe struct {
	r, w         int
	rOpen, wOpen bool
}

// pipe returns a pipe whose ends are closed when the test ends, unless the test closed them before: with
// parallel tests, closing a number twice could close another test's descriptor.
func pipe(t testing.TB) *testPipe {
	t.Helper()
	var fds [2]int
	if err := syscall.Pipe2(fds[:], syscall.O_CLOEXEC); err != nil {
		t.Fatal(err)
	}
	p := &testPipe{r: fds[0], w: fds[1], rOpen: true, wOpen: true}
	t.Cleanup(func() { p.closeR(); p.closeW() })
	if err := syscall.SetNonblock(p.r, true); err != nil {
		t.Fatal(err)
	}
	return p
}

func (p *testPipe) closeR() {
	if p.rOpen {
		p.rOpen = false
		_ = syscall.Close(p.r) // a pipe end: nothing to learn from a close error
	}
}

func (p *testPipe) closeW() {
	if p.wOpen {
		p.wOpen = false
		_ = syscall.Close(p.w)
	}
}

func write(t testing.TB, fd int, s string) {
	t.Helper()
	if _, err := syscall.Write(fd, []byte(s)); err != nil {
		t.Fatalf("write(%d, %q) error = %v", fd, s, err)
	}
}

// readAll reads fd until it would block, and returns what it read.
func readAll(fd int) string {
	var out []byte
	buf := make([]byte, 512)
	for {
		n, err := syscall.Read(fd, buf)
		if n <= 0 || err != nil {
			return string(out)
		}
		out = append(out, buf[:n]...)
	}
}

// recv waits for a value from c, failing the test after 10s.
func recv[T any](t testing.TB, c <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-c:
		return v
	case <-time.After(10 * time.Second):
		t.Fatalf("no %s after 10s", what)
		panic("unreachable")
	}
}

func mustWatch(t testing.TB, fd int, fn func(Events) bool) *Handle {
	t.Helper()
	h, err := Watch(fd, Readable, fn)
	if err != nil {
		t.Fatalf("Watch(%d) error = %v", fd, err)
	}
	t.Cleanup(h.Stop)
	return h
}

func TestReadableFires(t *testing.T) {
	t.Parallel()
	p := pipe(t)
	r, w := p.r, p.w
	type call struct {
		got  Events
		data string
	}
	calls := make(chan call, 2)
	mustWatch(t, r, func(got Events) bool {
		calls <- call{got, readAll(r)}
		return false
	})
	write(t, w, "hello")
	if c := recv(t, calls, "callback"); c.got&Readable == 0 || c.data != "hello" {
		t.Errorf("callback got events %b data %q, want Readable and %q", c.got, c.data, "hello")
	}
}

func TestRearm(t *testing.T) {
	t.Parallel()
	p := pipe(t)
	r, w := p.r, p.w
	data := make(chan string, 4)
	mustWatch(t, r, func(Events) bool {
		data <- readAll(r)
		return true
	})
	for _, s := range []string{"one", "two", "three"} {
		write(t, w, s)
		if got := recv(t, data, "callback"); got != s {
			t.Errorf("callback read %q, want %q", got, s)
		}
	}
}

func TestHangup(t *testing.T) {
	t.Parallel()
	p := pipe(t)
	r := p.r
	evs := make(chan Events, 1)
	mustWatch(t, r, func(got Events) bool {
		evs <- got
		return false
	})
	p.closeW()
	if got := recv(t, evs, "callback"); got&Hangup == 0 {
		t.Errorf("callback after the writer closed got %b, want Hangup set", got)
	}
}

func TestStopWaitsForRunningCallback(t *testing.T) {
	t.Parallel()
	p := pipe(t)
	r, w := p.r, p.w
	entered, release := make(chan struct{}), make(chan struct{})
	var returned atomic.Bool
	var once sync.Once
	h := mustWatch(t, r, func(Events) bool {
		readAll(r)
		once.Do(func() { close(entered) })
		<-release
		returned.Store(true)
		return true
	})
	write(t, w, "x")
	recv(t, entered, "callback")
	stopped := make(chan bool)
	go func() {
		h.Stop()
		stopped <- returned.Load()
	}()
	for range 100 { // give Stop every chance to return early, which it must not
		runtime.Gosched()
	}
	select {
	case <-stopped:
		t.Fatal("Stop returned while the callback was running")
	default:
	}
	close(release)
	if !recv(t, stopped, "Stop") {
		t.Error("Stop returned before the callback did")
	}
}

// barrier waits until the watcher has dispatched every event it collected before barrier was called: a new
// watch's event comes in a later batch, and batches are dispatched in order.
func barrier(t *testing.T) {
	t.Helper()
	p := pipe(t)
	r, w := p.r, p.w
	fired := make(chan struct{})
	mustWatch(t, r, func(Events) bool {
		close(fired)
		return false
	})
	write(t, w, "b")
	recv(t, fired, "barrier callback")
}

// TestNoCallAfterStop stops watches while a writer keeps them firing and checks that no callback starts after
// Stop returned.
func TestNoCallAfterStop(t *testing.T) {
	t.Parallel()
	for range 50 {
		p := pipe(t)
		r, w := p.r, p.w
		var stopped, late atomic.Bool
		first := make(chan struct{}, 1)
		h := mustWatch(t, r, func(Events) bool {
			if stopped.Load() {
				late.Store(true)
			}
			readAll(r)
			select {
			case first <- struct{}{}:
			default:
			}
			return true
		})
		quit := make(chan struct{})
		var wg sync.WaitGroup
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-quit:
					return
				default:
					_, _ = syscall.Write(w, []byte("x")) // blocks at most until the callback reads
				}
			}
		}()
		recv(t, first, "callback")
		h.Stop()
		stopped.Store(true)
		barrier(t)
		close(quit)
		readAll(r) // unblock a writer stuck on a full pipe
		wg.Wait()
		if late.Load() {
			t.Fatal("callback ran after Stop returned")
		}
	}
}

func TestManyWatches(t *testing.T) {
	t.Parallel()
	const n = 1000
	fired := make(chan int, n)
	writers := make([]int, n)
	for i := range n {
		p := pipe(t)
		r, w := p.r, p.w
		writers[i] = w
		mustWatch(t, r, func(Events) bool {
			readAll(r)
			fired <- i
			return false
		})
	}
	for _, w := range writers {
		write(t, w, "x")
	}
	seen := make([]bool, n)
	for range n {
		seen[recv(t, fired, "callback")] = true
	}
	for i, ok := range seen {
		if !ok {
			t.Errorf("watch %d did not fire", i)
		}
	}
}

// TestStaleEvent checks that an event for a stopped watch is not delivered to its callback once the
// descriptor number belongs to a new watch: events carry the watch id, not the descriptor.
func TestStaleEvent(t *testing.T) {
	t.Parallel()
	p := pipe(t)
	r := p.r
	var oldCalls atomic.Int32
	old := mustWatch(t, r, func(Events) bool { oldCalls.Add(1); return true })
	stale := syscall.EpollEvent{Events: syscall.EPOLLIN, Fd: int32(uint32(old.id)), Pad: int32(uint32(old.id >> 32))}
	old.Stop()
	p.closeW()
	// Reuse the number r for a new pipe's read end: p.closeR closes it at the end.
	p2 := pipe(t)
	w2 := p2.w
	if err := syscall.Dup3(p2.r, r, syscall.O_CLOEXEC); err != nil {
		t.Fatal(err)
	}
	fired := make(chan string, 1)
	mustWatch(t, r, func(Events) bool {
		fired <- readAll(r)
		return false
	})
	old.w.dispatch(stale)
	write(t, w2, "new")
	if got := recv(t, fired, "new callback"); got != "new" {
		t.Errorf("new callback read %q, want %q", got, "new")
	}
	if n := oldCalls.Load(); n != 0 {
		t.Errorf("stopped callback ran %d times, want 0", n)
	}
}

// TestWatchAgainAfterEnd watches a descriptor again after its first watch ended by returning false, which
// leaves it registered but disarmed.
func TestWatchAgainAfterEnd(t *testing.T) {
	t.Parallel()
	p := pipe(t)
	r, w := p.r, p.w
	fired := make(chan string, 1)
	for _, s := range []string{"first", "second"} {
		h := mustWatch(t, r, func(Events) bool {
			fired <- readAll(r)
			return false
		})
		write(t, w, s)
		if got := recv(t, fired, "callback"); got != s {
			t.Errorf("callback read %q, want %q", got, s)
		}
		h.Stop() // after the callback ended the watch: a no-op
	}
}

func TestWatchBadDescriptor(t *testing.T) {
	t.Parallel()
	h, err := Watch(-1, Readable, func(Events) bool { return false })
	if !errors.Is(err, syscall.EBADF) {
		h.Stop()
		t.Errorf("Watch(closed descriptor) error = %v, want EBADF", err)
	}
}

// BenchmarkFire measures the time from a write to the callback running on the watcher goroutine.
func BenchmarkFire(b *testing.B) {
	p := pipe(b)
	r, w := p.r, p.w
	fired := make(chan struct{}, 1)
	mustWatch(b, r, func(Events) bool {
		readAll(r)
		fired <- struct{}{}
		return true
	})
	for b.Loop() {
		write(b, w, "x")
		<-fired
	}
}

// BenchmarkWatchFireStop measures a whole watch: register, fire once, stop.
func BenchmarkWatchFireStop(b *testing.B) {
	p := pipe(b)
	r, w := p.r, p.w
	fired := make(chan struct{}, 1)
	for b.Loop() {
		h, err := Watch(r, Readable, func(Events) bool {
			readAll(r)
			fired <- struct{}{}
			return true
		})
		if err != nil {
			b.Fatal(err)
		}
		write(b, w, "x")
		<-fired
		h.Stop()
	}
}

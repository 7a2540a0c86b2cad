package serve

import (
	"context"
	"sync"
)

// fifoSem bounds concurrent runs; waiters are admitted in arrival order. A zero limit admits all.
type fifoSem struct {
	mu      sync.Mutex
	limit   int
	running int
	queue   []chan struct{}
}

func newFIFOSem(limit int) *fifoSem { return &fifoSem{limit: limit} }

func (s *fifoSem) acquire(ctx context.Context) error {
	if s.limit <= 0 {
		return nil
	}
	s.mu.Lock()
	if s.running < s.limit && len(s.queue) == 0 {
		s.running++
		s.mu.Unlock()
		return nil
	}
	ch := make(chan struct{})
	s.queue = append(s.queue, ch)
	s.mu.Unlock()
	select {
	case <-ch:
		return nil
	case <-ctx.Done():
		s.mu.Lock()
		defer s.mu.Unlock()
		for i, q := range s.queue {
			if q == ch {
				s.queue = append(s.queue[:i], s.queue[i+1:]...)
				return ctx.Err()
			}
		}
		// Admitted while giving up: pass the slot on.
		s.releaseLocked()
		return ctx.Err()
	}
}

func (s *fifoSem) release() {
	if s.limit <= 0 {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.releaseLocked()
}

// releaseLocked hands the slot to the first waiter, or frees it.
func (s *fifoSem) releaseLocked() {
	if len(s.queue) > 0 {
		close(s.queue[0])
		s.queue = s.queue[1:]
		return
	}
	s.running--
}

package tasks

import (
	"context"
	"sync"
)

// FIFOSem bounds concurrent runs; waiters are admitted in arrival order. A zero limit admits all.
type FIFOSem struct {
	mu      sync.Mutex
	limit   int
	running int
	queue   []chan struct{}
}

func NewFIFOSem(limit int) *FIFOSem { return &FIFOSem{limit: limit} }

// Ticket is a place in a FIFOSem's queue. Taking one records the arrival; waiting on it may happen
// later, on another goroutine, without losing the place.
type Ticket struct {
	s  *FIFOSem
	ch chan struct{} // closed when admitted; nil when admitted on arrival
}

// Take takes a place in the queue: a slot at once when one is free and nobody waits.
func (s *FIFOSem) Take() *Ticket {
	t := &Ticket{s: s}
	if s.limit <= 0 {
		return t
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.running < s.limit && len(s.queue) == 0 {
		s.running++
		return t
	}
	t.ch = make(chan struct{})
	s.queue = append(s.queue, t.ch)
	return t
}

// Wait waits until the Ticket is admitted. On ctx's end it gives the place up (or passes on a slot
// admitted meanwhile) and returns ctx's error; after a nil return the holder must call release.
func (t *Ticket) Wait(ctx context.Context) error {
	if t.ch == nil {
		return nil
	}
	s := t.s
	select {
	case <-t.ch:
		return nil
	case <-ctx.Done():
		s.mu.Lock()
		defer s.mu.Unlock()
		for i, q := range s.queue {
			if q == t.ch {
				s.queue = append(s.queue[:i], s.queue[i+1:]...)
				return ctx.Err()
			}
		}
		// Admitted while giving up: pass the slot on.
		s.releaseLocked()
		return ctx.Err()
	}
}

func (s *FIFOSem) Release() {
	if s.limit <= 0 {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.releaseLocked()
}

// releaseLocked hands the slot to the first waiter, or frees it.
func (s *FIFOSem) releaseLocked() {
	if len(s.queue) > 0 {
		close(s.queue[0])
		s.queue = s.queue[1:]
		return
	}
	s.running--
}

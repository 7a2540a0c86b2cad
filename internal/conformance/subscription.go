package conformance

import (
	"context"
	"errors"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

// subscription is a SubscribeToTask stream read in the background, so the run can act on the task meanwhile.
type subscription struct {
	evs    chan a2a.Event
	err    error // set before evs closes
	cancel context.CancelFunc
	done   chan struct{}
}

func (r *runner) subscribe(ctx context.Context, b *binding, id a2a.TaskID) *subscription {
	// Bounded by twice the call timeout: the stream lives across the follow-up's call.
	sctx, cancel := context.WithTimeout(ctx, 2*r.o.Timeout)
	s := &subscription{evs: make(chan a2a.Event, maxEvents), cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(s.done)
		defer close(s.evs)
		n := 0
		for ev, err := range b.c.SubscribeToTask(sctx, &a2a.SubscribeToTaskRequest{ID: id}) {
			if err != nil {
				s.err = err
				return
			}
			if n++; n > maxEvents {
				s.err = errors.New("more events than the run reads")
				return
			}
			s.evs <- ev
		}
	}()
	return s
}

// first is the stream's first event.
func (s *subscription) first() (a2a.Event, error) {
	ev, ok := <-s.evs
	if !ok {
		if s.err == nil {
			return nil, errors.New("the stream ended with no event")
		}
		return nil, s.err
	}
	return ev, nil
}

// rest reads the stream to its end.
func (s *subscription) rest() ([]a2a.Event, error) {
	var evs []a2a.Event
	for ev := range s.evs {
		evs = append(evs, ev)
	}
	return evs, s.err
}

func (s *subscription) stop() {
	s.cancel()
	<-s.done
}

package store

import (
	"context"
	"sync"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/jackc/pgx/v5"
)

// Replicas tell each other about new events and cancel requests with PostgreSQL's NOTIFY, carrying only a task ID:
// what happened is read from the tables. A notification can be lost while the listening connection is down, so
// everyone who waits for one also looks again on a timer (Watch's callers, the cancel poll of the maintenance loop).

// watchers are the local followers of remote tasks, by task ID.
type watchers struct {
	mu sync.Mutex
	m  map[a2a.TaskID]map[chan struct{}]struct{}
}

// Watch returns a channel that receives a value whenever the task may have new events, until stop is called.
func (s *Store) Watch(id a2a.TaskID) (ch <-chan struct{}, stop func()) {
	c := make(chan struct{}, 1)
	w := &s.watch
	w.mu.Lock()
	if w.m == nil {
		w.m = map[a2a.TaskID]map[chan struct{}]struct{}{}
	}
	if w.m[id] == nil {
		w.m[id] = map[chan struct{}]struct{}{}
	}
	w.m[id][c] = struct{}{}
	w.mu.Unlock()
	return c, func() {
		w.mu.Lock()
		delete(w.m[id], c)
		if len(w.m[id]) == 0 {
			delete(w.m, id)
		}
		w.mu.Unlock()
	}
}

// notify wakes the watchers of id, or every watcher when id is "".
func (w *watchers) notify(id a2a.TaskID) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for tid, set := range w.m {
		if id != "" && tid != id {
			continue
		}
		for c := range set {
			select {
			case c <- struct{}{}:
			default:
			}
		}
	}
}

func (s *Store) listen() {
	defer s.wg.Done()
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		<-s.closing
		cancel()
	}()
	backoff := 100 * time.Millisecond
	for ctx.Err() == nil {
		err := s.listenOnce(ctx)
		if ctx.Err() != nil {
			return
		}
		if err != nil {
			select {
			case <-time.After(backoff):
			case <-ctx.Done():
				return
			}
			backoff = min(2*backoff, 2*time.Second)
		}
	}
}

func (s *Store) listenOnce(ctx context.Context) error {
	conn, err := pgx.Connect(ctx, s.rawURL)
	if err != nil {
		return err
	}
	defer conn.Close(context.Background())
	for _, ch := range []string{"a2a_events", "a2a_cancel"} {
		if _, err := conn.Exec(ctx, "LISTEN "+ch); err != nil {
			return err
		}
	}
	// Whatever was notified while we were not listening: look again.
	s.watch.notify("")
	s.kickMaint()
	for {
		n, err := conn.WaitForNotification(ctx)
		if err != nil {
			return err
		}
		switch n.Channel {
		case "a2a_events":
			s.watch.notify(a2a.TaskID(n.Payload))
		case "a2a_cancel":
			s.kickMaint()
		}
	}
}

func (s *Store) kickMaint() {
	select {
	case s.maint <- struct{}{}:
	default:
	}
}

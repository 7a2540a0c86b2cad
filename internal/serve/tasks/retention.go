package tasks

import "time"

// finishedQueue lists finished tasks in the order they finished, so that retention drops the
// oldest without scanning or sorting the whole store on every new task. Entries go stale when a
// task runs again or changes after finishing; a stale entry is skipped when it reaches the front.
type finishedQueue struct {
	entries []finishedEntry
	count   int // finished tasks in the store, i.e. valid entries
}

type finishedEntry struct {
	r  *record
	at time.Time // r.updated when the entry was made
}

// changedLocked keeps the queue in step after r changed; was says whether r was finished
// before the change. Called with s.mu held.
func (s *Store) changedLocked(r *record, was bool) {
	now := finished(r)
	if was {
		s.done.count--
	}
	if now {
		s.done.count++
		s.done.entries = append(s.done.entries, finishedEntry{r: r, at: r.updated})
	}
	if len(s.done.entries) > 2*s.done.count+64 {
		s.compactLocked()
	}
}

// valid reports whether e is the current entry of a finished task still in the store.
func (s *Store) valid(e finishedEntry) bool {
	return s.tasks[e.r.task.ID] == e.r && finished(e.r) && e.r.updated.Equal(e.at)
}

func (s *Store) compactLocked() {
	kept := s.done.entries[:0]
	for _, e := range s.done.entries {
		if s.valid(e) {
			kept = append(kept, e)
		}
	}
	clear(s.done.entries[len(kept):])
	s.done.entries = kept
}

// pruneLocked applies the retention rules: finished tasks older than the TTL are dropped, then
// the oldest finished tasks beyond maxTasks. Active tasks are never dropped. Called with s.mu
// held; it costs O(1) per dropped or stale entry.
func (s *Store) pruneLocked() {
	cutoff := s.now().Add(-s.ttl)
	q := &s.done
	for len(q.entries) > 0 {
		e := q.entries[0]
		ok := s.valid(e)
		if ok && q.count <= s.maxTasks && !e.r.updated.Before(cutoff) {
			return
		}
		q.entries[0] = finishedEntry{}
		q.entries = q.entries[1:]
		if ok {
			delete(s.tasks, e.r.task.ID)
			q.count--
		}
	}
}

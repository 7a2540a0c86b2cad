package tasks

import (
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

// finishedQueue lists finished tasks in the order they finished, so that retention drops the
// oldest without scanning or sorting the whole store on every new task. Entries go stale when a
// task runs again or changes after finishing; a stale entry is skipped when it reaches the front.
type finishedQueue struct {
	entries []finishedEntry
	count   int   // finished tasks in the store, i.e. valid entries
	bytes   int64 // what they keep together (record.kept)
}

// defaultMaxTaskBytes bounds what the finished tasks kept hold together when SetMaxTaskBytes was not called.
const defaultMaxTaskBytes = 256 << 20

// partOverhead is about what a stored part costs besides its payload (the Part, its content's header, its slot).
const partOverhead = 128

// taskBytes is about what a task keeps in memory: its history, status message and artifacts, each counted as its
// payload and partOverhead a part (messageCost, artifactCost).
func taskBytes(t *a2a.Task) int64 {
	n := messageCost(t.Status.Message) + artifactsSize(t.Artifacts)
	for _, m := range t.History {
		n += messageCost(m)
	}
	return n
}

type finishedEntry struct {
	r  *record
	at time.Time // r.updated when the entry was made
}

// changedLocked keeps the queue in step after r changed; was says whether r was finished
// before the change. Called with s.mu held.
func (s *Store) changedLocked(r *record, was bool) {
	s.boundHistoryLocked(r)
	if s.durable != nil {
		s.durable.touchLocked(r)
	}
	now := finished(r)
	if was {
		s.done.count--
		s.done.bytes -= r.kept
		r.kept = 0
	}
	if now {
		s.done.count++
		r.kept = taskBytes(r.task)
		s.done.bytes += r.kept
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
// the oldest finished tasks beyond maxTasks, or while they keep more than maxBytes together (the newest finished
// task is always kept). Active tasks are never dropped. Called with s.mu
// held; it costs O(1) per dropped or stale entry.
func (s *Store) pruneLocked() {
	cutoff := s.now().Add(-s.ttl)
	q := &s.done
	for len(q.entries) > 0 {
		e := q.entries[0]
		ok := s.valid(e)
		overBytes := s.maxBytes > 0 && q.bytes > s.maxBytes && q.count > 1
		if ok && q.count <= s.maxTasks && !overBytes && !e.r.updated.Before(cutoff) {
			return
		}
		q.entries[0] = finishedEntry{}
		q.entries = q.entries[1:]
		if ok {
			delete(s.tasks, e.r.task.ID)
			q.count--
			q.bytes -= e.r.kept
		}
	}
}

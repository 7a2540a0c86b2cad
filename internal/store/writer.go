package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

// The writer is write-behind: serve tells it which tasks changed (Touch) and which events they had (Append), and
// one goroutine writes them in batches, one transaction per batch. A task's snapshot is written once per batch
// however many events it had, so a chunk stream costs one upsert per Interval, not one per chunk; its events go in
// as one row per batch. Urgent changes (a new task, a new state) start a batch at once: while one batch is being
// written the next one gathers, so under load commits are shared.

type writer struct {
	mu      sync.Mutex
	dirty   map[a2a.TaskID]struct{}
	events  map[a2a.TaskID][]Event
	urgent  bool
	waiters []chan error
	kick    chan struct{}
}

func (w *writer) init() {
	w.dirty = map[a2a.TaskID]struct{}{}
	w.events = map[a2a.TaskID][]Event{}
	w.kick = make(chan struct{}, 1)
}

func (w *writer) wake() {
	select {
	case w.kick <- struct{}{}:
	default:
	}
}

// Touch marks a task as changed: its snapshot is written with the next batch, which starts at once when urgent
// (a new task, a new state) or within the Interval otherwise.
func (s *Store) Touch(id a2a.TaskID, urgent bool) {
	// Nobody else reads a SQLite file while we run: a change only has to be there when someone waits for it
	// (Flush) or within the Interval.
	urgent = urgent && s.d.shared
	w := &s.w
	w.mu.Lock()
	_, was := w.dirty[id]
	w.dirty[id] = struct{}{}
	kick := urgent || (!was && len(w.dirty) == 1)
	if urgent {
		w.urgent = true
	}
	w.mu.Unlock()
	if kick {
		w.wake()
	}
}

// Append queues an event of a running task for the replicas that follow it (Shared stores only; a no-op
// otherwise). Events must be appended in Seq order; ev must not change afterwards.
func (s *Store) Append(id a2a.TaskID, seq int64, ev a2a.Event) {
	if !s.d.shared {
		return
	}
	w := &s.w
	w.mu.Lock()
	w.events[id] = append(w.events[id], Event{Seq: seq, Event: ev})
	w.mu.Unlock()
}

// Flush writes everything queued so far and waits until it is written (or ctx is done).
func (s *Store) Flush(ctx context.Context) error {
	ch := make(chan error, 1)
	w := &s.w
	w.mu.Lock()
	w.waiters = append(w.waiters, ch)
	w.urgent = true
	w.mu.Unlock()
	w.wake()
	select {
	case err := <-ch:
		return err
	case <-ctx.Done():
		return s.wrap(fmt.Errorf("write: %w", ctx.Err()))
	case <-s.closing:
		return s.wrap(fmt.Errorf("closed"))
	}
}

func (s *Store) writeLoop() {
	defer s.wg.Done()
	w := &s.w
	var timer <-chan time.Time
	for {
		forced := false
		select {
		case <-w.kick:
		case <-timer:
			timer, forced = nil, true
		case <-s.closing:
			s.flush() //nolint:errcheck // the last write: a failure is logged by flush, and nobody waits for it
			return
		}
		w.mu.Lock()
		pending := len(w.dirty) > 0 || len(w.events) > 0 || len(w.waiters) > 0
		urgent := w.urgent
		w.mu.Unlock()
		if !pending {
			continue
		}
		if !urgent && !forced {
			if timer == nil {
				timer = time.After(s.opts.Interval)
			}
			continue
		}
		timer = nil
		if err := s.flush(); err != nil {
			timer = time.After(250 * time.Millisecond) // retry; calls meanwhile fail fast through Err
		}
	}
}

type taskRow struct {
	snap      *Snapshot
	task      []byte
	push      []byte
	statusTS  sql.NullInt64
	finished  bool
	eventRows []eventRow
}

type eventRow struct {
	seqTo int64
	data  []byte
}

// flush takes what is pending and writes it in one transaction. On failure the changes go back in the queue for
// the next try and the waiters get the error.
func (s *Store) flush() error {
	w := &s.w
	w.mu.Lock()
	dirty, events, waiters := w.dirty, w.events, w.waiters
	w.dirty, w.events, w.waiters, w.urgent = map[a2a.TaskID]struct{}{}, map[a2a.TaskID][]Event{}, nil, false
	w.mu.Unlock()
	err := s.write(dirty, events)
	if err != nil {
		w.mu.Lock()
		for id := range dirty {
			w.dirty[id] = struct{}{}
		}
		for id, evs := range events {
			w.events[id] = append(evs, w.events[id]...)
		}
		w.mu.Unlock()
		err = s.wrap(err)
	}
	if s.health.set(err) {
		if err != nil {
			s.opts.Logf("%v; retrying\n", err)
		} else {
			s.opts.Logf("task store %s: reachable again\n", s.name)
		}
	}
	for _, ch := range waiters {
		ch <- err
	}
	return err
}

func (s *Store) write(dirty map[a2a.TaskID]struct{}, events map[a2a.TaskID][]Event) error {
	if len(dirty) == 0 && len(events) == 0 {
		return nil
	}
	rows := make([]*taskRow, 0, len(dirty))
	for id := range dirty {
		snap, ok := s.opts.Source(id)
		if !ok {
			continue
		}
		r, err := encodeRow(snap)
		if err != nil {
			return err
		}
		rows = append(rows, r)
	}
	evRows := map[a2a.TaskID][]eventRow{}
	for id, evs := range events {
		if len(evs) == 0 {
			continue
		}
		batch := make([]a2a.StreamResponse, len(evs))
		for i, e := range evs {
			batch[i] = a2a.StreamResponse{Event: e.Event}
		}
		data, err := json.Marshal(struct {
			From   int64                `json:"from"`
			Events []a2a.StreamResponse `json:"events"`
		}{evs[0].Seq, batch})
		if err != nil {
			return fmt.Errorf("encode events of task %s: %w", id, err)
		}
		evRows[id] = append(evRows[id], eventRow{seqTo: evs[len(evs)-1].Seq, data: data})
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback() //nolint:errcheck // after Commit, Rollback is a no-op
	if err := s.upsert(ctx, tx, rows); err != nil {
		return err
	}
	if len(evRows) > 0 {
		ins, err := tx.PrepareContext(ctx, s.d.q(`INSERT INTO a2a_events (task_id, seq_to, events) VALUES (?, ?, ?) ON CONFLICT DO NOTHING`))
		if err != nil {
			return err
		}
		defer ins.Close()
		ids := make([]string, 0, len(evRows))
		for id, rs := range evRows {
			for _, r := range rs {
				if _, err := ins.ExecContext(ctx, string(id), r.seqTo, string(r.data)); err != nil {
					return fmt.Errorf("write events: %w", err)
				}
			}
			ids = append(ids, string(id))
		}
		if _, err := tx.ExecContext(ctx, `SELECT pg_notify('a2a_events', x) FROM unnest($1::text[]) AS x`, ids); err != nil {
			return fmt.Errorf("notify events: %w", err)
		}
	}
	return tx.Commit()
}

const upsertTask = `INSERT INTO a2a_tasks (id, context_id, state, status_ts, updated, owner, finished, seq, task, push)
	VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
	ON CONFLICT (id) DO UPDATE SET context_id = excluded.context_id, state = excluded.state, status_ts = excluded.status_ts,
		updated = excluded.updated, owner = excluded.owner, finished = excluded.finished, seq = excluded.seq,
		task = excluded.task, push = excluded.push`

func (s *Store) upsert(ctx context.Context, tx *sql.Tx, rows []*taskRow) error {
	if len(rows) == 0 {
		return nil
	}
	st := tx.StmtContext(ctx, s.upsertStmt)
	defer st.Close()
	for _, r := range rows {
		t := r.snap.Task
		if _, err := st.ExecContext(ctx, string(t.ID), t.ContextID, string(t.Status.State), r.statusTS, r.snap.Updated.UnixNano(),
			r.snap.Owner, r.finished, r.snap.Seq, string(r.task), string(r.push)); err != nil {
			return fmt.Errorf("write task %s: %w", t.ID, err)
		}
	}
	return nil
}

func encodeRow(snap *Snapshot) (*taskRow, error) {
	r := &taskRow{snap: snap, finished: snap.Finished()}
	var err error
	if r.task, err = json.Marshal(snap.Task); err != nil {
		return nil, fmt.Errorf("encode task %s: %w", snap.Task.ID, err)
	}
	push := snap.Push
	if push == nil {
		push = []Push{}
	}
	if r.push, err = json.Marshal(push); err != nil {
		return nil, fmt.Errorf("encode push configs of task %s: %w", snap.Task.ID, err)
	}
	if ts := snap.Task.Status.Timestamp; ts != nil {
		r.statusTS = sql.NullInt64{Int64: ts.UnixNano(), Valid: true}
	}
	return r, nil
}

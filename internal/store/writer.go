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
// one goroutine writes them in batches, one transaction per batch. Urgent changes (a new task, a new state, a task
// someone waits for) start a batch at once: while one batch is being written the next one gathers, so under load
// commits are shared. A change that is not urgent (a chunk appended to a running task) waits for a lazy write:
// every Interval, or, once snapshots grow costly (a long stream's artifact), at most a fifth of the writer's time,
// so that a stream of n chunks costs O(n) to keep, not O(n²). Events (shared stores) go out with every batch, one
// row per task.
//
// Events wait in memory while the store is away. Their bytes are bounded (Options.MaxBacklog): past the bound,
// WaitRoom holds the turns that would add more until a write makes room, so a store that stays away costs a
// bounded amount of memory and loses nothing; the turns (and the clients following them) pause meanwhile.

type writer struct {
	mu      sync.Mutex
	dirty   map[a2a.TaskID]bool // value: urgent
	events  map[a2a.TaskID][]Event
	urgent  bool // a batch is due now
	waiters []waiter
	kick    chan struct{}

	lastLazy time.Time     // when the last lazy write started
	lazyCost time.Duration // how long it took

	// owned and lost are the writer goroutine's own: the tasks whose last write said this replica runs them, and those
	// another replica failed meanwhile (its sweep, after this replica's lease expired: a pause longer than the
	// lease). A lost task is never written again from here: the store keeps the end the others were told.
	owned, lost map[a2a.TaskID]bool
	// lostSeen is lost for the callers of FlushTask (ErrLost), under its own lock.
	lostMu   sync.Mutex
	lostSeen map[a2a.TaskID]bool

	backlog int64         // the estimated bytes of events (an event taken by a batch counts until it is written)
	room    chan struct{} // closed (and replaced) when a write made room
	full    bool          // the backlog passed the bound, logged once until it drains
}

type waiter struct {
	ch  chan error
	all bool // waits for every change, lazy ones included
}

func (w *writer) init() {
	w.dirty = map[a2a.TaskID]bool{}
	w.events = map[a2a.TaskID][]Event{}
	w.kick = make(chan struct{}, 1)
	w.room = make(chan struct{})
	w.owned, w.lost = map[a2a.TaskID]bool{}, map[a2a.TaskID]bool{}
	w.lostSeen = map[a2a.TaskID]bool{}
}

// isLost reports whether task id was found lost (see ErrLost).
func (w *writer) isLost(id a2a.TaskID) bool {
	w.lostMu.Lock()
	defer w.lostMu.Unlock()
	return w.lostSeen[id]
}

func (w *writer) wake() {
	select {
	case w.kick <- struct{}{}:
	default:
	}
}

// Touch marks a task as changed: its snapshot is written with the next batch when urgent (a new task, a new
// state), with the next lazy write otherwise.
func (s *Store) Touch(id a2a.TaskID, urgent bool) {
	// Nobody else reads a SQLite file while we run: a change only has to be there when someone waits for it
	// (Flush, FlushTask) or soon.
	urgent = urgent && s.d.shared
	w := &s.w
	w.mu.Lock()
	prev, was := w.dirty[id]
	w.dirty[id] = prev || urgent
	kick := urgent || !was
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
	size := EventSize(ev)
	w.events[id] = append(w.events[id], Event{Seq: seq, Event: ev, size: size})
	w.backlog += size
	w.mu.Unlock()
}

// DefaultMaxBacklog is the bound of the events waiting to be written when Options.MaxBacklog is 0.
const DefaultMaxBacklog = 64 << 20

// Backlog is the estimated bytes of events waiting to be written.
func (s *Store) Backlog() int64 {
	s.w.mu.Lock()
	defer s.w.mu.Unlock()
	return s.w.backlog
}

// WaitRoom returns at once while the events waiting to be written are within Options.MaxBacklog; past it, it waits
// until a write makes room, ctx is done (its error is returned) or the store closes. A turn calls it before it adds
// an event, so the backlog exceeds the bound by at most one event per running turn.
func (s *Store) WaitRoom(ctx context.Context) error {
	if !s.d.shared {
		return nil
	}
	w := &s.w
	for {
		w.mu.Lock()
		if w.backlog <= s.opts.MaxBacklog {
			w.mu.Unlock()
			return nil
		}
		room := w.room
		w.urgent = true // the events go out with the next batch, now
		if !w.full {
			w.full = true
			s.opts.Logf("task store %s: %d bytes of events wait for the store: running tasks pause until it takes them\n",
				s.name, w.backlog)
		}
		w.mu.Unlock()
		w.wake()
		select {
		case <-room:
		case <-ctx.Done():
			return ctx.Err()
		case <-s.closing:
			return nil // the last write is Close's
		}
	}
}

// EventSize estimates the bytes an event takes in the backlog: its parts' contents and a fixed share for the rest.
func EventSize(ev a2a.Event) int64 {
	const overhead = 256
	n := int64(overhead)
	switch v := ev.(type) {
	case *a2a.TaskArtifactUpdateEvent:
		if v.Artifact != nil {
			n += partsSize(v.Artifact.Parts)
		}
	case *a2a.TaskStatusUpdateEvent:
		if v.Status.Message != nil {
			n += partsSize(v.Status.Message.Parts)
		}
	case *a2a.Task:
		for _, a := range v.Artifacts {
			n += partsSize(a.Parts)
		}
		for _, m := range v.History {
			n += partsSize(m.Parts)
		}
	case *a2a.Message:
		n += partsSize(v.Parts)
	}
	return n
}

func partsSize(ps []*a2a.Part) int64 {
	var n int64
	for _, p := range ps {
		if p == nil {
			continue
		}
		n += 64
		switch c := p.Content.(type) {
		case a2a.Text:
			n += int64(len(c))
		case a2a.Raw:
			n += int64(len(c)) * 4 / 3 // base64 in JSON
		case a2a.URL:
			n += int64(len(c))
		case a2a.Data:
			if b, err := json.Marshal(c.Value); err == nil {
				n += int64(len(b))
			}
		}
	}
	return n
}

// Flush writes every change queued so far and waits until it is written (or ctx is done).
func (s *Store) Flush(ctx context.Context) error { return s.await(ctx, "", true) }

// FlushTask writes task id's changes (and whatever else is urgent) and waits until they are written; ErrLost when
// the task turned out lost (its changes are dropped, the store keeps another replica's end).
func (s *Store) FlushTask(ctx context.Context, id a2a.TaskID) error {
	if err := s.await(ctx, id, false); err != nil {
		return err
	}
	if s.w.isLost(id) {
		return ErrLost
	}
	return nil
}

func (s *Store) await(ctx context.Context, id a2a.TaskID, all bool) error {
	ch := make(chan error, 1)
	w := &s.w
	w.mu.Lock()
	if id != "" {
		w.dirty[id] = true
	}
	w.waiters = append(w.waiters, waiter{ch: ch, all: all})
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

// lazyDue is when the next lazy write may start. Called with w.mu held.
func (s *Store) lazyDueLocked() time.Time {
	return s.w.lastLazy.Add(max(s.opts.Interval, 4*s.w.lazyCost))
}

func (s *Store) writeLoop() {
	defer s.wg.Done()
	w := &s.w
	var timer *time.Timer
	var timerC <-chan time.Time
	for {
		select {
		case <-w.kick:
		case <-timerC:
			timerC = nil
		case <-s.closing:
			s.flush(true) //nolint:errcheck // the last write: a failure is logged by flush, and nobody waits for it
			return
		}
		w.mu.Lock()
		pending := len(w.dirty) > 0 || len(w.events) > 0 || len(w.waiters) > 0
		due := s.lazyDueLocked()
		urgent := w.urgent
		w.mu.Unlock()
		if !pending {
			continue
		}
		lazy := !time.Now().Before(due)
		if !urgent && !lazy {
			if timerC == nil {
				timer = time.NewTimer(time.Until(due))
				timerC = timer.C
			}
			continue
		}
		if timer != nil {
			timer.Stop()
			timer, timerC = nil, nil
		}
		if err := s.flush(lazy); err != nil {
			timer = time.NewTimer(250 * time.Millisecond) // retry; calls meanwhile fail fast through Err
			timerC = timer.C
			continue
		}
		w.mu.Lock()
		more := len(w.dirty) > 0 || len(w.events) > 0
		w.mu.Unlock()
		if more {
			w.wake() // lazy changes left behind: arm their timer
		}
	}
}

type taskRow struct {
	snap     *Snapshot
	task     []byte
	push     []byte
	statusTS sql.NullInt64
	finished bool
}

type eventRow struct {
	seqTo int64
	data  []byte
}

// flush takes what is due (urgent changes; lazy ones too when lazy or when a waiter wants everything) and writes
// it in one transaction. On failure the changes go back in the queue for the next try and the waiters get the error.
func (s *Store) flush(lazy bool) error {
	w := &s.w
	w.mu.Lock()
	for _, wt := range w.waiters {
		lazy = lazy || wt.all
	}
	dirty := map[a2a.TaskID]struct{}{}
	for id, urgent := range w.dirty {
		if urgent || lazy {
			dirty[id] = struct{}{}
			delete(w.dirty, id)
		}
	}
	events, waiters := w.events, w.waiters
	w.events, w.waiters, w.urgent = map[a2a.TaskID][]Event{}, nil, false
	var taken int64
	for _, evs := range events {
		for _, e := range evs {
			taken += e.size
		}
	}
	w.mu.Unlock()
	start := time.Now()
	err := s.write(dirty, events)
	if err == nil && taken > 0 {
		w.mu.Lock()
		w.backlog -= taken
		if w.full && w.backlog <= s.opts.MaxBacklog/2 {
			w.full = false
		}
		close(w.room)
		w.room = make(chan struct{})
		w.mu.Unlock()
	}
	if err != nil {
		w.mu.Lock()
		for id := range dirty {
			w.dirty[id] = true
		}
		for id, evs := range events {
			w.events[id] = append(evs, w.events[id]...)
		}
		w.mu.Unlock()
		err = s.wrap(err)
	} else if lazy {
		w.mu.Lock()
		w.lastLazy, w.lazyCost = start, time.Since(start)
		w.mu.Unlock()
	}
	if s.health.set(err) {
		if err != nil {
			s.opts.Logf("%v; retrying\n", err)
		} else {
			s.opts.Logf("task store %s: reachable again\n", s.name)
		}
	}
	for _, wt := range waiters {
		wt.ch <- err
	}
	return err
}

func (s *Store) write(dirty map[a2a.TaskID]struct{}, events map[a2a.TaskID][]Event) error {
	if len(dirty) == 0 && len(events) == 0 {
		return nil
	}
	w := &s.w
	rows := make([]*taskRow, 0, len(dirty))
	for id := range dirty {
		if w.lost[id] {
			continue
		}
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
		if len(evs) == 0 || w.lost[id] {
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
	if len(rows) == 1 && len(evRows) == 0 {
		// One task and nothing else (a blocking send at one client): one statement, its own transaction.
		lost, err := s.upsertRow(ctx, s.upsertStmt, rows[0])
		if err != nil {
			return err
		}
		s.written(rows, lost)
		return nil
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback() //nolint:errcheck // after Commit, Rollback is a no-op
	lost, err := s.upsert(ctx, tx, rows)
	if err != nil {
		return err
	}
	for id := range lost {
		delete(evRows, id)
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
	if err := tx.Commit(); err != nil {
		return err
	}
	s.written(rows, lost)
	return nil
}

// written notes which tasks this replica now runs as far as the store knows, and hands over those found lost.
func (s *Store) written(rows []*taskRow, lost map[a2a.TaskID]bool) {
	w := &s.w
	for _, r := range rows {
		id := r.snap.Task.ID
		switch {
		case lost[id]:
			delete(w.owned, id)
			w.lost[id] = true
			w.lostMu.Lock()
			w.lostSeen[id] = true
			w.lostMu.Unlock()
			s.opts.Logf("task %s: another replica failed it while this one's lease had expired (a pause longer than "+
				"the lease of %s); its end here is dropped\n", id, s.opts.Lease)
			if s.opts.OnLost != nil {
				go s.opts.OnLost(id)
			}
		case r.snap.Owner == s.replica:
			w.owned[id] = true
		default:
			delete(w.owned, id)
		}
	}
}

// upsertTask writes a task. Its last two parameters are the owner the row must still have to be updated ("": any):
// a task this replica ran, failed meanwhile by another after this one's lease expired, keeps the other's end.
const upsertTask = `INSERT INTO a2a_tasks (id, context_id, state, status_ts, updated, owner, finished, seq, task, push)
	VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
	ON CONFLICT (id) DO UPDATE SET context_id = excluded.context_id, state = excluded.state, status_ts = excluded.status_ts,
		updated = excluded.updated, owner = excluded.owner, finished = excluded.finished, seq = excluded.seq,
		task = excluded.task, push = excluded.push
	WHERE ? = '' OR a2a_tasks.owner = ?`

// upsert writes rows in tx and returns the tasks found lost (see upsertTask).
func (s *Store) upsert(ctx context.Context, tx *sql.Tx, rows []*taskRow) (map[a2a.TaskID]bool, error) {
	lost := map[a2a.TaskID]bool{}
	if len(rows) == 0 {
		return lost, nil
	}
	st := tx.StmtContext(ctx, s.upsertStmt)
	defer st.Close()
	for _, r := range rows {
		l, err := s.upsertRow(ctx, st, r)
		if err != nil {
			return nil, err
		}
		for id := range l {
			lost[id] = true
		}
	}
	return lost, nil
}

// upsertRow writes one row with st (upsertTask), and returns its task as lost when the row had another owner.
func (s *Store) upsertRow(ctx context.Context, st *sql.Stmt, r *taskRow) (map[a2a.TaskID]bool, error) {
	t := r.snap.Task
	expect := ""
	if s.d.shared && s.w.owned[t.ID] {
		expect = s.replica
	}
	res, err := st.ExecContext(ctx, string(t.ID), t.ContextID, string(t.Status.State), r.statusTS, r.snap.Updated.UnixNano(),
		r.snap.Owner, r.finished, r.snap.Seq, string(r.task), string(r.push), expect, expect)
	if err != nil {
		return nil, fmt.Errorf("write task %s: %w", t.ID, err)
	}
	if n, err := res.RowsAffected(); err == nil && n == 0 {
		return map[a2a.TaskID]bool{t.ID: true}, nil
	}
	return nil, nil
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

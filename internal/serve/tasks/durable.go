package tasks

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/a2acli/a2a/internal/store"
)

// With --store sqlite:PATH or postgres://..., memory stays the live state of the tasks this process runs and the
// store (internal/store) keeps a copy, written behind: every change marks the task (changedLocked → touchLocked),
// every event is appended for other replicas (applyLocked → appendLocked), and the writer pulls snapshots in
// batches. The end of a turn waits for its write, so a client that saw a task finish finds it finished on every
// replica and after a restart.
//
// Memory is the authority for a task only while this process runs it (and, on SQLite, for any task it holds: no
// one else writes that file). Otherwise calls naming a task refresh it from the store first; a task running on
// another replica is marked with its owner, and subscribe and cancel go through the store to that replica.

// durable ties a Store to its store.
type durable struct {
	st     *store.Store
	shared bool
	// cancelLocal stops a turn this replica runs, on another replica's request; set by the task backend.
	cancelLocal atomic.Pointer[func(id a2a.TaskID)]
	// loseLocal stops a turn this replica runs whose task another replica failed meanwhile; set with cancelLocal.
	loseLocal atomic.Pointer[func(id a2a.TaskID)]
	quiet     bool // while installing a task read from the store: not a change to write back
	logf      Logf

	logMu    sync.Mutex // the last store failure logged, and when: a store that is away fails every call
	lastLog  string
	lastWhen time.Time
}

// MemoryOnly reports whether a --store URL names the in-memory store ("" or "memory").
func MemoryOnly(url string) bool { return url == "" || url == "memory" }

// DurableOptions are the store's settings serve's flags choose.
type DurableOptions struct {
	Lease      time.Duration // the replica lease; 0 => 60s
	MaxBacklog int64         // bytes of events kept while the store is away; 0 => store.DefaultMaxBacklog
}

// OpenDurable puts the store named by url (sqlite:PATH or postgres://...) behind s. Call it before s is used; close
// the store with CloseDurable once every turn has ended.
func (s *Store) OpenDurable(ctx context.Context, url string, o DurableOptions, logf Logf) error {
	d := &durable{logf: logf}
	st, err := store.Open(ctx, url, store.Options{
		Source: s.durableSnapshot, Lease: o.Lease, MaxTasks: s.maxTasks, TTL: s.ttl, Now: s.now, Logf: logf.printf,
		MaxBacklog: o.MaxBacklog,
		OnLost: func(id a2a.TaskID) {
			if f := d.loseLocal.Load(); f != nil {
				(*f)(id)
			}
		},
		OnCancel: func(id a2a.TaskID) {
			if f := d.cancelLocal.Load(); f != nil {
				(*f)(id)
			}
		},
	})
	if err != nil {
		// Not wrapped: a store that cannot be reached is serve failing to start (exit 1), not an agent that is
		// unreachable (exit 3).
		return errors.New(err.Error())
	}
	d.st, d.shared = st, st.Shared()
	s.durable = d
	return nil
}

// errStoreUnavailable is what a caller hears when the store fails its call. The details (the store's URL, the
// driver's words) are for serve's log only: they may name hosts and users, and a driver's error may quote more.
var errStoreUnavailable = a2a.NewError(a2a.ErrInternalError, "task store unavailable")

// fail logs why the store failed a call (redacted by the store; the same failure once per 10s) and returns what
// the caller hears.
func (d *durable) fail(err error) error {
	if errors.Is(err, context.Canceled) {
		return errStoreUnavailable // the caller left: nothing the operator must hear of
	}
	msg := err.Error()
	now := time.Now()
	d.logMu.Lock()
	quiet := msg == d.lastLog && now.Sub(d.lastWhen) < 10*time.Second
	if !quiet {
		d.lastLog, d.lastWhen = msg, now
	}
	d.logMu.Unlock()
	if !quiet {
		d.logf.printf("%s\n", msg)
	}
	return errStoreUnavailable
}

// touchLocked marks r as changed; urgent when its state or whether it runs changed. Called with s.mu held.
func (d *durable) touchLocked(r *record) {
	if d.quiet || r.owner != "" {
		return
	}
	key := writtenKey{state: r.task.Status.State, running: r.run != nil}
	urgent := key != r.written
	r.written = key
	d.st.Touch(r.task.ID, urgent)
}

// pushChangedLocked has r's push configs written soon (memory only: nothing to do).
func (s *Store) pushChangedLocked(r *record) {
	if s.durable != nil {
		r.written = writtenKey{} // forces an urgent write
		s.durable.touchLocked(r)
	}
}

// appendLocked numbers ev and hands it to the store for replicas following the task. Called with s.mu held.
func (d *durable) appendLocked(r *record, ev a2a.Event) {
	r.seq++
	d.st.Append(r.task.ID, r.seq, ev)
}

// writtenKey is what makes a change urgent to write.
type writtenKey struct {
	state   a2a.TaskState
	running bool
}

// durableSnapshot is the store's Source.
func (s *Store) durableSnapshot(id a2a.TaskID) (*store.Snapshot, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, ok := s.tasks[id]
	if !ok || r.owner != "" {
		return nil, false
	}
	snap := &store.Snapshot{Task: snapshot(r.task, nil, true), Updated: r.updated, Seq: r.seq}
	if r.run != nil {
		snap.Owner = s.durable.st.Replica()
	}
	for _, h := range r.push {
		snap.Push = append(snap.Push, store.Push{Config: copyPushConfig(h.cfg, id), V03: h.v03})
	}
	return snap, true
}

// refresh brings the memory copy of task id up to date from the store when memory is not its authority. A task
// the store does not hold is left to the caller's lookup (not found).
func (s *Store) refresh(ctx context.Context, id a2a.TaskID) error {
	d := s.durable
	if d == nil {
		return nil
	}
	s.mu.Lock()
	r, ok := s.tasks[id]
	local := ok && (r.run != nil || !d.shared)
	s.mu.Unlock()
	if local {
		return nil
	}
	snap, err := d.st.Load(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		return nil
	}
	if err != nil {
		return d.fail(err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	r, ok = s.tasks[id]
	if ok && (r.run != nil || snap.Owner == d.st.Replica()) {
		return nil // it runs here (again): memory is newer
	}
	was := false
	if ok {
		was = finished(r)
	} else {
		r = &record{subs: map[*Subscriber]struct{}{}}
		s.tasks[id] = r
	}
	r.task, r.updated, r.seq, r.owner = snap.Task, snap.Updated, snap.Seq, snap.Owner
	r.written = writtenKey{state: snap.Task.Status.State, running: snap.Owner != ""}
	r.artBytes = artifactsSize(r.task.Artifacts)
	r.push = nil
	for _, p := range snap.Push {
		r.push = append(r.push, pushHook{cfg: p.Config, v03: p.V03})
	}
	d.quiet = true
	s.changedLocked(r, was)
	d.quiet = false
	return nil
}

// check fails a call that needs the store while it is away.
func (d *durable) check() error {
	if d == nil {
		return nil
	}
	if d.st.Err() != nil {
		return errStoreUnavailable // the store logged why when it went away
	}
	return nil
}

// waitRoom holds a turn's next event while the store's backlog of unwritten events is full (see store.WaitRoom).
func (d *durable) waitRoom(ctx context.Context) error {
	if d == nil || !d.shared {
		return nil
	}
	return d.st.WaitRoom(ctx)
}

// syncHold bounds how long the end of a turn waits for its write while the store is away; syncSlow bounds how long
// it waits for a store that is reachable but slow.
const (
	syncHold = 5 * time.Second
	syncSlow = time.Minute
)

// sync waits until task id's last change is written, trying again while the store is away, for at most syncHold of
// it being away. A change that is not written in time stays queued, and is written once the store is back.
//
// Only the store being away (a write failed: Err) uses up the hold. A store that answers slowly (the database
// overloaded, this process starved of CPU or paused by SIGSTOP or a frozen VM) is waited for, up to syncSlow: its
// write is under way, and telling the caller "not saved yet" would be false (a soak at 70% load saw it).
func (d *durable) sync(id a2a.TaskID) error {
	start := time.Now()
	deadline := start.Add(syncHold)
	retry := time.NewTicker(250 * time.Millisecond)
	defer retry.Stop()
	for {
		ctx, cancel := context.WithDeadline(context.Background(), deadline)
		err := d.st.FlushTask(ctx, id)
		cancel()
		if err == nil || errors.Is(err, store.ErrLost) {
			return err
		}
		now := time.Now()
		if d.st.Err() == nil && now.Sub(start) < syncSlow {
			deadline = now.Add(syncHold) // reachable: only slow
			continue
		}
		if !now.Before(deadline) {
			return err
		}
		select {
		case <-retry.C:
		case <-time.After(time.Until(deadline)):
		}
	}
}

// syncLater waits until task id's last change is written, however long the store is away, or until ctx is done.
func (d *durable) syncLater(ctx context.Context, id a2a.TaskID) error {
	retry := time.NewTicker(time.Second)
	defer retry.Stop()
	for {
		err := d.st.FlushTask(ctx, id)
		if err == nil || errors.Is(err, store.ErrLost) {
			return err
		}
		select {
		case <-retry.C:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// unsaved is what the callers of a turn hear instead of its end when the store could not save it: the task is not
// reported done (a crash now would lose it) and they learn where to look once the store is back.
func (d *durable) unsaved(id a2a.TaskID, err error) error {
	d.fail(err)
	return a2a.NewError(a2a.ErrInternalError, fmt.Sprintf("task store unavailable: task %s ended but is not saved yet; "+
		"it is saved once the store is back (get the task then)", id))
}

// syncTask waits until task id is in the store, if there is one: a task is there before its client hears of it
// (a blocking send hears only of the end, which the turn writes itself), should this process die next.
func (s *Store) syncTask(id a2a.TaskID) {
	if s.durable != nil {
		s.durable.sync(id) //nolint:errcheck // a task that is not ended yet: its end is what must be durable
	}
}

// listDurable answers ListTasks from the store, which holds every replica's tasks, once this one's changes are in.
func (s *Store) listDurable(ctx context.Context, req *a2a.ListTasksRequest) (*a2a.ListTasksResponse, error) {
	pageSize, after, err := listParams(req)
	if err != nil {
		return nil, err
	}
	st := s.durable.st
	fctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if err := st.Flush(fctx); err != nil {
		return nil, s.durable.fail(err)
	}
	q := store.Query{ContextID: req.ContextID, State: req.Status, StatusAfter: req.StatusTimestampAfter, Limit: pageSize + 1}
	if after != nil {
		q.After = &store.Cursor{Updated: after.updated, ID: after.id}
	}
	page, total, err := st.List(ctx, q)
	if err != nil {
		return nil, s.durable.fail(err)
	}
	resp := &a2a.ListTasksResponse{Tasks: []*a2a.Task{}, TotalSize: total, PageSize: pageSize}
	if len(page) > pageSize {
		page = page[:pageSize]
		last := page[len(page)-1]
		resp.NextPageToken = encodeCursor(cursor{updated: last.Updated, id: last.Task.ID})
	}
	for _, snap := range page {
		resp.Tasks = append(resp.Tasks, snapshot(snap.Task, req.HistoryLength, req.IncludeArtifacts))
	}
	return resp, nil
}

// listTasks is ListTasks on whichever store serves.
func (s *Store) listTasks(ctx context.Context, req *a2a.ListTasksRequest) (*a2a.ListTasksResponse, error) {
	if s.durable != nil {
		return s.listDurable(ctx, req)
	}
	return s.list(req)
}

// getTask is GetTask on whichever store serves.
func (s *Store) getTask(ctx context.Context, id a2a.TaskID, historyLength *int) (*a2a.Task, error) {
	if err := s.refresh(ctx, id); err != nil {
		return nil, err
	}
	if err := s.endSaved(ctx, id); err != nil {
		return nil, err
	}
	return s.view(id, historyLength)
}

// endSaved waits, for a task whose turn here has just ended in memory, until that end is in the store: no one hears
// of an end a crash would lose (the turn's own callers wait for it too, see Runner.emit). A poll that read the end
// from memory told its client "completed" about a task that the other replicas then failed, when this one was
// killed before the write.
func (s *Store) endSaved(ctx context.Context, id a2a.TaskID) error {
	d := s.durable
	if d == nil {
		return nil
	}
	s.mu.Lock()
	r, ok := s.tasks[id]
	saving := ok && r.saving
	s.mu.Unlock()
	if !saving {
		return nil
	}
	if err := d.sync(id); errors.Is(err, store.ErrLost) {
		s.adoptLost(r, id)
	} else if err != nil {
		return d.fail(err)
	}
	s.saved(r)
	return ctx.Err()
}

// adoptLost makes the memory copy of task id, whose end here turned out lost (store.ErrLost: another replica failed
// it while this one's lease had expired), the store's: that end is the one everyone hears. It returns the event that
// tells it. Should the store not answer now, the task is failed here as the other replica failed it.
func (s *Store) adoptLost(r *record, id a2a.TaskID) *a2a.TaskStatusUpdateEvent {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	snap, err := s.durable.st.Load(ctx, id)
	cancel()
	s.mu.Lock()
	defer s.mu.Unlock()
	was := finished(r)
	if err == nil {
		r.task, r.updated, r.seq, r.owner = snap.Task, snap.Updated, snap.Seq, snap.Owner
		r.written = writtenKey{state: snap.Task.Status.State, running: snap.Owner != ""}
		r.artBytes = artifactsSize(r.task.Artifacts)
	} else {
		now := s.now()
		r.task.Status = a2a.TaskStatus{State: a2a.TaskStateFailed, Timestamp: &now,
			Message: a2a.NewMessageForTask(a2a.MessageRoleAgent, r.task, a2a.NewTextPart(errLost.Error()))}
	}
	r.saving = false
	s.durable.quiet = true
	s.changedLocked(r, was)
	s.durable.quiet = false
	st := r.task.Status
	end := a2a.NewStatusUpdateEvent(a2a.TaskInfo{TaskID: r.task.ID, ContextID: r.task.ContextID}, st.State, st.Message)
	end.Status.Timestamp = st.Timestamp
	return end
}

// saved notes that r's end is in the store.
func (s *Store) saved(r *record) {
	s.mu.Lock()
	r.saving = false
	s.mu.Unlock()
}

// writableLocked refuses to change, here, a task that runs on another replica.
func writableLocked(r *record) error {
	if r.owner != "" {
		return a2a.NewError(a2a.ErrUnsupportedOperation, fmt.Sprintf("task %s is running on replica %s: change it there, or once its turn ended", r.task.ID, r.owner))
	}
	return nil
}

// CloseDurable writes what is pending and closes the store behind s, if any.
func (s *Store) CloseDurable() error {
	if s.durable == nil {
		return nil
	}
	return s.durable.st.Close()
}

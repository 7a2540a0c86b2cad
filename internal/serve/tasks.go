package serve

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

// agent is what a task-keeping backend (echo, exec) plugs into taskHandler.
type agent interface {
	// reply answers msg directly, without creating a task, when it returns non-nil.
	reply(msg *a2a.Message) *a2a.Message
	// run performs one turn of a task. It emits working status and artifact events through t.emit
	// and returns the final state with an optional status message. It must return promptly once
	// ctx is done; the handler then records the task as canceled.
	run(ctx context.Context, t *turn) (a2a.TaskState, *a2a.Message)
}

// turn is one run of the agent on a task, triggered by a user message.
type turn struct {
	info    a2a.TaskInfo
	Message *a2a.Message
	emit    func(a2a.Event)
	place   *ticket // the turn's place in the agent's queue (see queuer); nil when it has none
}

// queuer is an agent whose turns wait for a slot in arrival order: queue runs in the order the
// messages arrived, before the turns' goroutines start (and race each other to the queue).
type queuer interface {
	queue(t *turn)
}

// turnRun tracks a running turn. The execution context is detached from the request that started
// it: a client that disconnects does not stop the task.
type turnRun struct {
	cancel context.CancelCauseFunc
	done   chan struct{}
}

var (
	errCanceledByClient = errors.New("task canceled by client")
	errShutdown         = errors.New("server shutting down")
)

// subscriber receives the events of one task. Only the goroutine running the task's turn sends
// on ch or closes it; gone is closed when the subscriber stops listening.
type subscriber struct {
	ch   chan a2a.Event
	gone chan struct{}
	once sync.Once
}

func newSubscriber() *subscriber {
	return &subscriber{ch: make(chan a2a.Event, 64), gone: make(chan struct{})}
}

func (s *subscriber) leave() { s.once.Do(func() { close(s.gone) }) }

// tasks runs turns and fans their events out to subscribers. Every event of a task is applied to
// the store and delivered by the single goroutine running the task's current turn, so events
// reach every subscriber in order.
type tasks struct {
	store *memStore
	agent agent
	push  *pusher
	wg    sync.WaitGroup
	base  context.Context
	stop  context.CancelCauseFunc
}

func newTasks(store *memStore, a agent, push *pusher) *tasks {
	base, stop := context.WithCancelCause(context.Background())
	return &tasks{store: store, agent: a, push: push, base: base, stop: stop}
}

// start records msg on a new or existing task, subscribes the caller when sub is non-nil and
// starts the turn. It returns a snapshot of the task as it was when the turn started. A task in a
// terminal state takes another turn only when reopen is set (v0.3 calls: see legacyCall). A push
// config is attached before the turn starts, so its webhook gets every event.
func (ts *tasks) start(msg *a2a.Message, sub *subscriber, reopen bool, push *a2a.PushConfig) (*a2a.Task, error) {
	if ts.base.Err() != nil {
		return nil, a2a.NewError(a2a.ErrServerError, "server is shutting down")
	}
	run := &turnRun{done: make(chan struct{})}
	var rec *record
	s := ts.store
	if err := s.durable.check(); err != nil {
		return nil, err
	}
	if msg.TaskID != "" {
		ctx, cancel := context.WithTimeout(ts.base, 10*time.Second)
		err := s.refresh(ctx, msg.TaskID)
		cancel()
		if err != nil {
			return nil, err
		}
	}
	now := s.now()
	if msg.TaskID == "" {
		t := &a2a.Task{ID: a2a.NewTaskID(), ContextID: msg.ContextID, History: []*a2a.Message{msg},
			Status: a2a.TaskStatus{State: a2a.TaskStateSubmitted, Timestamp: &now}}
		if t.ContextID == "" {
			t.ContextID = a2a.NewContextID()
		}
		msg.TaskID, msg.ContextID = t.ID, t.ContextID
		t.History[0] = s.historyMessage(msg)
		r, err := s.insert(t)
		if err != nil {
			return nil, fmt.Errorf("store task: %w", err)
		}
		rec = r
	}
	s.mu.Lock()
	was := false // whether the task was finished before this turn
	if rec == nil {
		r, err := s.lookupLocked(msg.TaskID)
		if err != nil {
			s.mu.Unlock()
			return nil, err
		}
		if r.run != nil || r.owner != "" {
			s.mu.Unlock()
			return nil, a2a.NewError(a2a.ErrInvalidRequest, fmt.Sprintf("task %s is still running", msg.TaskID))
		}
		if r.task.Status.State.Terminal() && !reopen {
			s.mu.Unlock()
			return nil, terminalTaskError(r.task)
		}
		if msg.ContextID != "" && msg.ContextID != r.task.ContextID {
			s.mu.Unlock()
			return nil, a2a.NewError(a2a.ErrInvalidParams, "message context ID does not match the task's")
		}
		was = finished(r)
		msg.ContextID = r.task.ContextID
		r.task.History = append(r.task.History, s.historyMessage(msg))
		r.task.Status = a2a.TaskStatus{State: a2a.TaskStateSubmitted, Timestamp: &now}
		r.updated = now
		rec = r
	}
	rec.run = run
	if push != nil {
		s.addPushLocked(rec, push, reopen) // reopen: a v0.3 call
	}
	s.changedLocked(rec, was)
	if sub != nil {
		rec.subs[sub] = struct{}{}
	}
	snap := snapshot(rec.task, nil, true)
	ctx, cancel := context.WithCancelCause(ts.base)
	run.cancel = cancel
	ts.wg.Add(1)
	t := &turn{info: a2a.TaskInfo{TaskID: rec.task.ID, ContextID: msg.ContextID}, Message: msg}
	if q, ok := ts.agent.(queuer); ok {
		q.queue(t)
	}
	s.mu.Unlock()
	go ts.runTurn(ctx, rec, run, t)
	return snap, nil
}

func (ts *tasks) runTurn(ctx context.Context, rec *record, run *turnRun, t *turn) {
	defer ts.wg.Done()
	defer close(run.done)
	defer run.cancel(nil)
	t.emit = func(ev a2a.Event) { ts.emit(rec, ev, false) }
	state, status := ts.agent.run(ctx, t)
	if cause := context.Cause(ctx); errors.Is(cause, errCanceledByClient) || errors.Is(cause, errShutdown) {
		state = a2a.TaskStateCanceled
		status = a2a.NewMessageForTask(a2a.MessageRoleAgent, t.info, a2a.NewTextPart(cause.Error()))
	}
	if state == a2a.TaskStateUnspecified {
		state = a2a.TaskStateCompleted
	}
	ts.emit(rec, a2a.NewStatusUpdateEvent(t.info, state, status), true)
}

// emit applies ev to the task and delivers it to the current subscribers, waiting for slow ones
// (backpressure) unless they leave. The last event of a turn closes the subscriptions.
func (ts *tasks) emit(rec *record, ev a2a.Event, last bool) {
	if st, ok := ev.(*a2a.TaskStatusUpdateEvent); ok && st.Status.Timestamp == nil {
		now := ts.store.now()
		st.Status.Timestamp = &now
	}
	s := ts.store
	s.mu.Lock()
	s.applyLocked(rec, ev)
	hooks, task := rec.push, pushTaskLocked(rec)
	var few [4]*subscriber // most tasks have one subscriber: no allocation per event
	subs := few[:0]
	for sub := range rec.subs {
		subs = append(subs, sub)
	}
	if last {
		was := finished(rec)
		rec.run = nil
		clear(rec.subs)
		s.changedLocked(rec, was)
	}
	s.mu.Unlock()
	if last && s.durable != nil {
		s.durable.sync(rec.task.ID)
	}
	ts.push.deliver(hooks, ev, task)
	for _, sub := range subs {
		select {
		case sub.ch <- ev:
		case <-sub.gone:
		}
		if last {
			close(sub.ch)
		}
	}
}

// subscribe attaches sub to a running task and returns its current snapshot. For a task that is
// not running, sub is not attached (the caller ends the stream after the snapshot); a task in a
// terminal state is refused with UnsupportedOperationError, as the specification asks, unless
// ended is set (v0.3 calls, which get the snapshot).
func (ts *tasks) subscribe(id a2a.TaskID, sub *subscriber, ended bool) (*a2a.Task, bool, error) {
	s := ts.store
	s.mu.Lock()
	defer s.mu.Unlock()
	r, err := s.lookupLocked(id)
	if err != nil {
		return nil, false, err
	}
	if r.owner != "" {
		return nil, false, &remoteRun{owner: r.owner, seq: r.seq, snap: snapshot(r.task, nil, true)}
	}
	if r.run == nil {
		if r.task.Status.State.Terminal() && !ended {
			return nil, false, terminalTaskError(r.task)
		}
		return snapshot(r.task, nil, true), false, nil
	}
	r.subs[sub] = struct{}{}
	return snapshot(r.task, nil, true), true, nil
}

func (ts *tasks) unsubscribe(id a2a.TaskID, sub *subscriber) {
	sub.leave()
	s := ts.store
	s.mu.Lock()
	if r, ok := s.tasks[id]; ok {
		delete(r.subs, sub)
	}
	s.mu.Unlock()
}

// cancel stops a running task and waits until it has recorded its final state.
func (ts *tasks) cancel(ctx context.Context, id a2a.TaskID) (*a2a.Task, error) {
	s := ts.store
	if err := s.refresh(ctx, id); err != nil {
		return nil, err
	}
	s.mu.Lock()
	r, err := s.lookupLocked(id)
	if err != nil {
		s.mu.Unlock()
		return nil, err
	}
	if r.owner != "" {
		s.mu.Unlock()
		return s.durable.cancelRemote(ctx, id)
	}
	run := r.run
	if run == nil {
		if r.task.Status.State.Terminal() {
			s.mu.Unlock()
			return nil, a2a.NewError(a2a.ErrTaskNotCancelable, fmt.Sprintf("task is already %s", shortState(r.task.Status.State)))
		}
		now := s.now()
		ev := a2a.NewStatusUpdateEvent(r.task, a2a.TaskStateCanceled, nil)
		ev.Status.Timestamp = &now
		s.applyLocked(r, ev)
		snap := snapshot(r.task, nil, true)
		hooks, task := r.push, pushTaskLocked(r)
		s.mu.Unlock()
		ts.push.deliver(hooks, ev, task)
		return snap, nil
	}
	s.mu.Unlock()
	run.cancel(errCanceledByClient)
	select {
	case <-run.done:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	return s.view(id, nil)
}

// shutdown cancels every running turn and waits for them to record their final state.
func (ts *tasks) shutdown(ctx context.Context) error {
	ts.stop(errShutdown)
	done := make(chan struct{})
	go func() {
		ts.wg.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-ctx.Done():
		return fmt.Errorf("wait for running tasks: %w", ctx.Err())
	}
	if ts.push != nil {
		return ts.push.close(ctx)
	}
	return nil
}

// terminalTaskError is the specification's answer to SendMessage or SubscribeToTask on a task in a
// terminal state: UnsupportedOperationError (the client starts a new task, in the same context if
// it likes, or reads the final state with GetTask).
func terminalTaskError(t *a2a.Task) error {
	return a2a.NewError(a2a.ErrUnsupportedOperation, fmt.Sprintf("task %s is already %s", t.ID, shortState(t.Status.State)))
}

// legacyKey marks the context of a call that came in over a v0.3 interface.
type legacyKey struct{}

func withLegacyCall(ctx context.Context) context.Context {
	return context.WithValue(ctx, legacyKey{}, true)
}

// legacyCall reports whether ctx is a call over a v0.3 interface. The v0.3 specification let a task
// that ended take more messages and be resubscribed (its TCK requires both); v1.0 refuses both with
// UnsupportedOperationError.
func legacyCall(ctx context.Context) bool {
	v, _ := ctx.Value(legacyKey{}).(bool)
	return v
}

package tasks

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/a2acli/a2a/internal/store"
)

// Agent is what a task-keeping backend (echo, exec) plugs into Handler.
type Agent interface {
	// Reply answers msg directly, without creating a task, when it returns non-nil.
	Reply(msg *a2a.Message) *a2a.Message
	// Run performs one turn of a task. It emits working status and artifact events through t.Emit
	// and returns the final state with an optional status message. It must return promptly once
	// ctx is done; the handler then records the task as canceled.
	Run(ctx context.Context, t *Turn) (a2a.TaskState, *a2a.Message)
}

// Turn is one run of the agent on a task, triggered by a user message.
type Turn struct {
	Info    a2a.TaskInfo
	Message *a2a.Message
	emit    func(ev a2a.Event, last bool)
	Place   *Ticket // the turn's place in the agent's queue (see Queuer); nil when it has none

	finished bool // Finish was called: the turn's final event is out
}

// Emit applies ev to the task and delivers it to the task's subscribers.
func (t *Turn) Emit(ev a2a.Event) { t.emit(ev, false) }

// Finish emits ev as the turn's final event, which ends the subscriptions; the state Run returns
// is then not reported. An agent that calls it does so last (replay: the recorded last event).
func (t *Turn) Finish(ev a2a.Event) {
	t.emit(ev, true)
	t.finished = true
}

// Queuer is an agent whose turns wait for a slot in arrival order: queue runs in the order the
// messages arrived, before the turns' goroutines start (and race each other to the queue).
type Queuer interface {
	Queue(t *Turn)
}

// turnRun tracks a running turn. The execution context is detached from the request that started
// it: a client that disconnects does not stop the task.
type turnRun struct {
	cancel context.CancelCauseFunc
	done   chan struct{}
	// unsaved is set before done is closed when the turn's end could not be saved (see Subscriber.Err).
	unsaved error
}

var (
	errCanceledByClient = errors.New("task canceled by client")
	errLost             = errors.New("this replica was silent longer than its lease and another failed the task")
	errShutdown         = errors.New("server shutting down")
)

// Subscriber receives the events of one task. Only the goroutine running the task's turn sends
// on ch or closes it; gone is closed when the Subscriber stops listening.
type Subscriber struct {
	ch   chan a2a.Event
	gone chan struct{}
	once sync.Once
	err  error // set before ch is closed when the turn's last event is withheld (see Err)
}

func NewSubscriber() *Subscriber {
	return &Subscriber{ch: make(chan a2a.Event, 64), gone: make(chan struct{})}
}

func (s *Subscriber) leave() { s.once.Do(func() { close(s.gone) }) }

// Runner runs turns and fans their events out to subscribers. Every event of a task is applied to
// the store and delivered by the single goroutine running the task's current turn, so events
// reach every Subscriber in order.
type Runner struct {
	store *Store
	agent Agent
	push  *Pusher
	wg    sync.WaitGroup
	base  context.Context
	stop  context.CancelCauseFunc
}

func NewRunner(store *Store, a Agent, push *Pusher) *Runner {
	base, stop := context.WithCancelCause(context.Background())
	ts := &Runner{store: store, agent: a, push: push, base: base, stop: stop}
	if d := store.durable; d != nil {
		cancel := func(id a2a.TaskID) { ts.cancel(context.Background(), id) } //nolint:errcheck // the requester reads the outcome from the store
		d.cancelLocal.Store(&cancel)
		lose := ts.lose
		d.loseLocal.Store(&lose)
	}
	return ts
}

// lose stops the turn of a task that another replica failed while this one's lease had expired: the store keeps
// that end, and this turn's is not written.
func (ts *Runner) lose(id a2a.TaskID) {
	ts.store.mu.Lock()
	var run *turnRun
	if r, ok := ts.store.tasks[id]; ok {
		run = r.run
	}
	ts.store.mu.Unlock()
	if run != nil {
		run.cancel(errLost)
	}
}

// StartOptions are what a call adds to the message that starts a turn.
type StartOptions struct {
	// Reopen lets a task in a terminal state take another turn (v0.3 calls: see legacyCall; replay).
	Reopen bool
	// Push is attached before the turn starts, so its webhook gets every event; nil => none.
	Push *a2a.PushConfig
	// KeepStatus leaves a continued task's status as it was instead of submitted (replay: the
	// recording says what the status becomes).
	KeepStatus bool
	// Create makes msg.TaskID (and msg.ContextID, when set) the ids of a new task, chosen by the
	// caller (replay, which rewrites recorded ids before the turn starts); false => msg.TaskID ""
	// creates a task with fresh ids, any other continues that task.
	Create bool
	// Run runs this turn instead of the runner's agent; nil => the agent's Run.
	Run func(ctx context.Context, t *Turn) (a2a.TaskState, *a2a.Message)
}

// Start records msg on a new or existing task, subscribes the caller when sub is non-nil and
// starts the turn. It returns a snapshot of the task as it was when the turn started. A task in a
// terminal state takes another turn only when o.Reopen is set.
func (ts *Runner) Start(msg *a2a.Message, sub *Subscriber, o StartOptions) (*a2a.Task, error) {
	if ts.base.Err() != nil {
		return nil, a2a.NewError(a2a.ErrServerError, "server is shutting down")
	}
	if err := ts.store.durable.check(); err != nil {
		return nil, err
	}
	if msg.TaskID != "" && !o.Create {
		ctx, cancel := context.WithTimeout(ts.base, 10*time.Second)
		err := ts.store.refresh(ctx, msg.TaskID)
		cancel()
		if err != nil {
			return nil, err
		}
	}
	run := &turnRun{done: make(chan struct{})}
	ctx, cancel := context.WithCancelCause(ts.base)
	run.cancel = cancel
	var t *Turn
	rec, snap, err := ts.store.open(msg, sub, o, run, func(info a2a.TaskInfo) {
		t = &Turn{Info: info, Message: msg}
		if q, ok := ts.agent.(Queuer); ok && o.Run == nil {
			q.Queue(t) // under the store's lock: turns queue in the order their messages arrived
		}
	})
	if err != nil {
		cancel(nil)
		return nil, err
	}
	ts.wg.Add(1)
	go ts.runTurn(ctx, rec, run, t, o.Run)
	return snap, nil
}

func (ts *Runner) runTurn(ctx context.Context, rec *record, run *turnRun, t *Turn, runF func(context.Context, *Turn) (a2a.TaskState, *a2a.Message)) {
	defer ts.wg.Done()
	defer close(run.done)
	defer run.cancel(nil)
	t.emit = func(ev a2a.Event, last bool) {
		// While the store is away its backlog of events is bounded: the agent waits here (an exec command blocks on
		// its full pipe) until a write makes room, or the turn is canceled.
		ts.store.durable.waitRoom(ctx) //nolint:errcheck // a canceled turn emits its event anyway: one past the bound
		if err := ts.emit(rec, ev, last); err != nil {
			run.unsaved = err
		}
	}
	if runF == nil {
		runF = ts.agent.Run
	}
	state, status := runF(ctx, t)
	if t.finished {
		return
	}
	if cause := context.Cause(ctx); errors.Is(cause, errCanceledByClient) || errors.Is(cause, errShutdown) {
		state = a2a.TaskStateCanceled
		status = a2a.NewMessageForTask(a2a.MessageRoleAgent, t.Info, a2a.NewTextPart(cause.Error()))
	} else if errors.Is(cause, errLost) {
		state = a2a.TaskStateFailed // as the store says: the other replica's end
		status = a2a.NewMessageForTask(a2a.MessageRoleAgent, t.Info, a2a.NewTextPart(cause.Error()))
	}
	if state == a2a.TaskStateUnspecified {
		state = a2a.TaskStateCompleted
	}
	run.unsaved = ts.emit(rec, a2a.NewStatusUpdateEvent(t.Info, state, status), true)
}

// emit applies ev to the task and delivers it to the current subscribers, waiting for slow ones
// (backpressure) unless they leave. The last event of a turn closes the subscriptions; it returns the error the
// subscribers got instead when the store could not save it.
func (ts *Runner) emit(rec *record, ev a2a.Event, last bool) error {
	if st, ok := ev.(*a2a.TaskStatusUpdateEvent); ok && st.Status.Timestamp == nil {
		now := ts.store.now()
		st.Status.Timestamp = &now
	}
	var few [4]*Subscriber // most tasks have one subscriber: no allocation per event
	hooks, task, subs := ts.store.apply(rec, ev, last, few[:0])
	if last && ts.store.durable != nil {
		// The end of a turn is in the store before anyone hears of it. A store that stays away keeps the change
		// queued (written once it is back), and the callers hear that instead of an end that a crash would lose.
		err := ts.store.durable.sync(rec.task.ID)
		if errors.Is(err, store.ErrLost) {
			// Another replica failed the task while this one was silent past its lease: its end, not this one's,
			// is what the store keeps and what everyone hears (the push webhooks heard it from there).
			end := ts.store.adoptLost(rec, rec.task.ID)
			for _, sub := range subs {
				select {
				case sub.ch <- end:
				case <-sub.gone:
				}
				close(sub.ch)
			}
			return nil
		}
		if err != nil {
			failed := ts.store.durable.unsaved(rec.task.ID, err)
			for _, sub := range subs {
				sub.err = failed
				close(sub.ch)
			}
			if len(hooks) > 0 { // webhooks hear of the end once it is saved
				ts.wg.Add(1)
				go func() {
					defer ts.wg.Done()
					if ts.store.durable.syncLater(ts.base, rec.task.ID) == nil {
						ts.push.deliver(hooks, ev, task)
					}
				}()
			}
			return failed
		}
		ts.store.saved(rec)
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
	return nil
}

// subscribe attaches sub to a task that is not in a terminal state and returns its current snapshot:
// the subscription ends with the turn that runs, or, for a task waiting at input-required or
// auth-required, with the turn that a follow-up message starts, or the task's cancellation (§3.1.6:
// SubscribeToTask "can be used with any task that is not in a terminal state"). A task in a terminal
// state is refused with UnsupportedOperationError, as the specification asks, unless ended is set
// (v0.3 calls, which get the snapshot, sub not attached).
func (ts *Runner) subscribe(id a2a.TaskID, sub *Subscriber, ended bool) (*a2a.Task, bool, error) {
	return ts.store.attach(id, sub, ended)
}

// Unsubscribe detaches sub from task id; the subscriber stops listening at once.
func (ts *Runner) Unsubscribe(id a2a.TaskID, sub *Subscriber) {
	sub.leave()
	ts.store.detach(id, sub)
}

// cancel stops a running task and waits until it has recorded its final state.
func (ts *Runner) cancel(ctx context.Context, id a2a.TaskID) (*a2a.Task, error) {
	if err := ts.store.refresh(ctx, id); err != nil {
		return nil, err
	}
	run, idle, err := ts.store.cancelIdle(id)
	var remote *remoteRun
	if errors.As(err, &remote) {
		return ts.store.durable.cancelRemote(ctx, id)
	}
	if err != nil {
		return nil, err
	}
	if run == nil {
		ts.push.deliver(idle.hooks, idle.ev, idle.task)
		for _, sub := range idle.subs { // subscribed while it waited for input: the cancel is their last event
			select {
			case sub.ch <- idle.ev:
			case <-sub.gone:
			}
			close(sub.ch)
		}
		return idle.snap, nil
	}
	run.cancel(errCanceledByClient)
	select {
	case <-run.done:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	if run.unsaved != nil {
		return nil, run.unsaved // canceled, but not saved: not reported so
	}
	return ts.store.view(id, nil)
}

// shutdown cancels every running turn and waits for them to record their final state.
func (ts *Runner) shutdown(ctx context.Context) error {
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
	// Subscriptions to tasks waiting for input end too (the tasks stay as they are): their streams close,
	// so the servers can drain.
	for _, sub := range ts.store.takeIdleSubs() {
		close(sub.ch)
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
	return a2a.NewError(a2a.ErrUnsupportedOperation, fmt.Sprintf("task %s is already %s", t.ID, ShortState(t.Status.State)))
}

// legacyKey marks the context of a call that came in over a v0.3 interface. It carries request
// input down (the front sets it, the handler reads it), never a result back up.
type legacyKey struct{}

// WithLegacyCall marks ctx as a call over a v0.3 interface.
func WithLegacyCall(ctx context.Context) context.Context {
	return context.WithValue(ctx, legacyKey{}, true)
}

// legacyCall reports whether ctx is a call over a v0.3 interface. Over v0.3 a task that ended takes more
// messages (the v0.3 TCK requires it) and a subscription to it gets the task as it ended, then the end of
// the stream (the v0.3 specification's a2a.proto, TaskSubscription: "If the task is complete the stream will
// return the completed task (like GetTask) and close the stream"; a2a-js 0.3's server does the same); v1.0
// refuses both with UnsupportedOperationError.
func legacyCall(ctx context.Context) bool {
	v, _ := ctx.Value(legacyKey{}).(bool)
	return v
}

package follow

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"sync"
	"time"

	"github.com/a2acli/a2a/internal/client"
	"github.com/a2acli/a2a/internal/devtool"
	"github.com/a2acli/a2a/internal/output"
	"github.com/a2acli/a2a/internal/termsafe"
	"github.com/a2aproject/a2a-go/v2/a2a"
)

// A streamed task is followed to a terminal or interrupted state whatever the stream does (docs/CONTRACT.md, "Time"):
//
//   - A stream that ends, or breaks, before that state is resumed: SubscribeToTask, and when that fails, GetTask
//     polling. Only when neither reaches the agent does the command fail, with A2ANC_ERR_STREAM_LOST, the task id and
//     the commands that look it up.
//   - Silence longer than --timeout is a question: GetTask tells whether the task is alive (keep waiting), settled
//     (that is the outcome) or out of reach (the stream counts as lost).
//   - A terminal or interrupted state ends the stream at once, even when the agent keeps the connection open; only a
//     development-tool agent is read to the end (its connection rule, see connTracker, and its stale input-required
//     events inside a turn). On a follow-up (FollowUp), the interrupted state the task had before our message is
//     not its end: the stream is read on until the agent reacts, or ends (then that state stands).

// Env is what following a task needs from the command's run: the -v log, the tenant and the wait bounds.
type Env struct {
	Log    *client.Log
	Tenant string
	Wait   *Wait // nil: the defaults
	// VersionOptIn is the protocol version the run was told on its command line or in its environment to speak
	// (--a2a-version 0.3): every follow-up command printed carries it, or pasting it would be refused. "" when
	// none (a version an agent's own config file sets applies to the pasted command anyway).
	VersionOptIn string
}

// Ref is the agent of a printed follow-up command, shell-quoted: its URL and the version opt-in the run used.
func (e *Env) Ref(agentURL string) string {
	ref := termsafe.ShellQuote(agentURL)
	if e != nil && e.VersionOptIn != "" {
		ref += " --a2a-version " + termsafe.ShellQuote(e.VersionOptIn)
	}
	return ref
}

func (e *Env) wait() *Wait {
	if e.Wait == nil || e.Wait.PollInterval <= 0 {
		w := Wait{PollInterval: DefaultPollInterval}
		if e.Wait != nil {
			w.Wait = e.Wait.Wait
		}
		return &w
	}
	return e.Wait
}

func shortState(s a2a.TaskState) string { return output.ShortState(s) }

// maxResubscribes bounds the resubscriptions of one command that bring events but never a settled state.
const maxResubscribes = 10

var (
	errSettledBySilence = errors.New("task settled while the stream was silent")
	errSilentLost       = errors.New("no event and no answer to GetTask within --timeout")
)

// follow streams the turn opened by open and sees its task through to a settled state (see above).
func (t *Turn) follow(ctx context.Context, open func(context.Context) iter.Seq2[a2a.Event, error]) error {
	err := t.streamOnce(ctx, open)
	silences := 0 // streams that went silent past --timeout without the agent vouching for the task
	for tries := 0; ; tries++ {
		task := t.View.Task
		if errors.Is(err, errSilentLost) {
			silences++
		}
		switch {
		case t.View.Message != nil && task == nil, task != nil && Settled(task.Status.State) && !(t.heldNow && err != nil):
			// (A stream that broke right after the task's state from before a follow-up is resumed.)
			return nil
		case ctx.Err() != nil:
			return t.Env.giveUpIfLive(ctx, t.URL, task, err)
		case task == nil || task.ID == "":
			if err == nil && t.View.Message == nil {
				return errors.New("the stream ended without a task or message")
			}
			return err
		case err != nil && !recoverable(err):
			return t.Env.giveUpIfLive(ctx, t.URL, task, err)
		case errors.Is(err, errSilentLost) && (isProtocolError(err) || silences > 1):
			// Silence past --timeout, and the agent does not know the task (its answer to GetTask) or went silent
			// again after a resubscription: waiting on would take another --timeout each time, past what the user
			// asked for. The stream is lost.
			return t.Env.GiveUp(t.URL, task.ID, task.Status.State, true, err)
		case tries >= maxResubscribes:
			return t.poll(ctx, task, err)
		}
		id := task.ID
		t.Env.Log.Printf("stream of task %s ended in state %s (%v): resubscribing", id, shortState(task.Status.State), errOrEOF(err))
		seen := false
		err = t.streamOnce(ctx, func(ctx context.Context) iter.Seq2[a2a.Event, error] {
			return t.C.SubscribeToTask(ctx, &a2a.SubscribeToTaskRequest{ID: id, Tenant: t.Env.Tenant})
		}, func() { seen = true })
		if !seen && !(t.View.Task != nil && Settled(t.View.Task.Status.State)) {
			if err != nil && !recoverable(err) && !isProtocolError(err) {
				return t.Env.giveUpIfLive(ctx, t.URL, t.View.Task, err)
			}
			return t.poll(ctx, t.View.Task, err)
		}
	}
}

// poll follows a task whose stream is gone by polling GetTask; the settled task is shown as the stream's last event.
// cause is why the stream is gone.
func (t *Turn) poll(ctx context.Context, task *a2a.Task, cause error) error {
	t.Env.Log.Printf("resubscribing to task %s failed (%v): polling", task.ID, errOrEOF(cause))
	return t.pollFrom(ctx, task, cause)
}

// Poll follows task id on an agent that does not stream (docs/CONTRACT.md, "Time"): the task as GetTask reads it, then
// every change polling sees, until it settles; each is rendered as a stream's event would be. The agent's error on
// the first GetTask (an unknown task, say) is returned as it is.
func (t *Turn) Poll(ctx context.Context, id a2a.TaskID) error {
	task, err := client.Unary(ctx, t.C, func(ctx context.Context) (*a2a.Task, error) {
		return t.C.GetTask(ctx, &a2a.GetTaskRequest{ID: id, Tenant: t.Env.Tenant})
	})
	switch {
	case err != nil:
		return Expired(ctx, Cause(ctx, err))
	case task == nil:
		return errors.New("get task: the agent answered no task")
	}
	if err := t.apply(task); err != nil || Settled(task.Status.State) {
		return err
	}
	t.Env.Log.Printf("task %s is %s: polling until it ends", id, shortState(task.Status.State))
	return t.pollFrom(ctx, task, nil)
}

// pollFrom polls task (the last state seen) until it settles; see poll.
func (t *Turn) pollFrom(ctx context.Context, task *a2a.Task, cause error) error {
	final, err := t.Env.PollTask(ctx, t.C, task.ID, task.Status.State, func(changed *a2a.Task) {
		t.apply(changed) //nolint:errcheck // an output error shows again on the final event
	})
	if err != nil {
		if errors.Is(err, ErrWaitExpired) || errors.Is(err, client.ErrInterrupted) {
			return t.Env.GiveUp(t.URL, task.ID, t.View.State(), false, err)
		}
		if cause != nil {
			err = errors.Join(cause, err)
		}
		return t.Env.GiveUp(t.URL, task.ID, t.View.State(), true, err)
	}
	return t.apply(final)
}

// giveUpIfLive wraps err with the task's follow-up commands when the task still runs: whatever ended the command
// (--wait, Ctrl-C, an answer too large, an agent's error), the user learns which task goes on (docs/CONTRACT.md, "Time").
func (e *Env) giveUpIfLive(ctx context.Context, agentURL string, task *a2a.Task, err error) error {
	err = Cause(ctx, err)
	if task == nil || task.ID == "" || Settled(task.Status.State) {
		return Expired(ctx, err)
	}
	return e.GiveUp(agentURL, task.ID, task.Status.State, false, err)
}

// recoverable reports whether a stream failure leaves the task worth resuming: the connection broke or went silent.
// Protocol errors, usage errors, answers over --max-response-bytes, timeouts of the user's own bounds and interrupts
// are reported as they are.
func recoverable(err error) bool {
	switch {
	case errors.Is(err, client.ErrInterrupted), errors.Is(err, ErrWaitExpired), errors.Is(err, client.ErrTimeout):
		return false
	case errors.Is(err, errSilentLost):
		return true
	case isProtocolError(err):
		return false
	}
	var ue *client.UsageError
	var he *client.HTTPStatusError
	var tl *client.ResponseTooLargeError
	return !errors.As(err, &ue) && !errors.As(err, &he) && !errors.As(err, &tl)
}

func isProtocolError(err error) bool {
	var ae *a2a.Error
	if errors.As(err, &ae) {
		return true
	}
	for _, pe := range client.ProtocolErrors {
		if errors.Is(err, pe.Err) {
			return true
		}
	}
	return false
}

func errOrEOF(err error) any {
	if err == nil {
		return "end of stream"
	}
	return err
}

// holds reports whether the stream is read to its end even past a settled state: development-tool agents only.
func (t *Turn) holds() bool {
	return t.Answers.Devtool || devtool.CardDeclares(t.C.Card) || t.sess.Active()
}

// streamOnce consumes one stream into the turn. A settled state ends it at once unless the agent holds (see holds);
// silence longer than --timeout asks GetTask (see watchSilence). onEvent, if given, runs for every event.
func (t *Turn) streamOnce(ctx context.Context, open func(context.Context) iter.Seq2[a2a.Event, error], onEvent ...func()) error {
	sctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	w := &silenceWatch{t: t, cancel: cancel}
	if id, _ := t.IDs(); id != "" {
		w.id = id
	}
	stop := w.start(sctx)
	defer stop()
	for ev, err := range open(sctx) {
		if err != nil {
			return w.result(sctx, client.TimeoutCause(sctx, err))
		}
		w.event(ev)
		for _, fn := range onEvent {
			fn()
		}
		if err := t.apply(ev); err != nil {
			return err
		}
		if st := t.View.State(); t.View.Task != nil && Settled(st) && !t.holds() && !t.heldNow {
			return nil
		}
	}
	return w.result(sctx, nil)
}

// silenceWatch asks GetTask when a stream stays silent longer than --timeout.
type silenceWatch struct {
	t      *Turn
	cancel context.CancelCauseFunc
	mu     sync.Mutex
	id     a2a.TaskID
	timer  *time.Timer
	final  *a2a.Task // the settled task GetTask found while the stream was silent
	answer error     // the agent's error answer to that GetTask (task not found, say), if it gave one
	done   bool      // the stream is over: a check still running must not re-arm the timer
}

// start arms the watch on the stream's context sctx: a check still asking when the stream ends is cancelled with it.
func (w *silenceWatch) start(sctx context.Context) func() {
	d := w.t.C.Timeout
	if d <= 0 {
		return func() {}
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.timer = time.AfterFunc(d, func() { w.silent(sctx, d) })
	return func() {
		w.mu.Lock()
		defer w.mu.Unlock()
		w.done = true
		w.timer.Stop()
	}
}

func (w *silenceWatch) event(ev a2a.Event) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if ti := ev.TaskInfo(); ti.TaskID != "" {
		w.id = ti.TaskID
	}
	if w.timer != nil && !w.done {
		w.timer.Reset(w.t.C.Timeout)
	}
}

func (w *silenceWatch) silent(ctx context.Context, d time.Duration) {
	w.mu.Lock()
	id := w.id
	w.mu.Unlock()
	if id == "" {
		w.cancel(client.ErrTimeout)
		return
	}
	w.t.Env.Log.Printf("no event for %s: asking the agent about task %s", d, id)
	task, err := client.Unary(ctx, w.t.C, func(ctx context.Context) (*a2a.Task, error) {
		return w.t.C.GetTask(ctx, &a2a.GetTaskRequest{ID: id, Tenant: w.t.Env.Tenant})
	})
	w.mu.Lock()
	defer w.mu.Unlock()
	switch {
	case ctx.Err() != nil, w.done:
	case err != nil:
		w.t.Env.Log.Printf("get task %s: %v", id, err)
		if isProtocolError(err) {
			w.answer = err // the agent answered: it does not vouch for the task
		}
		w.cancel(errSilentLost)
	case Settled(task.Status.State) && !w.t.stillStale(task):
		w.final = task
		w.cancel(errSettledBySilence)
	default:
		w.t.Env.Log.Printf("task %s is %s: waiting on", id, shortState(task.Status.State))
		w.timer.Reset(d)
	}
}

// result is the stream's outcome once it ended with err: the settled task found by the watch, a silence that lost
// the agent, or err.
func (w *silenceWatch) result(sctx context.Context, err error) error {
	switch cause := context.Cause(sctx); {
	case errors.Is(cause, errSettledBySilence):
		w.mu.Lock()
		final := w.final
		w.mu.Unlock()
		return w.t.apply(final)
	case errors.Is(cause, errSilentLost):
		w.mu.Lock()
		defer w.mu.Unlock()
		if w.answer != nil {
			return fmt.Errorf("%w: %w", errSilentLost, w.answer)
		}
		return errSilentLost
	case cause != nil && cause != context.Canceled && err == nil:
		return client.TimeoutCause(sctx, cause)
	}
	return err
}

package follow

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/a2acli/a2a/internal/client"
	"github.com/a2acli/a2a/internal/termsafe"
	"github.com/a2aproject/a2a-go/v2/a2a"
)

// Wait bounds how the CLI waits for a task that is still running: --poll-interval between GetTask calls (bounded
// backoff from there), --wait for the whole wait (0: no limit).
type Wait struct {
	PollInterval time.Duration
	Wait         time.Duration
}

// DefaultPollInterval is --poll-interval's default.
const DefaultPollInterval = 2 * time.Second

// FirstPoll is how soon the first GetTask of a wait at the default --poll-interval comes; the next ones double up
// to the interval. An interval the user chose is kept from the first poll on.
const FirstPoll = 20 * time.Millisecond

// Check validates the bounds; cmdPath names the command in the usage error.
func (w *Wait) Check(cmdPath string) error {
	if w.PollInterval <= 0 {
		return &client.UsageError{Msg: "--poll-interval must be positive", Cmd: cmdPath}
	}
	if w.Wait < 0 {
		return &client.UsageError{Msg: "--wait must not be negative", Cmd: cmdPath}
	}
	return nil
}

// ErrWaitExpired is the cause of a wait that --wait ended.
var ErrWaitExpired = errors.New("--wait expired")

// Context bounds ctx by --wait; the cause on expiry is ErrWaitExpired.
func (w *Wait) Context(ctx context.Context) (context.Context, context.CancelFunc) {
	if w.Wait <= 0 {
		return context.WithCancel(ctx)
	}
	return context.WithTimeoutCause(ctx, w.Wait, ErrWaitExpired)
}

// maxPoll is the backoff's ceiling: 8 poll intervals, at most 30 s unless the interval itself is longer.
func (w *Wait) maxPoll() time.Duration {
	return max(w.PollInterval, min(8*w.PollInterval, 30*time.Second))
}

// Settled reports whether a task needs nothing more from a waiting client: a terminal or interrupted state.
func Settled(s a2a.TaskState) bool {
	return s.Terminal() || s == a2a.TaskStateInputRequired || s == a2a.TaskStateAuthRequired
}

// LiveTaskError is a failure after a task exists and while it may still run: the CLI gave up on it (--wait, an
// interrupt) or lost it (lost: the stream broke and neither resubscribing nor polling reached the agent).
type LiveTaskError struct {
	ID    a2a.TaskID
	State a2a.TaskState
	Lost  bool
	Err   error
}

func (e *LiveTaskError) Error() string {
	state := shortState(e.State)
	if state == "" {
		state = "unknown"
	}
	if e.Lost {
		return fmt.Sprintf("stream of task %s lost in state %s: %v", e.ID, state, e.Err)
	}
	if errors.Is(e.Err, ErrWaitExpired) {
		return fmt.Sprintf("task %s still %s when --wait expired", e.ID, state)
	}
	return fmt.Sprintf("task %s still %s: %v", e.ID, state, e.Err)
}

func (e *LiveTaskError) Unwrap() error { return e.Err }

// GiveUp wraps err (which ended the wait for task id) with what the user needs to follow the task up.
func (e *Env) GiveUp(agentURL string, id a2a.TaskID, state a2a.TaskState, lost bool, err error) error {
	if errors.Is(err, ErrWaitExpired) {
		err = fmt.Errorf("%w: %w", ErrWaitExpired, client.ErrTimeout)
	}
	return client.WithHint(&LiveTaskError{ID: id, State: state, Lost: lost, Err: err}, e.followUpHint(agentURL, id))
}

func (e *Env) followUpHint(agentURL string, id a2a.TaskID) string {
	u, t := e.Ref(agentURL), termsafe.ShellQuote(string(id))
	return fmt.Sprintf("the task may still be running; follow it with: a2a subscribe %s %s · a2a get task %s %s · a2a cancel %s %s", u, t, u, t, u, t)
}

// Cause is the cause of ctx's end in the terms of a wait: ErrWaitExpired, client.ErrInterrupted, or err itself.
func Cause(ctx context.Context, err error) error {
	if cause := context.Cause(ctx); cause != nil && (errors.Is(cause, ErrWaitExpired) || errors.Is(cause, client.ErrInterrupted)) {
		return cause
	}
	return err
}

// PollTask calls GetTask until the task reaches a terminal or interrupted state, every --poll-interval at first and
// backing off while nothing changes; each change of state starts over from the first interval (FirstPoll at the
// default). Each call is bounded by --timeout; an agent that cannot be reached is asked again
// until it has been silent for --timeout (0: no limit). ctx bounds the whole wait. onChange sees every new state.
func (e *Env) PollTask(ctx context.Context, c *client.Conn, id a2a.TaskID, last a2a.TaskState, onChange func(*a2a.Task)) (*a2a.Task, error) {
	return e.pollTask(ctx, c, id, last, nil, onChange)
}

// PollTaskPast is PollTask for the answer to a follow-up that was the task as it stood before the message (see
// FollowUp.Stale): that status (past) does not end the wait; any other settled one does.
func (e *Env) PollTaskPast(ctx context.Context, c *client.Conn, past *a2a.Task, onChange func(*a2a.Task)) (*a2a.Task, error) {
	return e.pollTask(ctx, c, past.ID, past.Status.State, &past.Status, onChange)
}

func (e *Env) pollTask(ctx context.Context, c *client.Conn, id a2a.TaskID, last a2a.TaskState, past *a2a.TaskStatus, onChange func(*a2a.Task)) (*a2a.Task, error) {
	w := e.wait()
	// At the default interval the first polls come sooner, doubling up to it: a task a non-blocking agent finishes
	// a moment after answering is seen a moment later, not 2 s later.
	first := w.PollInterval
	if first == DefaultPollInterval {
		first = FirstPoll
	}
	interval := first
	lastAnswer := time.Now()
	timer := time.NewTimer(interval)
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil, Cause(ctx, ctx.Err())
		case <-timer.C:
		}
		task, err := e.getTask(ctx, c, id)
		switch {
		case ctx.Err() != nil:
			return nil, Cause(ctx, ctx.Err())
		case err != nil && client.IsUnreachable(err) && (c.Timeout <= 0 || time.Since(lastAnswer) < c.Timeout):
			e.Log.Printf("get task %s: %v: asking again", id, err)
		case err != nil:
			return nil, fmt.Errorf("get task: %w", err)
		case task == nil:
			return nil, fmt.Errorf("get task: the agent answered no task")
		default:
			lastAnswer = time.Now()
			e.Log.Printf("task %s: %s", id, shortState(task.Status.State))
			if Settled(task.Status.State) && (past == nil || !sameStatus(*past, task.Status)) {
				return task, nil
			}
			if past != nil && !sameStatus(*past, task.Status) {
				past = nil // the agent reacted: whatever settles next is its answer
			}
			if task.Status.State != last {
				// A change (submitted to working, say) starts the ramp again: the next change often follows soon.
				last, interval = task.Status.State, first
				if onChange != nil {
					onChange(task)
				}
			} else if interval < w.PollInterval {
				interval = min(interval*2, w.PollInterval)
			} else {
				interval = min(interval*3/2, w.maxPoll())
			}
		}
		timer.Reset(interval)
	}
}

// Expired turns a failure caused by --wait running out before any task existed into a timeout (exit 5).
func Expired(ctx context.Context, err error) error {
	if err != nil && errors.Is(context.Cause(ctx), ErrWaitExpired) && !errors.Is(err, client.ErrTimeout) {
		return fmt.Errorf("%w: %w", ErrWaitExpired, client.ErrTimeout)
	}
	return err
}

// getTask asks the agent for task id, the call bounded by --timeout.
func (e *Env) getTask(ctx context.Context, c *client.Conn, id a2a.TaskID) (*a2a.Task, error) {
	return client.Unary(ctx, c, func(ctx context.Context) (*a2a.Task, error) {
		return c.GetTask(ctx, &a2a.GetTaskRequest{ID: id, Tenant: e.Tenant})
	})
}

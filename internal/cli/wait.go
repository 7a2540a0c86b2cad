package cli

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/a2acli/a2a/internal/client"
	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/spf13/cobra"
)

// waitOptions bound how the CLI waits for a task that is still running: --poll-interval between GetTask calls
// (bounded backoff from there), --wait for the whole wait (0: no limit).
type waitOptions struct {
	pollInterval time.Duration
	wait         time.Duration
}

const defaultPollInterval = 2 * time.Second

func addWaitFlags(cmd *cobra.Command, w *waitOptions) {
	cmd.Flags().DurationVar(&w.pollInterval, "poll-interval", defaultPollInterval, "time between GetTask calls while waiting for a task (backs off up to 8×)")
	cmd.Flags().DurationVar(&w.wait, "wait", 0, "give up waiting for the task after this long, exit 5 (0: no limit)")
}

func (w *waitOptions) check(cmdPath string) error {
	if w.pollInterval <= 0 {
		return &client.UsageError{Msg: "--poll-interval must be positive", Cmd: cmdPath}
	}
	if w.wait < 0 {
		return &client.UsageError{Msg: "--wait must not be negative", Cmd: cmdPath}
	}
	return nil
}

var errWaitExpired = errors.New("--wait expired")

// waitContext bounds ctx by --wait; the cause on expiry is errWaitExpired.
func (w *waitOptions) waitContext(ctx context.Context) (context.Context, context.CancelFunc) {
	if w.wait <= 0 {
		return context.WithCancel(ctx)
	}
	return context.WithTimeoutCause(ctx, w.wait, errWaitExpired)
}

// waits returns the wait options with defaults for verbs that have no flags for them.
func (f *factory) waits() *waitOptions {
	if f.opts.wait.pollInterval <= 0 {
		f.opts.wait.pollInterval = defaultPollInterval
	}
	return &f.opts.wait
}

// maxPoll is the backoff's ceiling: 8 poll intervals, at most 30 s unless the interval itself is longer.
func (w *waitOptions) maxPoll() time.Duration {
	return max(w.pollInterval, min(8*w.pollInterval, 30*time.Second))
}

// settled reports whether a task needs nothing more from a waiting client: a terminal or interrupted state.
func settled(s a2a.TaskState) bool {
	return s.Terminal() || s == a2a.TaskStateInputRequired || s == a2a.TaskStateAuthRequired
}

// liveTaskError is a failure after a task exists and while it may still run: the CLI gave up on it (--wait, an
// interrupt) or lost it (lost: the stream broke and neither resubscribing nor polling reached the agent).
type liveTaskError struct {
	id    a2a.TaskID
	state a2a.TaskState
	lost  bool
	err   error
}

func (e *liveTaskError) Error() string {
	state := shortState(e.state)
	if state == "" {
		state = "unknown"
	}
	if e.lost {
		return fmt.Sprintf("stream of task %s lost in state %s: %v", e.id, state, e.err)
	}
	if errors.Is(e.err, errWaitExpired) {
		return fmt.Sprintf("task %s still %s when --wait expired", e.id, state)
	}
	return fmt.Sprintf("task %s still %s: %v", e.id, state, e.err)
}

func (e *liveTaskError) Unwrap() error { return e.err }

// giveUp wraps err (which ended the wait for task id) with what the user needs to follow the task up.
func (f *factory) giveUp(agentURL string, id a2a.TaskID, state a2a.TaskState, lost bool, err error) error {
	if errors.Is(err, errWaitExpired) {
		err = fmt.Errorf("%w: %w", errWaitExpired, client.ErrTimeout)
	}
	return client.WithHint(&liveTaskError{id: id, state: state, lost: lost, err: err}, followUpHint(agentURL, id))
}

func followUpHint(agentURL string, id a2a.TaskID) string {
	u, t := shellQuote(agentURL), shellQuote(string(id))
	return fmt.Sprintf("the task may still be running; follow it with: a2a subscribe %s %s · a2a get task %s %s · a2a cancel %s %s", u, t, u, t, u, t)
}

// waitCause is the cause of ctx's end in the terms of a wait: errWaitExpired, errInterrupted, or the error itself.
func waitCause(ctx context.Context, err error) error {
	if cause := context.Cause(ctx); cause != nil && (errors.Is(cause, errWaitExpired) || errors.Is(cause, client.ErrInterrupted)) {
		return cause
	}
	return err
}

// pollTask calls GetTask until the task reaches a terminal or interrupted state, every --poll-interval at first and
// backing off while nothing changes. Each call is bounded by --timeout; an agent that cannot be reached is asked again
// until it has been silent for --timeout (0: no limit). ctx bounds the whole wait. onChange sees every new state.
func (f *factory) pollTask(ctx context.Context, c *client.Conn, w *waitOptions, id a2a.TaskID, last a2a.TaskState, onChange func(*a2a.Task)) (*a2a.Task, error) {
	interval := w.pollInterval
	lastAnswer := time.Now()
	timer := time.NewTimer(interval)
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil, waitCause(ctx, ctx.Err())
		case <-timer.C:
		}
		task, err := client.Unary(ctx, c, func(ctx context.Context) (*a2a.Task, error) {
			return c.GetTask(ctx, &a2a.GetTaskRequest{ID: id, Tenant: f.opts.Tenant})
		})
		switch {
		case ctx.Err() != nil:
			return nil, waitCause(ctx, ctx.Err())
		case err != nil && client.IsUnreachable(err) && (c.Timeout <= 0 || time.Since(lastAnswer) < c.Timeout):
			f.log.Printf("get task %s: %v: asking again", id, err)
		case err != nil:
			return nil, fmt.Errorf("get task: %w", err)
		case task == nil:
			return nil, fmt.Errorf("get task: the agent answered no task")
		default:
			lastAnswer = time.Now()
			f.log.Printf("task %s: %s", id, shortState(task.Status.State))
			if settled(task.Status.State) {
				return task, nil
			}
			if task.Status.State != last {
				last, interval = task.Status.State, w.pollInterval
				if onChange != nil {
					onChange(task)
				}
			} else {
				interval = min(interval*3/2, w.maxPoll())
			}
		}
		timer.Reset(interval)
	}
}

// waitExpired turns a failure caused by --wait running out before any task existed into a timeout (exit 5).
func waitExpired(ctx context.Context, err error) error {
	if err != nil && errors.Is(context.Cause(ctx), errWaitExpired) && !errors.Is(err, client.ErrTimeout) {
		return fmt.Errorf("%w: %w", errWaitExpired, client.ErrTimeout)
	}
	return err
}

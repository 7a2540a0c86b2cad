package cli

import (
	"context"
	"errors"
	"iter"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

// callContext bounds one unary call (or connecting) by --timeout; 0 means no limit.
func (c *conn) callContext(ctx context.Context) (context.Context, context.CancelFunc) {
	return timeoutContext(ctx, c.timeout)
}

func timeoutContext(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	if d <= 0 {
		return context.WithCancel(ctx)
	}
	return context.WithTimeoutCause(ctx, d, errTimeout)
}

// timeoutCause turns a failure caused by our own deadline, or by an interrupt, into that cause.
func timeoutCause(ctx context.Context, err error) error {
	if err == nil {
		return nil
	}
	switch cause := context.Cause(ctx); {
	case cause == nil:
		return err
	case errors.Is(cause, errTimeout), errors.Is(cause, errInterrupted):
		if errors.Is(err, cause) {
			return err
		}
		return &causedError{cause: cause, err: err}
	}
	return err
}

// causedError reports cause (timeout, interrupt) while keeping what the transport said.
type causedError struct {
	cause error
	err   error
}

func (e *causedError) Error() string {
	if errors.Is(e.cause, errTimeout) {
		return "--timeout expired: " + e.err.Error()
	}
	return e.cause.Error()
}
func (e *causedError) Unwrap() []error { return []error{e.cause, e.err} }

// unary runs one call bounded by --timeout.
func unary[T any](ctx context.Context, c *conn, call func(context.Context) (T, error)) (T, error) {
	cctx, cancel := c.callContext(ctx)
	defer cancel()
	v, err := call(cctx)
	return v, timeoutCause(cctx, err)
}

// stream consumes a streaming call. --timeout bounds the silence between events, never the stream's length.
// each is called for every event; returning errStop ends the stream without error.
func stream(ctx context.Context, c *conn, open func(context.Context) iter.Seq2[a2a.Event, error], each func(a2a.Event) error) error {
	sctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	var timer *time.Timer
	if c.timeout > 0 {
		timer = time.AfterFunc(c.timeout, func() { cancel(errTimeout) })
		defer timer.Stop()
	}
	for ev, err := range open(sctx) {
		if err != nil {
			return timeoutCause(sctx, err)
		}
		if timer != nil {
			timer.Reset(c.timeout)
		}
		if err := each(ev); err != nil {
			if errors.Is(err, errStop) {
				return nil
			}
			return err
		}
	}
	if cause := context.Cause(sctx); cause != nil && cause != context.Canceled {
		return timeoutCause(sctx, cause)
	}
	return nil
}

var errStop = errors.New("stop")

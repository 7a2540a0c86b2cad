package client

import (
	"context"
	"errors"
	"iter"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

// callContext bounds one unary call (or connecting) by --timeout; 0 means no limit.
func (c *Conn) callContext(ctx context.Context) (context.Context, context.CancelFunc) {
	return TimeoutContext(ctx, c.Timeout)
}

func TimeoutContext(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	if d <= 0 {
		return context.WithCancel(ctx)
	}
	return context.WithTimeoutCause(ctx, d, ErrTimeout)
}

// TimeoutCause turns a failure caused by our own deadline, or by an interrupt, into that cause.
func TimeoutCause(ctx context.Context, err error) error {
	if err == nil {
		return nil
	}
	switch cause := context.Cause(ctx); {
	case cause == nil:
		return err
	case errors.Is(cause, ErrTimeout), errors.Is(cause, ErrInterrupted):
		if errors.Is(err, cause) {
			return err
		}
		return &CausedError{Cause: cause, Err: err}
	}
	return err
}

// CausedError reports cause (timeout, interrupt) while keeping what the transport said.
type CausedError struct {
	Cause error
	Err   error
}

func (e *CausedError) Error() string {
	if errors.Is(e.Cause, ErrTimeout) {
		return "--timeout expired: " + e.Err.Error()
	}
	return e.Cause.Error()
}
func (e *CausedError) Unwrap() []error { return []error{e.Cause, e.Err} }

// Unary runs one call bounded by --timeout.
func Unary[T any](ctx context.Context, c *Conn, call func(context.Context) (T, error)) (T, error) {
	cctx, cancel := c.callContext(ctx)
	defer cancel()
	v, err := call(cctx)
	return v, TimeoutCause(cctx, err)
}

// Stream consumes a streaming call. --timeout bounds the silence between events, never the stream's length.
// each is called for every event; returning errStop ends the stream without error.
func Stream(ctx context.Context, c *Conn, open func(context.Context) iter.Seq2[a2a.Event, error], each func(a2a.Event) error) error {
	sctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	var timer *time.Timer
	if c.Timeout > 0 {
		timer = time.AfterFunc(c.Timeout, func() { cancel(ErrTimeout) })
		defer timer.Stop()
	}
	for ev, err := range open(sctx) {
		if err != nil {
			return TimeoutCause(sctx, err)
		}
		if timer != nil {
			timer.Reset(c.Timeout)
		}
		if err := each(ev); err != nil {
			if errors.Is(err, ErrStop) {
				return nil
			}
			return err
		}
	}
	if cause := context.Cause(sctx); cause != nil && cause != context.Canceled {
		return TimeoutCause(sctx, cause)
	}
	return nil
}

var ErrStop = errors.New("stop")

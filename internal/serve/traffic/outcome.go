package traffic

import (
	"context"
	"errors"
)

// What a call's line says when the caller, not the agent or the upstream, ended the call.
var (
	// ErrClientGone: the caller closed the connection (or canceled the call) before the answer was complete.
	ErrClientGone = errors.New("client closed the connection")
	// ErrClientDeadline: the caller's own deadline (a gRPC timeout) passed before the answer was complete.
	ErrClientDeadline = errors.New("client deadline exceeded")
)

// finalStates are the states a stream stops at: nothing more is due once one was sent.
var finalStates = map[string]bool{
	"completed": true, "failed": true, "canceled": true, "rejected": true,
	"input-required": true, "auth-required": true, "message": true,
}

// outcome is what the line says of a call that ended with err. When the caller's context is done, the
// error is what that caused (a canceled upstream request, an i/o timeout on a connection whose deadline
// was cut short), not a failure of the agent's: the line says the client went away, or, for a stream that
// had already reached its final state, nothing went wrong at all.
func (c *Call) outcome(err error) error {
	if err == nil || c.ctx == nil {
		return err
	}
	switch cerr := c.ctx.Err(); {
	case cerr == nil:
		return err
	case c.stream && finalStates[c.state]:
		return nil
	case errors.Is(cerr, context.DeadlineExceeded):
		return ErrClientDeadline
	default:
		return ErrClientGone
	}
}

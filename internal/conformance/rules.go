package conformance

import (
	"context"
	"errors"
	"fmt"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"google.golang.org/grpc/codes"
)

// grpcCode is the gRPC status §5.4 maps an A2A error to (codes.OK for one this package does not check so).
func grpcCode(err error) codes.Code {
	switch err {
	case a2a.ErrUnsupportedOperation, a2a.ErrPushNotificationNotSupported, a2a.ErrVersionNotSupported:
		return codes.Unimplemented
	case a2a.ErrTaskNotFound:
		return codes.NotFound
	case a2a.ErrTaskNotCancelable:
		return codes.FailedPrecondition
	}
	return codes.OK
}

// expectErr runs call and records id: pass when the error is want (or, want nil, any A2A error).
func (r *runner) expectErr(ctx context.Context, b *binding, id, sent string, want error, call func(ctx context.Context) (any, error)) {
	if !r.want(id) {
		return
	}
	if !r.spend(1) {
		r.record(id, b.name, skip(budgetSpent))
		return
	}
	cctx, cancel := r.callCtx(ctx)
	defer cancel()
	got, err := call(cctx)
	name := "an A2A error"
	if want != nil {
		name = want.Error()
	}
	switch {
	case err == nil:
		r.record(id, b.name, fail(sent, fmt.Sprintf("success: %s", describeAny(got)), "want "+name))
	case want == nil && isA2AError(err), want != nil && errors.Is(err, want):
		r.record(id, b.name, pass(errText(err)))
	case want != nil && b.iface.ProtocolBinding == a2a.TransportProtocolGRPC && grpcCode(want) != codes.OK && r.grpcStatus(err) == grpcCode(want):
		// §5.4's table maps the error to this status; a client may not tell it from another error of the same code.
		r.record(id, b.name, pass("gRPC "+grpcCode(want).String()+": "+errText(err)))
	default:
		r.record(id, b.name, fail(sent, errText(err), "want "+name))
	}
}

func describeAny(v any) string {
	switch x := v.(type) {
	case *a2a.Task:
		return describe(x)
	case a2a.SendMessageResult:
		return describe(x)
	}
	return fmt.Sprintf("%T", v)
}

// terminalRules: what an agent must refuse about tasks that ended or never were.
func (r *runner) terminalRules(ctx context.Context, b *binding, o *own) {
	missing := a2a.TaskID("a2a-conformance-missing-" + r.runID)
	r.expectErr(ctx, b, "CORE-CANCEL-003", "CancelTask id="+string(missing), a2a.ErrTaskNotFound, func(ctx context.Context) (any, error) {
		return b.c.CancelTask(ctx, &a2a.CancelTaskRequest{ID: missing})
	})
	m := r.probe("a2a-conformance", "a2a conformance: unknown task")
	m.TaskID = missing
	r.expectErr(ctx, b, "CORE-MULTI-004", "SendMessage taskId="+string(missing), a2a.ErrTaskNotFound, func(ctx context.Context) (any, error) {
		return b.c.SendMessage(ctx, &a2a.SendMessageRequest{Message: m})
	})
	r.expectErr(ctx, b, "STREAM-SUB-004", "SubscribeToTask id="+string(missing), a2a.ErrTaskNotFound, func(ctx context.Context) (any, error) {
		return firstEvent(b.c.SubscribeToTask(ctx, &a2a.SubscribeToTaskRequest{ID: missing}))
	})
	t := o.done
	if t == nil || !t.Status.State.Terminal() {
		why := "the agent answered with a Message: it made no task"
		if t != nil {
			why = "the agent's task stopped at " + string(t.Status.State) + ", not a terminal state"
		}
		for _, id := range []string{"CORE-CANCEL-002", "CORE-SEND-002", "STREAM-SUB-003", "CORE-MULTI-006"} {
			r.record(id, b.name, skip(why))
		}
		return
	}
	r.expectErr(ctx, b, "CORE-CANCEL-002", "CancelTask id="+string(t.ID)+" ("+string(t.Status.State)+")", a2a.ErrTaskNotCancelable, func(ctx context.Context) (any, error) {
		return b.c.CancelTask(ctx, &a2a.CancelTaskRequest{ID: t.ID})
	})
	again := r.probe("a2a-conformance", "a2a conformance: to a finished task")
	again.TaskID, again.ContextID = t.ID, t.ContextID
	if b.v03 {
		// v1.0's rules (§3.1.1, §3.1.6): v0.3 asks for a new task in the context but says nothing of how an agent
		// answers a message or a resubscribe to a finished one.
		r.record("CORE-SEND-002", b.name, skip("a v1.0 requirement: v0.3 does not say how a message to a finished task is answered"))
		r.record("STREAM-SUB-003", b.name, skip("a v1.0 requirement: v0.3 does not say how tasks/resubscribe to a finished task is answered"))
		return
	}
	// §3.1.1 and §3.1.6 name the error: UnsupportedOperationError.
	r.expectErr(ctx, b, "CORE-SEND-002", "SendMessage taskId="+string(t.ID)+" ("+string(t.Status.State)+")", a2a.ErrUnsupportedOperation, func(ctx context.Context) (any, error) {
		return b.c.SendMessage(ctx, &a2a.SendMessageRequest{Message: again})
	})
	mismatch := r.probe("a2a-conformance", "a2a conformance: wrong context")
	mismatch.TaskID, mismatch.ContextID = t.ID, "a2a-conformance-other-context-"+r.runID
	r.expectErr(ctx, b, "CORE-MULTI-006", "SendMessage taskId="+string(t.ID)+" contextId="+mismatch.ContextID, nil, func(ctx context.Context) (any, error) {
		return b.c.SendMessage(ctx, &a2a.SendMessageRequest{Message: mismatch})
	})
	if b.streaming {
		r.expectErr(ctx, b, "STREAM-SUB-003", "SubscribeToTask id="+string(t.ID)+" ("+string(t.Status.State)+")", a2a.ErrUnsupportedOperation, func(ctx context.Context) (any, error) {
			return firstEvent(b.c.SubscribeToTask(ctx, &a2a.SubscribeToTaskRequest{ID: t.ID}))
		})
	}
}

// firstEvent reads a stream's first event, or its error.
func firstEvent(seq func(func(a2a.Event, error) bool)) (any, error) {
	var ev a2a.Event
	var err error
	seq(func(e a2a.Event, e2 error) bool {
		ev, err = e, e2
		return false
	})
	if ev == nil && err == nil {
		return nil, errors.New("the stream ended with no event")
	}
	return ev, err
}

// history: CORE-HIST-001 and CORE-HIST-002 on the task the blocking send made.
func (r *runner) history(ctx context.Context, b *binding, o *own) {
	t := o.done
	if o.multi != nil {
		t = o.multi
	}
	if t == nil {
		r.record("CORE-HIST-002", b.name, skip("the agent answered with a Message: it made no task"))
		r.record("CORE-HIST-001", b.name, skip("the agent answered with a Message: it made no task"))
		return
	}
	for _, c := range []struct {
		id string
		n  int
	}{{"CORE-HIST-002", 1}, {"CORE-HIST-001", 0}} {
		if !r.want(c.id) {
			continue
		}
		if !r.spend(1) {
			r.record(c.id, b.name, skip(budgetSpent))
			continue
		}
		n := c.n
		if n == 0 && b.v03 && b.iface.ProtocolBinding == a2a.TransportProtocolGRPC {
			// v0.3's proto has historyLength as a plain int32: 0 is "not set" on this wire.
			r.record(c.id, b.name, skip("v0.3 gRPC cannot send historyLength=0 (proto3 int32: 0 is unset)"))
			continue
		}
		cctx, cancel := r.callCtx(ctx)
		got, err := b.c.GetTask(cctx, &a2a.GetTaskRequest{ID: t.ID, HistoryLength: &n})
		cancel()
		sent := fmt.Sprintf("GetTask id=%s historyLength=%d", t.ID, n)
		if err == nil && n > 0 && len(got.History) <= n && r.spend(1) {
			// Only a history longer than n tells whether historyLength was honoured.
			cctx, cancel := r.callCtx(ctx)
			full, ferr := b.c.GetTask(cctx, &a2a.GetTaskRequest{ID: t.ID})
			cancel()
			if ferr == nil && len(full.History) <= n {
				r.record(c.id, b.name, skip(fmt.Sprintf("the task's history has %d message(s): too short to tell", len(full.History))))
				continue
			}
		}
		switch {
		case err != nil:
			r.record(c.id, b.name, fail(sent, errText(err), "the task must be found"))
		case len(got.History) > n:
			r.record(c.id, b.name, fail(sent, fmt.Sprintf("%d history message(s)", len(got.History)), fmt.Sprintf("want at most %d", n)))
		default:
			r.record(c.id, b.name, pass(fmt.Sprintf("%d history message(s)", len(got.History))))
		}
	}
}

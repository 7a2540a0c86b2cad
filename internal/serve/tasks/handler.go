package tasks

import (
	"context"
	"errors"
	"iter"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv"
)

// Handler is the a2asrv.RequestHandler of the task-keeping backends (echo, exec). It does not
// use a2asrv's default handler because that one deep-copies the whole task (gob encode+decode,
// twice) for every event, which makes a long --chunk stream quadratic.
type Handler struct {
	ts    *Runner
	hints func(context.Context) FlushHint // nil: no stream reports
	subs  *subLimits                      // the subscriptions open (sublimit.go)
}

var _ a2asrv.RequestHandler = (*Handler)(nil)

func CheckMessage(req *a2a.SendMessageRequest) error {
	if req == nil || req.Message == nil {
		return a2a.NewError(a2a.ErrInvalidParams, "message is required")
	}
	if len(req.Message.Parts) == 0 {
		return a2a.NewError(a2a.ErrInvalidParams, "message has no parts")
	}
	return nil
}

func HistoryLength(req *a2a.SendMessageRequest) *int {
	if req.Config == nil {
		return nil
	}
	return req.Config.HistoryLength
}

// SendMessage implements a2asrv.RequestHandler.
func (h *Handler) SendMessage(ctx context.Context, req *a2a.SendMessageRequest) (a2a.SendMessageResult, error) {
	if err := CheckMessage(req); err != nil {
		return nil, err
	}
	if m := h.ts.agent.Reply(req.Message); m != nil {
		return m, nil
	}
	push, err := h.sendPushConfig(req)
	if err != nil {
		return nil, err
	}
	immediate := req.Config != nil && req.Config.ReturnImmediately
	var sub *Subscriber
	if !immediate {
		sub = NewSubscriber()
	}
	snap, err := h.ts.Start(req.Message, sub, StartOptions{Reopen: legacyCall(ctx), Push: push})
	if err != nil {
		return nil, err
	}
	if immediate {
		h.ts.store.syncTask(snap.ID)
		return snap, nil
	}
	defer h.ts.Unsubscribe(snap.ID, sub)
	for {
		select {
		case _, ok := <-sub.ch:
			if !ok {
				if err := sub.Err(); err != nil {
					return nil, err
				}
				return h.ts.store.view(snap.ID, HistoryLength(req))
			}
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// SendStreamingMessage implements a2asrv.RequestHandler.
func (h *Handler) SendStreamingMessage(ctx context.Context, req *a2a.SendMessageRequest) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {
		if err := CheckMessage(req); err != nil {
			yield(nil, err)
			return
		}
		if m := h.ts.agent.Reply(req.Message); m != nil {
			yield(m, nil)
			return
		}
		push, err := h.sendPushConfig(req)
		if err != nil {
			yield(nil, err)
			return
		}
		sub := NewSubscriber()
		snap, err := h.ts.Start(req.Message, sub, StartOptions{Reopen: legacyCall(ctx), Push: push})
		if err != nil {
			yield(nil, err)
			return
		}
		defer h.ts.Unsubscribe(snap.ID, sub)
		h.ts.store.syncTask(snap.ID)
		if !yield(snap, nil) {
			return
		}
		h.Forward(ctx, sub, yield)
	}
}

// Forward yields the events of sub until the turn ends or the caller goes away. It tells the
// response writer's FlushHint, when it takes one, how many events wait behind each one.
func (h *Handler) Forward(ctx context.Context, sub *Subscriber, yield func(a2a.Event, error) bool) {
	var hint FlushHint
	if h.hints != nil {
		hint = h.hints(ctx)
	}
	for {
		select {
		case ev, ok := <-sub.ch:
			if !ok {
				if err := sub.Err(); err != nil {
					yield(nil, err)
				}
				return
			}
			if hint != nil {
				hint.SetWaiting(len(sub.ch))
			}
			if !yield(ev, nil) {
				return
			}
		case <-ctx.Done():
			return
		}
	}
}

// SubscribeToTask implements a2asrv.RequestHandler. The stream starts with the task as it stands and
// goes on until a turn ends: the one running, or, for a task waiting at input-required or
// auth-required, the one the follow-up message starts (or its cancellation). A task in a terminal
// state is refused with UnsupportedOperationError (v1.0) or yields its final state (v0.3).
func (h *Handler) SubscribeToTask(ctx context.Context, req *a2a.SubscribeToTaskRequest) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {
		if err := h.ts.store.refresh(ctx, req.ID); err != nil {
			yield(nil, err)
			return
		}
		if err := h.subs.take(req.ID); err != nil {
			yield(nil, err)
			return
		}
		defer h.subs.give(req.ID)
		sub := NewSubscriber()
		snap, attached, err := h.ts.subscribe(req.ID, sub, legacyCall(ctx))
		var remote *remoteRun
		if errors.As(err, &remote) {
			h.ts.store.durable.follow(ctx, remote, yield)
			return
		}
		if err != nil {
			yield(nil, err)
			return
		}
		if !attached {
			yield(snap, nil)
			return
		}
		defer h.ts.Unsubscribe(req.ID, sub)
		if !yield(snap, nil) {
			return
		}
		h.Forward(ctx, sub, yield)
	}
}

// GetTask implements a2asrv.RequestHandler.
func (h *Handler) GetTask(ctx context.Context, req *a2a.GetTaskRequest) (*a2a.Task, error) {
	return h.ts.store.getTask(ctx, req.ID, req.HistoryLength)
}

// ListTasks implements a2asrv.RequestHandler.
func (h *Handler) ListTasks(ctx context.Context, req *a2a.ListTasksRequest) (*a2a.ListTasksResponse, error) {
	return h.ts.store.listTasks(ctx, req)
}

// CancelTask implements a2asrv.RequestHandler.
func (h *Handler) CancelTask(ctx context.Context, req *a2a.CancelTaskRequest) (*a2a.Task, error) {
	return h.ts.cancel(ctx, req.ID)
}

// GetExtendedAgentCard implements a2asrv.RequestHandler.
func (h *Handler) GetExtendedAgentCard(context.Context, *a2a.GetExtendedAgentCardRequest) (*a2a.AgentCard, error) {
	return nil, a2a.ErrExtendedCardNotConfigured
}

package traffic

import (
	"context"
	"iter"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv"
)

// Handler writes the traffic log around every call of next: one line when the call (or stream) ends.
func (l *Log) Handler(next a2asrv.RequestHandler) a2asrv.RequestHandler {
	return &logHandler{next: next, log: l}
}

// logHandler is Log.Handler.
type logHandler struct {
	next a2asrv.RequestHandler
	log  *Log
}

var _ a2asrv.RequestHandler = (*logHandler)(nil)

func logUnary[Req, Resp any](ctx context.Context, l *Log, method, id string, req Req, call func(context.Context, Req) (Resp, error)) (Resp, error) {
	c := l.begin(ctx, method, req, id)
	resp, err := call(ctx, req)
	if err == nil {
		c.observe(resp)
	}
	c.end(err)
	return resp, err
}

func (h *logHandler) stream(ctx context.Context, method, id string, req any, seq iter.Seq2[a2a.Event, error]) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {
		c := h.log.begin(ctx, method, req, id)
		var failure error
		for ev, err := range seq {
			if err != nil {
				failure = err
				yield(nil, err)
				break
			}
			c.observe(ev)
			if !yield(ev, nil) {
				break
			}
		}
		c.end(failure)
	}
}

func msgTaskID(req *a2a.SendMessageRequest) string {
	if req != nil && req.Message != nil {
		return string(req.Message.TaskID)
	}
	return ""
}

// SendMessage implements a2asrv.RequestHandler.
func (h *logHandler) SendMessage(ctx context.Context, req *a2a.SendMessageRequest) (a2a.SendMessageResult, error) {
	return logUnary(ctx, h.log, "SendMessage", msgTaskID(req), req, h.next.SendMessage)
}

// SendStreamingMessage implements a2asrv.RequestHandler.
func (h *logHandler) SendStreamingMessage(ctx context.Context, req *a2a.SendMessageRequest) iter.Seq2[a2a.Event, error] {
	return h.stream(ctx, "SendStreamingMessage", msgTaskID(req), req, h.next.SendStreamingMessage(ctx, req))
}

// SubscribeToTask implements a2asrv.RequestHandler.
func (h *logHandler) SubscribeToTask(ctx context.Context, req *a2a.SubscribeToTaskRequest) iter.Seq2[a2a.Event, error] {
	return h.stream(ctx, "SubscribeToTask", string(req.ID), req, h.next.SubscribeToTask(ctx, req))
}

// GetTask implements a2asrv.RequestHandler.
func (h *logHandler) GetTask(ctx context.Context, req *a2a.GetTaskRequest) (*a2a.Task, error) {
	return logUnary(ctx, h.log, "GetTask", string(req.ID), req, h.next.GetTask)
}

// ListTasks implements a2asrv.RequestHandler.
func (h *logHandler) ListTasks(ctx context.Context, req *a2a.ListTasksRequest) (*a2a.ListTasksResponse, error) {
	return logUnary(ctx, h.log, "ListTasks", "", req, h.next.ListTasks)
}

// CancelTask implements a2asrv.RequestHandler.
func (h *logHandler) CancelTask(ctx context.Context, req *a2a.CancelTaskRequest) (*a2a.Task, error) {
	return logUnary(ctx, h.log, "CancelTask", string(req.ID), req, h.next.CancelTask)
}

// GetTaskPushConfig implements a2asrv.RequestHandler.
func (h *logHandler) GetTaskPushConfig(ctx context.Context, req *a2a.GetTaskPushConfigRequest) (*a2a.PushConfig, error) {
	return logUnary(ctx, h.log, "GetTaskPushConfig", string(req.TaskID), req, h.next.GetTaskPushConfig)
}

// ListTaskPushConfigs implements a2asrv.RequestHandler.
func (h *logHandler) ListTaskPushConfigs(ctx context.Context, req *a2a.ListTaskPushConfigRequest) (*a2a.ListTaskPushConfigResponse, error) {
	return logUnary(ctx, h.log, "ListTaskPushConfigs", string(req.TaskID), req, h.next.ListTaskPushConfigs)
}

// CreateTaskPushConfig implements a2asrv.RequestHandler.
func (h *logHandler) CreateTaskPushConfig(ctx context.Context, req *a2a.PushConfig) (*a2a.PushConfig, error) {
	return logUnary(ctx, h.log, "CreateTaskPushConfig", string(req.TaskID), req, h.next.CreateTaskPushConfig)
}

// DeleteTaskPushConfig implements a2asrv.RequestHandler.
func (h *logHandler) DeleteTaskPushConfig(ctx context.Context, req *a2a.DeleteTaskPushConfigRequest) error {
	_, err := logUnary(ctx, h.log, "DeleteTaskPushConfig", string(req.TaskID), req,
		func(ctx context.Context, req *a2a.DeleteTaskPushConfigRequest) (any, error) {
			return nil, h.next.DeleteTaskPushConfig(ctx, req)
		})
	return err
}

// GetExtendedAgentCard implements a2asrv.RequestHandler.
func (h *logHandler) GetExtendedAgentCard(ctx context.Context, req *a2a.GetExtendedAgentCardRequest) (*a2a.AgentCard, error) {
	return logUnary(ctx, h.log, "GetExtendedAgentCard", "", req, h.next.GetExtendedAgentCard)
}

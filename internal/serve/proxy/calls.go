package proxy

import (
	"context"
	"iter"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2aclient"
)

// SendMessage implements a2asrv.RequestHandler.
func (p *proxy) SendMessage(ctx context.Context, req *a2a.SendMessageRequest) (a2a.SendMessageResult, error) {
	return forwardCall(ctx, p, req, (*a2aclient.Client).SendMessage)
}

// SendStreamingMessage implements a2asrv.RequestHandler.
func (p *proxy) SendStreamingMessage(ctx context.Context, req *a2a.SendMessageRequest) iter.Seq2[a2a.Event, error] {
	return p.forwardStream(ctx, func(c *a2aclient.Client, ctx context.Context) iter.Seq2[a2a.Event, error] {
		return c.SendStreamingMessage(ctx, req)
	})
}

// SubscribeToTask implements a2asrv.RequestHandler.
func (p *proxy) SubscribeToTask(ctx context.Context, req *a2a.SubscribeToTaskRequest) iter.Seq2[a2a.Event, error] {
	return p.forwardStream(ctx, func(c *a2aclient.Client, ctx context.Context) iter.Seq2[a2a.Event, error] {
		return c.SubscribeToTask(ctx, req)
	})
}

// GetTask implements a2asrv.RequestHandler.
func (p *proxy) GetTask(ctx context.Context, req *a2a.GetTaskRequest) (*a2a.Task, error) {
	return forwardCall(ctx, p, req, (*a2aclient.Client).GetTask)
}

// ListTasks implements a2asrv.RequestHandler.
func (p *proxy) ListTasks(ctx context.Context, req *a2a.ListTasksRequest) (*a2a.ListTasksResponse, error) {
	return forwardCall(ctx, p, req, (*a2aclient.Client).ListTasks)
}

// CancelTask implements a2asrv.RequestHandler.
func (p *proxy) CancelTask(ctx context.Context, req *a2a.CancelTaskRequest) (*a2a.Task, error) {
	return forwardCall(ctx, p, req, (*a2aclient.Client).CancelTask)
}

// GetTaskPushConfig implements a2asrv.RequestHandler.
func (p *proxy) GetTaskPushConfig(ctx context.Context, req *a2a.GetTaskPushConfigRequest) (*a2a.PushConfig, error) {
	return forwardCall(ctx, p, req, (*a2aclient.Client).GetTaskPushConfig)
}

// ListTaskPushConfigs implements a2asrv.RequestHandler.
func (p *proxy) ListTaskPushConfigs(ctx context.Context, req *a2a.ListTaskPushConfigRequest) (*a2a.ListTaskPushConfigResponse, error) {
	cfgs, err := forwardCall(ctx, p, req, (*a2aclient.Client).ListTaskPushConfigs)
	if err != nil {
		return nil, err
	}
	return &a2a.ListTaskPushConfigResponse{Configs: cfgs}, nil
}

// CreateTaskPushConfig implements a2asrv.RequestHandler.
func (p *proxy) CreateTaskPushConfig(ctx context.Context, req *a2a.PushConfig) (*a2a.PushConfig, error) {
	return forwardCall(ctx, p, req, (*a2aclient.Client).CreateTaskPushConfig)
}

// DeleteTaskPushConfig implements a2asrv.RequestHandler.
func (p *proxy) DeleteTaskPushConfig(ctx context.Context, req *a2a.DeleteTaskPushConfigRequest) error {
	_, err := forwardCall(ctx, p, req, func(c *a2aclient.Client, ctx context.Context, req *a2a.DeleteTaskPushConfigRequest) (struct{}, error) {
		return struct{}{}, c.DeleteTaskPushConfig(ctx, req)
	})
	return err
}

// GetExtendedAgentCard implements a2asrv.RequestHandler.
func (p *proxy) GetExtendedAgentCard(ctx context.Context, req *a2a.GetExtendedAgentCardRequest) (*a2a.AgentCard, error) {
	return forwardCall(ctx, p, req, (*a2aclient.Client).GetExtendedAgentCard)
}

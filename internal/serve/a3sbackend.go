package serve

import (
	"context"
	"crypto/tls"
	"iter"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv"

	"github.com/a2acli/a2a/internal/a3s"
	"github.com/a2acli/a2a/internal/serve/tasks"
)

// A3SConfig configures the A3S backend.
type A3SConfig struct {
	Addr      string // the agent's gRPC address: HOST:PORT, http://… (plaintext) or https://… (TLS)
	Dialect   string // auto (""), seed or a3s
	Workspace string // session workspace when a message's development-tool settings name none
	TLS       *tls.Config
}

// A3S returns a backend that bridges every task to a coding agent speaking the A3S Code Agent
// Interface (internal/a3s): this file only plugs the bridge into the task runner (package tasks);
// a handler in front checks the agent before a message opens a context.
func A3S(c A3SConfig) Backend { return a3sBackend{cfg: c} }

type a3sBackend struct{ cfg A3SConfig }

func (b a3sBackend) Setup(e *Env) (*Parts, error) {
	d, err := a3s.ParseDialect(b.cfg.Dialect)
	if err != nil {
		return nil, err
	}
	store := e.Store
	br, err := a3s.New(a3s.Config{
		Addr: b.cfg.Addr, Dialect: d, TLS: b.cfg.TLS, Workspace: b.cfg.Workspace,
		Lookup: func(id a2a.TaskID) (a2a.TaskState, bool) {
			st, err := store.Get(context.Background(), id)
			if err != nil {
				return a2a.TaskStateUnspecified, false
			}
			return st.Task.Status.State, true
		},
		Log: func(format string, args ...any) { e.Logf(format+"\n", args...) },
	})
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := br.Start(ctx); err != nil {
		e.Logf("warning: %v (serving anyway: every new session checks again)\n", err)
	}
	parts := taskBackend(e, a3sAgent{br: br})
	parts.Handler = &a3sHandler{RequestHandler: parts.Handler, br: br}
	stopTasks := parts.Shutdown
	parts.Shutdown = func(ctx context.Context) error {
		err := stopTasks(ctx)
		if cerr := br.Close(ctx); err == nil {
			err = cerr
		}
		return err
	}
	if cfg := e.Config; cfg.Card == nil {
		parts.Card = func(ctx context.Context) (*a2a.AgentCard, error) {
			c := *br.Card(ctx)
			if cfg.Name != "" {
				c.Name = cfg.Name
			}
			if cfg.Description != "" {
				c.Description = cfg.Description
			}
			return &c, nil
		}
	}
	return parts, nil
}

type a3sAgent struct{ br *a3s.Bridge }

func (a3sAgent) Reply(*a2a.Message) *a2a.Message { return nil }

func (a a3sAgent) Run(ctx context.Context, t *tasks.Turn) (a2a.TaskState, *a2a.Message) {
	return a.br.Run(ctx, t.Info, t.Message, t.Emit)
}

// a3sHandler checks the agent before a message starts a context, so that a dead agent is an A2A
// error naming it rather than a failed task (like the proxy with a dead upstream).
type a3sHandler struct {
	a2asrv.RequestHandler
	br *a3s.Bridge
}

func (h *a3sHandler) check(ctx context.Context, req *a2a.SendMessageRequest) error {
	if req == nil || req.Message == nil {
		return nil
	}
	if err := h.br.Check(ctx, req.Message); err != nil {
		return a2a.NewError(a2a.ErrServerError, err.Error())
	}
	return nil
}

func (h *a3sHandler) SendMessage(ctx context.Context, req *a2a.SendMessageRequest) (a2a.SendMessageResult, error) {
	if err := h.check(ctx, req); err != nil {
		return nil, err
	}
	return h.RequestHandler.SendMessage(ctx, req)
}

func (h *a3sHandler) SendStreamingMessage(ctx context.Context, req *a2a.SendMessageRequest) iter.Seq2[a2a.Event, error] {
	if err := h.check(ctx, req); err != nil {
		return func(yield func(a2a.Event, error) bool) { yield(nil, err) }
	}
	return h.RequestHandler.SendStreamingMessage(ctx, req)
}

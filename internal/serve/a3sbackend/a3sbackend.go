// Package a3sbackend is the A3S backend of `a2a serve`: it plugs the bridge of internal/a3s (a coding
// agent speaking the A3S Code Agent Interface over gRPC) into the task runner of serve/tasks, with a
// request handler in front that checks the agent before a message opens a context. The bridge owns
// the protocol and the mapping; this package only wires it to serve's exported Backend API.
//
// It must not import the CLI, cobra or other backends.
package a3sbackend

import (
	"context"
	"crypto/tls"
	"iter"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv"

	"github.com/a2acli/a2a/internal/a3s"
	"github.com/a2acli/a2a/internal/serve"
	"github.com/a2acli/a2a/internal/serve/tasks"
)

// Config configures the A3S backend.
type Config struct {
	Addr      string // the agent's gRPC address: HOST:PORT, http://… (plaintext) or https://… (TLS)
	Dialect   string // auto (""), seed or a3s
	Workspace string // session workspace when a message's development-tool settings name none
	TLS       *tls.Config
}

// Check reports a Config that cannot work (an address the bridge cannot dial, an unknown dialect),
// for the CLI to say before serving.
func (c Config) Check() error {
	if err := a3s.CheckAddr(c.Addr); err != nil {
		return err
	}
	_, err := a3s.ParseDialect(c.Dialect)
	return err
}

// New returns a backend that bridges every task to a coding agent speaking the A3S Code Agent
// Interface.
func New(c Config) serve.Backend { return backend{cfg: c} }

type backend struct{ cfg Config }

// Setup implements serve.Backend.
func (b backend) Setup(e *serve.Env) (*serve.Parts, error) {
	d, err := a3s.ParseDialect(b.cfg.Dialect)
	if err != nil {
		return nil, err
	}
	store, logf := e.Store, e.Log.Printf
	br, err := a3s.New(a3s.Config{
		Addr: b.cfg.Addr, Dialect: d, TLS: b.cfg.TLS, Workspace: b.cfg.Workspace,
		Lookup: func(id a2a.TaskID) (a2a.TaskState, bool) {
			none := 0 // the state is all we need: no history
			t, err := store.View(id, &none)
			if err != nil {
				return a2a.TaskStateUnspecified, false
			}
			return t.Status.State, true
		},
		Log: func(format string, args ...any) { logf(format+"\n", args...) },
	})
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := br.Start(ctx); err != nil {
		logf("warning: %v (serving anyway: every new session checks again)\n", err)
	}
	h, parts := e.TaskParts(agent{br: br})
	parts.Handler = &handler{RequestHandler: h, br: br}
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

type agent struct{ br *a3s.Bridge }

func (agent) Reply(*a2a.Message) *a2a.Message { return nil }

func (a agent) Run(ctx context.Context, t *tasks.Turn) (a2a.TaskState, *a2a.Message) {
	return a.br.Run(ctx, t.Info, t.Message, t.Emit)
}

// handler checks the agent before a message starts a context, so that a dead agent is an A2A
// error naming it rather than a failed task (like the proxy with a dead upstream).
type handler struct {
	a2asrv.RequestHandler
	br *a3s.Bridge
}

func (h *handler) check(ctx context.Context, req *a2a.SendMessageRequest) error {
	if req == nil || req.Message == nil {
		return nil
	}
	if err := h.br.Check(ctx, req.Message); err != nil {
		return a2a.NewError(a2a.ErrServerError, err.Error())
	}
	return nil
}

func (h *handler) SendMessage(ctx context.Context, req *a2a.SendMessageRequest) (a2a.SendMessageResult, error) {
	if err := h.check(ctx, req); err != nil {
		return nil, err
	}
	return h.RequestHandler.SendMessage(ctx, req)
}

func (h *handler) SendStreamingMessage(ctx context.Context, req *a2a.SendMessageRequest) iter.Seq2[a2a.Event, error] {
	if err := h.check(ctx, req); err != nil {
		return func(yield func(a2a.Event, error) bool) { yield(nil, err) }
	}
	return h.RequestHandler.SendStreamingMessage(ctx, req)
}

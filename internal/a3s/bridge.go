// Package a3s bridges A2A to coding agents that implement the A3S Code Agent Interface over
// gRPC (a3s.code.agent.v1.CodeAgentService), in both of its shapes: the seed document's and the
// A3S Code project's current proto (see proto/ and dialect.go). One A3S session per A2A context;
// a message is a StreamGenerate whose chunks become A2A events in the development-tool
// extension's RFC shape (tool calls, thoughts), with A3S Code's tool confirmations as
// input-required.
//
// It owns the generated code, the dialects and the mapping. It knows nothing of serve: the serve
// backend hands it each turn (Run) and tells it which tasks still exist (Config.Lookup).
package a3s

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/a2acli/a2a/internal/a3s/proto/a3spb"
	"github.com/a2acli/a2a/internal/devtool"
)

// Config configures a Bridge.
type Config struct {
	Addr    string      // HOST:PORT or http://HOST:PORT (plaintext), https://HOST[:PORT] (TLS)
	Dialect Dialect     // Auto: detect
	TLS     *tls.Config // for https://; nil => Go's defaults
	// Workspace is the session workspace when a message's development-tool settings name none.
	Workspace string
	// Lookup reports a task's state, ok=false once the store has dropped it. The bridge destroys
	// the session of a context whose tasks are all gone, and drops a generation whose task ended
	// while it waited for approval. Nil: sessions live until Close.
	Lookup func(a2a.TaskID) (state a2a.TaskState, ok bool)
	// Log receives one line per notable thing (sessions, detection); nil => none.
	Log func(format string, args ...any)
	// CallTimeout bounds each unary call; 0 => 10s.
	CallTimeout time.Duration
}

// Bridge is a connection to one A3S agent and the sessions opened on it.
type Bridge struct {
	cfg  Config
	c    *client
	base context.Context // ends at Close: generations outlive the turns that start them
	stop context.CancelFunc

	mu       sync.Mutex
	sessions map[string]*session // by A2A context id
	initOnce bool                // Initialize succeeded

	cardMu sync.Mutex
	card   *a2a.AgentCard
}

// session is the A3S session of one A2A context.
type session struct {
	id    string
	tasks map[a2a.TaskID]struct{}
	turn  chan struct{} // one turn at a time: an A3S session runs one generation
	gen   *generation   // a generation waiting for a tool-call approval, between turns
	auto  bool          // the client's agent settings said auto_execute: confirmations are approved at once
}

// New makes a Bridge; it does not connect (see Start).
func New(cfg Config) (*Bridge, error) {
	c, err := dial(cfg.Addr, cfg.Dialect, cfg.TLS)
	if err != nil {
		return nil, err
	}
	if cfg.CallTimeout <= 0 {
		cfg.CallTimeout = 10 * time.Second
	}
	base, stop := context.WithCancel(context.Background())
	return &Bridge{cfg: cfg, c: c, base: base, stop: stop, sessions: map[string]*session{}}, nil
}

func (b *Bridge) logf(format string, args ...any) {
	if b.cfg.Log != nil {
		b.cfg.Log(format, args...)
	}
}

func (b *Bridge) call(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, b.cfg.CallTimeout)
}

// Start checks the agent's health once. An agent that is down does not stop the bridge: the
// error is returned for the log, and every new session checks again.
func (b *Bridge) Start(ctx context.Context) error {
	if err := b.health(ctx); err != nil {
		return err
	}
	ctx, cancel := b.call(ctx)
	defer cancel()
	if d, err := b.c.probe(ctx); err == nil {
		b.logf("A3S agent %s speaks the %s shape of the interface", b.cfg.Addr, d)
	}
	return nil
}

// health is HealthCheck: an error when the agent cannot be reached or says it is unhealthy.
// Degraded is fine (A3S Code says degraded until it is initialised).
func (b *Bridge) health(ctx context.Context) error {
	ctx, cancel := b.call(ctx)
	defer cancel()
	resp, err := b.c.api.HealthCheck(ctx, &a3spb.HealthCheckRequest{})
	if err != nil {
		return b.c.grpcErr("HealthCheck", err)
	}
	if resp.GetStatus() == a3spb.HealthCheckResponse_STATUS_UNHEALTHY {
		msg := resp.GetMessage()
		if msg == "" {
			msg = "no reason given"
		}
		return fmt.Errorf("A3S agent %s is unhealthy: %s", b.cfg.Addr, msg)
	}
	return nil
}

// Check prepares msg's context before a task is created, so that an agent that is down is an
// A2A error to the caller rather than a failed task: a message that starts a context gets its
// context id now and its session (HealthCheck, Initialize once, CreateSession). Messages on an
// existing task or context pass.
func (b *Bridge) Check(ctx context.Context, msg *a2a.Message) error {
	if msg == nil || msg.TaskID != "" {
		return nil
	}
	if msg.ContextID == "" {
		msg.ContextID = a2a.NewContextID()
	}
	_, err := b.session(ctx, msg.ContextID, msg)
	return err
}

// session returns the session of contextID, creating it on first use.
func (b *Bridge) session(ctx context.Context, contextID string, msg *a2a.Message) (*session, error) {
	b.mu.Lock()
	s := b.sessions[contextID]
	b.mu.Unlock()
	if s != nil {
		return s, nil
	}
	if err := b.health(ctx); err != nil {
		return nil, err
	}
	ws, _ := settingsOf(msg)
	if ws == "" {
		ws = b.cfg.Workspace
	}
	if err := b.initialize(ctx, ws); err != nil {
		return nil, err
	}
	cctx, cancel := b.call(ctx)
	defer cancel()
	resp, err := b.c.api.CreateSession(cctx, &a3spb.CreateSessionRequest{
		Config: &a3spb.SessionConfig{Name: "a2a context " + contextID, Workspace: ws}})
	if err != nil {
		return nil, b.c.grpcErr("CreateSession", err)
	}
	if resp.GetSessionId() == "" {
		return nil, fmt.Errorf("A3S agent %s: CreateSession returned no session id", b.cfg.Addr)
	}
	s = &session{id: resp.GetSessionId(), tasks: map[a2a.TaskID]struct{}{}, turn: make(chan struct{}, 1)}
	b.mu.Lock()
	if prev := b.sessions[contextID]; prev != nil { // another message of the context won the race
		b.mu.Unlock()
		b.destroy(s)
		return prev, nil
	}
	b.sessions[contextID] = s
	b.mu.Unlock()
	b.logf("A3S session %s for context %s (workspace %q)", s.id, contextID, ws)
	return s, nil
}

// initialize calls Initialize once, with the first session's workspace.
func (b *Bridge) initialize(ctx context.Context, ws string) error {
	b.mu.Lock()
	done := b.initOnce
	b.mu.Unlock()
	if done {
		return nil
	}
	ctx, cancel := b.call(ctx)
	defer cancel()
	resp, err := b.c.api.Initialize(ctx, &a3spb.InitializeRequest{Workspace: ws})
	switch {
	case status.Code(err) == codes.Unimplemented:
	case err != nil:
		return b.c.grpcErr("Initialize", err)
	case !resp.GetSuccess():
		return fmt.Errorf("A3S agent %s: Initialize: %s", b.cfg.Addr, resp.GetMessage())
	}
	b.mu.Lock()
	b.initOnce = true
	b.mu.Unlock()
	return nil
}

// destroy ends a session on the agent (best effort: the agent may be gone).
func (b *Bridge) destroy(s *session) {
	ctx, cancel := b.call(context.Background())
	defer cancel()
	if _, err := b.c.api.DestroySession(ctx, &a3spb.DestroySessionRequest{SessionId: s.id}); err != nil {
		b.logf("A3S session %s: %v", s.id, b.c.grpcErr("DestroySession", err))
		return
	}
	b.logf("A3S session %s destroyed", s.id)
}

// sweep destroys the sessions of contexts whose tasks the store has all dropped (retention), and
// drops generations whose task ended while waiting for an approval. keep is the context of the
// turn that is starting.
func (b *Bridge) sweep(keep string) {
	if b.cfg.Lookup == nil {
		return
	}
	var gone, waiting []*session
	var stale []*generation
	b.mu.Lock()
	for id, s := range b.sessions {
		if id == keep || len(s.tasks) == 0 {
			continue
		}
		waiting = append(waiting, s)
		alive := false
		for t := range s.tasks {
			if _, ok := b.cfg.Lookup(t); ok {
				alive = true
				break
			}
		}
		if !alive {
			delete(b.sessions, id)
			gone = append(gone, s)
		}
	}
	b.mu.Unlock()
	for _, s := range gone {
		if g := s.takeGen(); g != nil {
			stale = append(stale, g)
		}
		b.destroy(s)
	}
	for _, s := range waiting { // a task canceled (or dropped) while it waited for an approval
		if g := s.takeGenIf(func(g *generation) bool {
			st, ok := b.cfg.Lookup(g.task)
			return !ok || st.Terminal()
		}); g != nil {
			stale = append(stale, g)
		}
	}
	for _, g := range stale {
		b.abandon(g)
	}
}

// takeGen removes and returns the session's waiting generation, if it can take the turn lock
// at once (a session in the middle of a turn keeps it).
func (s *session) takeGen() *generation {
	return s.takeGenIf(func(*generation) bool { return true })
}

// takeGenIf is takeGen for a generation that matches cond.
func (s *session) takeGenIf(cond func(*generation) bool) *generation {
	select {
	case s.turn <- struct{}{}:
	default:
		return nil
	}
	defer func() { <-s.turn }()
	g := s.gen
	if g == nil || !cond(g) {
		return nil
	}
	s.gen = nil
	return g
}

// Close cancels what runs on the agent, destroys every session and closes the connection.
func (b *Bridge) Close(ctx context.Context) error {
	b.stop()
	b.mu.Lock()
	all := make([]*session, 0, len(b.sessions))
	for id, s := range b.sessions {
		all = append(all, s)
		delete(b.sessions, id)
	}
	b.mu.Unlock()
	for _, s := range all {
		if g := s.takeGen(); g != nil {
			b.abandon(g)
		}
		if ctx.Err() == nil {
			b.destroy(s)
		}
	}
	return b.c.close()
}

// errNoText is the failure of a message with nothing to send.
var errNoText = errors.New("the message has no text for the A3S agent")

// Card is the agent card from GetCapabilities: name, version, description, each tool a skill,
// and the development-tool extension. Until the agent answers, a card saying so.
func (b *Bridge) Card(ctx context.Context) *a2a.AgentCard {
	b.cardMu.Lock()
	defer b.cardMu.Unlock()
	if b.card != nil {
		return b.card
	}
	cctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	card := &a2a.AgentCard{
		Version:            "unknown",
		DefaultInputModes:  []string{"text/plain", "application/json"},
		DefaultOutputModes: []string{"text/plain"},
		Skills:             []a2a.AgentSkill{},
		Capabilities: a2a.AgentCapabilities{Streaming: true, Extensions: []a2a.AgentExtension{{
			URI: devtool.URI, Description: "tool calls, thoughts and confirmations of the A3S agent"}}},
	}
	resp, err := b.c.api.GetCapabilities(cctx, &a3spb.GetCapabilitiesRequest{})
	if err != nil {
		card.Name = "A3S agent"
		card.Description = fmt.Sprintf("Bridge to the A3S agent at %s, which does not answer (%v)", b.cfg.Addr, b.c.grpcErr("GetCapabilities", err))
		return card
	}
	info := resp.GetInfo()
	card.Name = info.GetName()
	if card.Name == "" {
		card.Name = "A3S agent"
	}
	if v := info.GetVersion(); v != "" {
		card.Version = v
	}
	card.Description = info.GetDescription()
	if card.Description == "" {
		card.Description = "A3S coding agent at " + b.cfg.Addr
	}
	for _, t := range resp.GetTools() {
		desc := t.GetDescription()
		if desc == "" {
			desc = "the agent's " + t.GetName() + " tool"
		}
		card.Skills = append(card.Skills, a2a.AgentSkill{ID: t.GetName(), Name: t.GetName(), Description: desc, Tags: []string{"tool"}})
	}
	b.card = card
	return card
}

package mcpbridge

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/a2acli/a2a/internal/client"
	"github.com/a2acli/a2a/internal/follow"
	"github.com/a2acli/a2a/internal/termsafe"
	"github.com/a2aproject/a2a-go/v2/a2a"
)

// StartWait bounds how long New waits for the agents' cards before the server answers the host. Hosts list the
// tools once, right after `initialize`, and several (Claude Code among them) do not list them again on
// notifications/tools/list_changed: waiting a little lets every agent that answers at all be listed with its
// skills. It is longer than the retry of a refused loopback connection (3 s, package client), so that a server
// whose agents are not running fails with their reason, and shorter than the start-up budget of hosts (Codex
// waits 10 s).
const StartWait = 4 * time.Second

// New starts connecting to every agent at urls, all at once (their cards name the skills), and builds the server
// when every agent answered or failed, or when Config.StartWait passed. The agents that answered are listed with
// their skills; one still connecting or unreachable gets a stand-in tool (standIn) that connects again when called
// and says why it cannot. When every agent failed, New fails: a host shows the server's error, not a server with
// nothing to call.
func New(ctx context.Context, cfg Config, urls []string) (*Bridge, error) {
	if cfg.Log == nil {
		cfg.Log = io.Discard
	}
	if cfg.Env == nil {
		cfg.Env = &follow.Env{}
	}
	if cfg.StartWait <= 0 {
		cfg.StartWait = StartWait
	}
	b := &Bridge{cfg: cfg, tasks: map[a2a.TaskID]*agent{}, stateKey: newStateKey()}
	var bg context.Context
	bg, b.stop = context.WithCancel(ctx)
	for _, u := range urls {
		a := &agent{url: u, name: termsafe.Line(u), ready: make(chan struct{})}
		b.agents = append(b.agents, a)
		go b.connect(bg, a)
	}
	if err := b.awaitStart(ctx); err != nil {
		b.Close()
		return nil, err
	}
	b.server = mcp.NewServer(&mcp.Implementation{Name: "a2a", Title: "A2A agents", Version: cfg.Version},
		&mcp.ServerOptions{Instructions: instructions})
	b.register()
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, a := range b.agents {
		a.mu.Lock()
		conn, err := a.conn, a.err
		a.mu.Unlock()
		switch {
		case conn != nil:
			b.list(a)
		case err != nil:
			b.standIn(a, "could not be reached")
		default:
			fmt.Fprintf(b.cfg.Log, "a2a mcp: %s: no card yet after %s: its tools come when it answers\n",
				termsafe.Line(a.url), cfg.StartWait)
			b.standIn(a, "had not answered")
		}
	}
	b.started = true
	return b, nil
}

// awaitStart waits until every agent's first connect settled or StartWait passed. Every agent failing is New's
// error: the first one's, each other's on the log.
func (b *Bridge) awaitStart(ctx context.Context) error {
	timer := time.NewTimer(b.cfg.StartWait)
	defer timer.Stop()
	for _, a := range b.agents {
		select {
		case <-a.ready:
		case <-timer.C:
			return nil
		case <-ctx.Done():
			return client.ErrInterrupted
		}
	}
	var first error
	for _, a := range b.agents {
		a.mu.Lock()
		conn, err := a.conn, a.err
		a.mu.Unlock()
		if conn != nil {
			return nil
		}
		if first == nil {
			first = fmt.Errorf("%s: %w", termsafe.Line(a.url), err)
		} else {
			fmt.Fprintf(b.cfg.Log, "a2a mcp: %s: %s\n", termsafe.Line(a.url), termsafe.Line(err.Error()))
		}
	}
	return first
}

// connect is an agent's first connect, run when the server starts. An agent that answers after the server
// started gets its skills' tools then.
func (b *Bridge) connect(ctx context.Context, a *agent) {
	c, err := b.cfg.Connect(b.tenant(ctx), a.url)
	b.settle(a, c, err)
	close(a.ready)
	b.mu.Lock()
	defer b.mu.Unlock()
	if !b.started {
		return
	}
	if err != nil {
		if ctx.Err() == nil {
			fmt.Fprintf(b.cfg.Log, "a2a mcp: %s: %s\n", termsafe.Line(a.url), termsafe.Line(err.Error()))
		}
		return
	}
	b.list(a)
	fmt.Fprintf(b.cfg.Log, "a2a mcp: %s answered: its tools are listed\n", termsafe.Line(a.url))
}

// settle records the outcome of a connect of a: its connection and card, or why it failed.
func (b *Bridge) settle(a *agent, c *client.Conn, err error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.tries++
	if err != nil {
		a.err = err
		return
	}
	if a.shut {
		_ = c.Destroy() // the bridge closed while it connected: nothing is left to report to
		return
	}
	a.conn, a.err, a.card = c, nil, c.Card
	if c.Card != nil && strings.TrimSpace(c.Card.Name) != "" {
		a.name = termsafe.Line(c.Card.Name)
	}
}

// closing says whether the bridge closed.
func (a *agent) closing() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.shut
}

// label names a in messages: its card's name, or its URL until the card arrived.
func (a *agent) label() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.name
}

// reach is a's connection for a call: once its first connect settled (the call's ctx bounds the wait), the one it
// has, or a new one when it could not be reached before this call began. A connect that failed while the call
// waited for it is the call's answer (the call would otherwise wait twice for an agent that does not answer). An
// agent reached here gets its skills' tools.
func (b *Bridge) reach(ctx context.Context, a *agent) error {
	a.mu.Lock()
	tries := a.tries
	a.mu.Unlock()
	select {
	case <-a.ready:
	case <-ctx.Done():
		return fmt.Errorf("the host canceled the call while the A2A agent at %s was still connecting", termsafe.Line(a.url))
	}
	a.dial.Lock()
	defer a.dial.Unlock()
	a.mu.Lock()
	conn, err, again := a.conn, a.err, a.tries == tries
	a.mu.Unlock()
	if conn != nil {
		return nil
	}
	if again {
		conn, err = b.cfg.Connect(b.tenant(ctx), a.url)
		b.settle(a, conn, err)
	}
	if err == nil && a.closing() {
		return errors.New("the server is closing")
	}
	if err != nil {
		return fmt.Errorf("the A2A agent at %s cannot be reached: %s", termsafe.Line(a.url), termsafe.Line(err.Error()))
	}
	b.mu.Lock()
	b.list(a)
	b.mu.Unlock()
	return nil
}

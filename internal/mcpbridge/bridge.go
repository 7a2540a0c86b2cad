package mcpbridge

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/a2acli/a2a/internal/client"
	"github.com/a2acli/a2a/internal/follow"
	"github.com/a2acli/a2a/internal/termsafe"
	"github.com/a2aproject/a2a-go/v2/a2a"
)

// Config is what the bridge needs from the command's run.
type Config struct {
	// Connect connects to the agent at a URL as every verb does: credentials (those given, else the token `auth
	// login` stored for its origin), TLS, the origin rule and the card's signature come from the run's configuration.
	Connect func(ctx context.Context, url string) (*client.Conn, error)
	// Env is the -v log, the tenant and the wait bounds of following a task.
	Env *follow.Env
	// Save is --save: file parts of answers are written there and linked (empty: embedded as resources).
	Save string
	// Version is the server's version in the MCP handshake.
	Version string
	// Log receives the bridge's notes (stderr); nil discards them.
	Log io.Writer
}

// agent is one agent the bridge serves, connected when the server starts, and again before the call that follows
// one refused for credentials: the user may have run the `a2a auth login` the refusal pointed to.
type agent struct {
	url  string
	name string // the card's name, for messages
	card *a2a.AgentCard

	mu     sync.Mutex
	conn   *client.Conn
	stale  bool           // a call was refused for credentials: the next one connects again
	closed []*client.Conn // connections replaced, closed with the bridge (a call may still use one)
}

// client is the agent's connection for a call: a new one when the last call was refused for credentials (Connect
// reads the stored token again, renewed), else the one it has. A failed reconnect keeps the old connection: the
// call then reports what the agent says.
func (b *Bridge) client(ctx context.Context, a *agent) *client.Conn {
	a.mu.Lock()
	defer a.mu.Unlock()
	if !a.stale {
		return a.conn
	}
	a.stale = false
	if b.cfg.Env.Tenant != "" {
		ctx = a2a.AttachTenant(ctx, b.cfg.Env.Tenant)
	}
	c, err := b.cfg.Connect(ctx, a.url)
	if err != nil {
		fmt.Fprintf(b.cfg.Log, "a2a mcp: %s: connect again: %s\n", termsafe.Line(a.url), termsafe.Line(err.Error()))
		return a.conn
	}
	a.closed = append(a.closed, a.conn)
	a.conn = c
	return c
}

// refused marks that a call to a was refused for credentials (or its task waits for them): the next call connects
// again.
func (a *agent) refused() {
	a.mu.Lock()
	a.stale = true
	a.mu.Unlock()
}

// Bridge is an MCP server whose tools are the skills of A2A agents.
type Bridge struct {
	cfg    Config
	agents []*agent
	server *mcp.Server
	tools  []string // the tool names, in the order listed
	owners []*agent // each tool's agent

	stateKey []byte // signs the request states of elicitations (input.go)

	mu    sync.Mutex
	tasks map[a2a.TaskID]*agent // tasks this server started, for `continue` (bounded: maxTasks)
	order []a2a.TaskID
}

// maxTasks bounds what the bridge remembers of the tasks it started.
const maxTasks = 4096

// New connects to every agent at urls (their cards name the skills) and builds the server. An agent that cannot
// be reached fails it: a host shows the server's error, not a tool list that silently lacks an agent.
func New(ctx context.Context, cfg Config, urls []string) (*Bridge, error) {
	if cfg.Log == nil {
		cfg.Log = io.Discard
	}
	if cfg.Env == nil {
		cfg.Env = &follow.Env{}
	}
	b := &Bridge{cfg: cfg, tasks: map[a2a.TaskID]*agent{}, stateKey: newStateKey()}
	for _, u := range urls {
		cctx := ctx
		if cfg.Env.Tenant != "" {
			cctx = a2a.AttachTenant(ctx, cfg.Env.Tenant)
		}
		c, err := cfg.Connect(cctx, u)
		if err != nil {
			b.Close()
			return nil, fmt.Errorf("%s: %w", termsafe.Line(u), err)
		}
		name := u
		if c.Card != nil && strings.TrimSpace(c.Card.Name) != "" {
			name = c.Card.Name
		}
		b.agents = append(b.agents, &agent{url: u, conn: c, card: c.Card, name: termsafe.Line(name)})
	}
	b.server = mcp.NewServer(&mcp.Implementation{Name: "a2a", Title: "A2A agents", Version: cfg.Version},
		&mcp.ServerOptions{Instructions: instructions})
	b.register()
	return b, nil
}

const instructions = `Each tool sends a message to an A2A agent and returns its answer. A task that waits for input
returns the agent's question and its task id: answer it with the continue tool.`

// Server is the MCP server, to run on a transport.
func (b *Bridge) Server() *mcp.Server { return b.server }

// Tools lists the tool names, in the order a host sees them.
func (b *Bridge) Tools() []string { return b.tools }

// Close closes the agents' clients.
func (b *Bridge) Close() {
	for _, a := range b.agents {
		a.mu.Lock()
		for _, c := range append(a.closed, a.conn) {
			_ = c.Destroy() // closing a client has nothing useful to report
		}
		a.mu.Unlock()
	}
}

// remember records that task belongs to a, for a later `continue`.
func (b *Bridge) remember(id a2a.TaskID, a *agent) {
	if id == "" {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if _, ok := b.tasks[id]; ok {
		return
	}
	if len(b.order) >= maxTasks {
		delete(b.tasks, b.order[0])
		b.order = b.order[1:]
	}
	b.tasks[id] = a
	b.order = append(b.order, id)
}

// agentOf finds the agent of a task for `continue`: the one that started it here, else the one named (a tool
// name or URL), else the only one.
func (b *Bridge) agentOf(id a2a.TaskID, named string) (*agent, error) {
	b.mu.Lock()
	a := b.tasks[id]
	b.mu.Unlock()
	if a != nil {
		return a, nil
	}
	if named != "" {
		for i, t := range b.owners {
			if b.tools[i] == named || t.url == named {
				return t, nil
			}
		}
		return nil, fmt.Errorf("no agent %q: name one of the tools or agent URLs this server has", named)
	}
	if len(b.agents) == 1 {
		return b.agents[0], nil
	}
	return nil, errors.New("this server did not start that task: say which agent it belongs to with \"agent\" (a tool name)")
}

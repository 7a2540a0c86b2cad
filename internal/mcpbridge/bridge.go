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

// agent is one agent the bridge serves, connected once for the server's life.
type agent struct {
	url  string
	conn *client.Conn
	name string // the card's name, for messages
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
		b.agents = append(b.agents, &agent{url: u, conn: c, name: termsafe.Line(name)})
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
		_ = a.conn.Destroy() // closing a client has nothing useful to report
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

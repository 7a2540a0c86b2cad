package mcpbridge

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"sync"
	"time"

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
	// StartWait bounds how long New waits for the agents' cards (zero: StartWait).
	StartWait time.Duration
	// Log receives the bridge's notes (stderr); nil discards them.
	Log io.Writer
}

// agent is one agent the bridge serves. It is connected in the background when the server starts, each agent
// at the same time; one that has not answered when the server answers `initialize` is connected again by a call to
// its tool. It is connected again, too, before the call that follows one refused for credentials: the user may have
// run the `a2a auth login` the refusal pointed to.
type agent struct {
	url string

	ready chan struct{} // closed when the first connect settled (conn or err set)
	dial  sync.Mutex    // one connect of this agent at a time (reach)

	mu     sync.Mutex
	name   string // the card's name, for messages (the URL until the card arrived); set once, with card
	card   *a2a.AgentCard
	conn   *client.Conn   // nil while connecting, or when it could not be reached
	err    error          // why the last connect failed (conn nil)
	tries  int            // connects settled so far
	listed bool           // its skills' tools are registered
	shut   bool           // the bridge closed: a connect that ends now closes its client
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
	c, err := b.cfg.Connect(b.tenant(ctx), a.url)
	if err != nil {
		fmt.Fprintf(b.cfg.Log, "a2a mcp: %s: connect again: %s\n", termsafe.Line(a.url), termsafe.Line(err.Error()))
		return a.conn
	}
	a.closed = append(a.closed, a.conn)
	a.conn = c
	return c
}

func (b *Bridge) tenant(ctx context.Context) context.Context {
	if b.cfg.Env.Tenant != "" {
		return a2a.AttachTenant(ctx, b.cfg.Env.Tenant)
	}
	return ctx
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
	stop   context.CancelFunc // ends the connects still under way (Close)

	stateKey []byte // signs the request states of elicitations (input.go)

	// mu guards what follows: the tools, which grow when an agent answers after the server started, and the tasks.
	mu      sync.Mutex
	started bool                  // the tools of the agents that answered in time are registered: a later one adds its own
	names   namer                 // tool names handed out so far
	tools   []string              // the tool names, in the order listed
	owners  []*agent              // each tool's agent
	tasks   map[a2a.TaskID]*agent // tasks this server started, for `continue` (bounded: maxTasks)
	order   []a2a.TaskID
}

// maxTasks bounds what the bridge remembers of the tasks it started.
const maxTasks = 4096

const instructions = `Each tool sends a message to an A2A agent and returns its answer. A task that waits for input
returns the agent's question and its task id: answer it with the continue tool.`

// Server is the MCP server, to run on a transport.
func (b *Bridge) Server() *mcp.Server { return b.server }

// Tools lists the tool names, in the order a host sees them.
func (b *Bridge) Tools() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return slices.Clone(b.tools)
}

// Close ends the connects under way and closes the agents' clients.
func (b *Bridge) Close() {
	b.stop()
	for _, a := range b.agents {
		a.mu.Lock()
		a.shut = true
		for _, c := range append(a.closed, a.conn) {
			if c != nil {
				_ = c.Destroy() // closing a client has nothing useful to report
			}
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
		b.mu.Lock()
		defer b.mu.Unlock()
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

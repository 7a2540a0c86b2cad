package cli

import (
	"context"
	"io"
	"sync"

	"github.com/spf13/cobra"

	"github.com/a2acli/a2a/internal/client"
	"github.com/a2acli/a2a/internal/follow"
	"github.com/a2acli/a2a/internal/mcpbridge"
)

// `a2a mcp` runs in this process: the bridge is built only when the verb runs, as every verb is (lazy.go). Linking
// the MCP SDK into a2a costs every verb its package initialisation all the same (~0.3 ms, ~50 page faults: a2a --help
// 963 -> 1014); one program to install, ship and trust is worth more than that (see docs/mcp.md).

// mcpOptions are the flags of `a2a mcp`.
type mcpOptions struct {
	f            *factory
	urls         []string
	http         string
	save         string
	allowHosts   []string
	allowOrigins []string
}

func newMCPCmd(f *factory, runF func(context.Context, *mcpOptions) error) *cobra.Command {
	o := &mcpOptions{f: f}
	cmd := &cobra.Command{
		Use:   "mcp <url> [<url>...]",
		Short: "Serve A2A agents as MCP tools, for coding assistants (stdio, or HTTP with --http)",
		Long: `mcp is an MCP server whose tools are the skills of the agents named: a coding assistant (Claude Code,
Gemini CLI, Cursor, VS Code) calls an A2A agent as it calls any MCP tool. It speaks MCP on stdin and stdout, as
hosts spawn it, or streamable HTTP on --http ADDR (at /mcp, on loopback unless ADDR names another host).

Each skill is a tool named after the agent and the skill; a tool takes a message and optional files and data, and
returns the agent's answer. A long task reports progress; a host that cancels the call cancels the task; a task that
waits for input asks the host's user (elicitation) or returns the question and its task id for the continue tool.
Credentials, TLS and every other option come from flags, the environment and dotenv files, as for every verb.
The agents' cards are read at the same time; an agent that has not answered within 4 seconds does not hold up the
others: it gets a tool named after its address, which connects to it when called or says why it cannot.

Add it to an assistant: claude mcp add echo -- a2a mcp localhost:8080 (guide: docs/mcp.md).`,
		Example: `  a2a mcp localhost:8080
  a2a mcp https://agent.example.com --auth @token.txt
  a2a mcp https://agent.example.com localhost:8080 --http 127.0.0.1:8765`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return &client.UsageError{Msg: "missing <url>: name at least one agent", Cmd: cmd.CommandPath()}
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			o.urls = args
			if runF != nil {
				return runF(cmd.Context(), o)
			}
			return runMCP(cmd.Context(), o)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&o.http, "http", "", "serve streamable HTTP on `ADDR` (host:port, :port is loopback) instead of stdio")
	fl.StringVar(&o.save, "save", "", "write the file parts of answers into `DIR` and link them (default: embed them)")
	fl.StringArrayVar(&o.allowHosts, "allow-host", nil, "with --http: also accept this Host `name` (DNS rebinding guard, as serve's)")
	fl.StringArrayVar(&o.allowOrigins, "allow-origin", nil, "with --http: let browser pages of this `origin` call (as serve's)")
	return cmd
}

func runMCP(ctx context.Context, o *mcpOptions) error {
	f := o.f
	// The agents are connected at the same time (mcpbridge.New): every line written to stderr goes through one
	// lock, so the -v log, the card warnings and the bridge's notes of several agents never interleave within a line.
	// (A stored token's renewal, which rewrites the token file, is serialised by package auth.)
	errs := *f.io
	errs.Err = &lineWriter{w: f.io.Err}
	f.io = &errs
	if f.log != nil {
		f.log.W = errs.Err
	}
	// Each agent is reached as a verb reaches its one agent (connect), through a Dialer of its own: the credential
	// guard names that agent's origin, and the credentials are those given or, when none were, the token `auth
	// login` stored for that origin. One Dialer for all would keep them for the last agent named alone.
	connect := func(ctx context.Context, u string) (*client.Conn, error) { return f.forAgent().connect(ctx, u) }
	b, err := mcpbridge.New(ctx, mcpbridge.Config{Connect: connect, Env: &follow.Env{Log: f.log, Tenant: f.opts.Tenant},
		Save: o.save, Version: version, Log: f.io.Err}, o.urls)
	if err != nil {
		return err
	}
	defer b.Close()
	return b.Serve(ctx, mcpbridge.ServeOptions{HTTP: o.http, AllowHosts: o.allowHosts, AllowOrigins: o.allowOrigins,
		In: f.io.In, Out: f.io.Out, Err: f.io.Err})
}

// forAgent is the run as one of several agents it serves sees it: the same options, streams and log, with its own
// copy of the options (a stored token is set on them) and its own Dialer.
func (f *factory) forAgent() *factory {
	af := *f
	opts := *f.opts
	af.opts, af.dial = &opts, nil
	return &af
}

// lineWriter writes each Write whole, one at a time: the agents' connects write to stderr at the same time.
type lineWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lineWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

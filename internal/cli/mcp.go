package cli

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/a2acli/a2a/internal/client"
	"github.com/a2acli/a2a/internal/follow"
)

// `a2a mcp` is served by a program of its own, a2a-mcp (cmd/a2a-mcp), that a2a replaces itself with once the flags
// are accepted: Go initialises every package linked into a binary whatever the command, and the MCP SDK's packages
// cost every other verb ~0.3 ms of initialisation and ~50 page faults at start-up. a2a-mcp is this same command
// line (MainMCP) with the bridge linked in.

// MCPServer serves `a2a mcp` in this process.
type MCPServer func(ctx context.Context, r *MCPRun) error

// MCPRun is what a run of `a2a mcp` hands its server: the agents, the flags, the run's Dialer (credentials, TLS, the
// origin rule) and streams.
type MCPRun struct {
	Dialer                   *client.Dialer
	Env                      *follow.Env
	URLs                     []string
	HTTP, Save               string
	AllowHosts, AllowOrigins []string
	In                       io.Reader
	Out, Err                 io.Writer
	Version                  string
}

// MainMCP is Main with srv serving `a2a mcp` in this process (a2a-mcp's main).
func MainMCP(ctx context.Context, args []string, s *Streams, srv MCPServer) int {
	return run(ctx, args, s, func(f *factory) { f.mcpServer = srv })
}

// mcpProgram is the program a2a runs for `a2a mcp`.
const mcpProgram = "a2a-mcp"

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
The server is the a2a-mcp program, installed beside a2a.

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
	if f.mcpServer == nil {
		if f.io.Exec == nil {
			return errors.New("a2a mcp: this run cannot start " + mcpProgram)
		}
		err := f.io.Exec(mcpProgram, f.args)
		return fmt.Errorf("start %s, the MCP server of a2a mcp (installed beside a2a: make build, the release archives, "+
			"or go install github.com/a2acli/a2a/cmd/%s): %w", mcpProgram, mcpProgram, err)
	}
	return f.mcpServer(ctx, &MCPRun{Dialer: f.dialer(), Env: &follow.Env{Log: f.log, Tenant: f.opts.Tenant},
		URLs: o.urls, HTTP: o.http, Save: o.save, AllowHosts: o.allowHosts, AllowOrigins: o.allowOrigins,
		In: f.io.In, Out: f.io.Out, Err: f.io.Err, Version: version})
}

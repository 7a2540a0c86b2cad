// Command a2a-mcp is the MCP server of `a2a mcp`: the a2a command line with the MCP bridge linked in. a2a replaces
// itself with it for `a2a mcp`, so that the MCP SDK costs no other verb its start-up; run directly, it is a2a.
package main

import (
	"context"
	"os"

	"golang.org/x/term"

	"github.com/a2acli/a2a/internal/cli"
	"github.com/a2acli/a2a/internal/mcpbridge"
)

func main() {
	s := &cli.Streams{In: os.Stdin, Out: os.Stdout, Err: os.Stderr, Getenv: os.Getenv,
		InTTY: term.IsTerminal(int(os.Stdin.Fd())), OutTTY: term.IsTerminal(int(os.Stdout.Fd())),
		ErrTTY: term.IsTerminal(int(os.Stderr.Fd()))}
	os.Exit(cli.MainMCP(context.Background(), os.Args[1:], s, serveMCP))
}

// serveMCP connects to the agents and serves their skills as MCP tools until the host goes.
func serveMCP(ctx context.Context, r *cli.MCPRun) error {
	b, err := mcpbridge.New(ctx, mcpbridge.Config{Dialer: r.Dialer, Env: r.Env, Save: r.Save, Version: r.Version, Log: r.Err}, r.URLs)
	if err != nil {
		return err
	}
	defer b.Close()
	return b.Serve(ctx, mcpbridge.ServeOptions{HTTP: r.HTTP, AllowHosts: r.AllowHosts, AllowOrigins: r.AllowOrigins,
		In: r.In, Out: r.Out, Err: r.Err})
}

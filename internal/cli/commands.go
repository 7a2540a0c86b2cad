package cli

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/a2acli/a2a/internal/client"
	"github.com/a2acli/a2a/internal/devtool"
	"github.com/a2acli/a2a/internal/output"
	"github.com/spf13/cobra"
)

type listCommandsOptions struct {
	f          *factory
	withClient withClientFunc
	url        string
}

func newListCommandsCmd(f *factory, runF func(context.Context, *listCommandsOptions) error) *cobra.Command {
	o := &listCommandsOptions{f: f, withClient: f.withClient}
	return &cobra.Command{
		Use:   "commands <url>",
		Short: "List the slash commands of a coding agent",
		Long: `List the slash commands a coding agent offers (the development-tool extension): names, descriptions,
arguments and subcommands. The RFC's commands/get method is used where the agent has it, the Gemini CLI server's
GET /listCommands otherwise. -o json prints the agent's own document.`,
		Example: `  a2a list commands localhost:41242
  a2a list commands localhost:41242 -o json | jq -r '.commands[].name'`,
		Args: exactArgs("<url>"),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.url = args[0]
			if runF != nil {
				return runF(cmd.Context(), o)
			}
			return runListCommands(cmd.Context(), o)
		},
	}
}

func runListCommands(ctx context.Context, o *listCommandsOptions) error {
	return o.withClient(ctx, o.url, func(ctx context.Context, c *client.Conn) error {
		cmds, raw, err := fetchCommands(ctx, o.f, c)
		if err != nil {
			return err
		}
		return o.f.printer().Commands(cmds, raw)
	})
}

// fetchCommands asks for the command list: commands/get on a JSON-RPC endpoint first (-32601: not there), then
// GET /listCommands.
func fetchCommands(ctx context.Context, f *factory, c *client.Conn) ([]output.SlashCommand, json.RawMessage, error) {
	if c.SpeaksJSONRPC() {
		raw, err := c.RPC(ctx, "commands/get", map[string]any{})
		if err == nil {
			cmds, perr := devtool.ParseCommands(raw)
			return cmds, raw, perr
		}
		if !client.MethodMissing(err) {
			return nil, nil, fmt.Errorf("commands/get: %w", err)
		}
		f.log.Printf("commands/get: %v: trying GET /listCommands", err)
	}
	raw, _, err := c.HTTPCall(ctx, "GET", c.HostURL("/listCommands"), nil)
	if err != nil {
		if client.MethodMissing(err) {
			return nil, nil, client.ErrNoCommands
		}
		return nil, nil, fmt.Errorf("list commands: %w", err)
	}
	cmds, err := devtool.ParseCommands(raw)
	return cmds, raw, err
}

package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/a2acli/a2a/internal/client"
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
			cmds, perr := parseCommands(raw)
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
	cmds, err := parseCommands(raw)
	return cmds, raw, err
}

// parseCommands reads a command list in either shape: {"commands":[…]} or a bare array, with camelCase or
// snake_case fields (subCommands / sub_commands, isRequired / is_required).
func parseCommands(raw json.RawMessage) ([]output.SlashCommand, error) {
	var doc any
	if err := json.Unmarshal(raw, &doc); err != nil {
		return nil, fmt.Errorf("decode command list: %w", err)
	}
	if m, ok := doc.(map[string]any); ok {
		doc = m["commands"]
	}
	list, ok := doc.([]any)
	if !ok && doc != nil {
		return nil, fmt.Errorf("decode command list: want a list of commands, got %T", doc)
	}
	return commandList(list), nil
}

func commandList(list []any) []output.SlashCommand {
	var out []output.SlashCommand
	for _, v := range list {
		m, ok := v.(map[string]any)
		if !ok {
			continue
		}
		c := output.SlashCommand{Name: strField(m, "name"), Description: strField(m, "description")}
		args, _ := firstField(m, "arguments", "args").([]any)
		for _, a := range args {
			am, ok := a.(map[string]any)
			if !ok {
				continue
			}
			req, _ := firstField(am, "isRequired", "is_required", "required").(bool)
			c.Arguments = append(c.Arguments, output.SlashArgument{Name: strField(am, "name"), Description: strField(am, "description"), Required: req})
		}
		subs, _ := firstField(m, "subCommands", "sub_commands", "subcommands").([]any)
		c.SubCommands = commandList(subs)
		out = append(out, c)
	}
	return out
}

func firstField(m map[string]any, keys ...string) any {
	for _, k := range keys {
		if v, ok := m[k]; ok && v != nil {
			return v
		}
	}
	return nil
}

func strField(m map[string]any, k string) string {
	s, _ := m[k].(string)
	return s
}

// splitCommandLine splits NAME ARGS… into the command path and its arguments: the longest prefix of the words that
// names a listed command (or subcommand) is the path; without a list, the first word is.
func splitCommandLine(words []string, cmds []output.SlashCommand) (path, args []string) {
	best := 1
	level := cmds
	for i, w := range words {
		found := false
		for _, c := range level {
			if strings.EqualFold(c.Name, w) {
				best, level, found = i+1, c.SubCommands, true
				break
			}
		}
		if !found {
			break
		}
	}
	return words[:best], words[best:]
}

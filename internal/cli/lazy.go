package cli

import (
	"fmt"

	"github.com/spf13/cobra"
)

// A run builds only the commands its arguments reach. `a2a --help` lists every command but runs none, and
// building a command's flags, flag groups and completions was most of what main did before printing that help.
// So the root gets a stand-in per command (its name and summary, from commandIndex) and the one command the
// arguments name is built for real. Anything else (help, completion, an unknown command, `__complete`) gets the
// whole tree, as before. lazy_test.go holds the stand-ins to the real commands: the same help, byte for byte.

// commandIndex is each top-level command's name and summary, in topCommands' order.
var commandIndex = []struct{ name, short string }{
	{"discover", "Fetch and show an agent's card"},
	{"send", "Send a message to an agent and print the response"},
	{"get", "Get a resource: task or card"},
	{"list", "List resources: tasks, commands"},
	{"create", "Create a resource: push-config"},
	{"delete", "Delete a resource: push-config"},
	{"cancel", "Cancel a task and print its updated status"},
	{"subscribe", "Stream a task's events until it ends"},
	{"listen", "Receive push notifications: a webhook that prints what agents POST to it"},
	{"run", "Run something on an agent: command"},
	{"chat", "Talk to an agent interactively on a terminal"},
	{"serve", "Serve an A2A agent: echo, a proxy to another agent, or any command"},
	{"mcp", "Serve A2A agents as MCP tools, for coding assistants (stdio, or HTTP with --http)"},
	{"skill", "Print the agent skill (SKILL.md) that teaches a coding assistant to use a2a"},
	{"version", "Print the version of a2a"},
	{"config", "Show the configuration: flags, environment, dotenv files"},
}

// newRootCmdFor is the command tree a run with args needs: the root with stand-ins, and the real command args
// name; the whole tree when args name none of the root's own commands.
func newRootCmdFor(f *factory, args []string) *cobra.Command {
	root := newRootShell(f)
	for _, c := range commandIndex {
		root.AddCommand(&cobra.Command{Use: c.name, Short: c.short, RunE: standIn})
	}
	c, _, err := root.Find(args)
	if err != nil {
		return newRootCmd(f)
	}
	if c != root {
		root.RemoveCommand(c)
		for _, t := range topCommands {
			if t.name == c.Name() {
				root.AddCommand(t.build(f))
			}
		}
	}
	f.setupHelp(root)
	return root
}

// standIn is the RunE of a command's stand-in, which newRootCmdFor replaces before anything can run it.
func standIn(cmd *cobra.Command, _ []string) error {
	return fmt.Errorf("internal error: %s ran before it was built", cmd.CommandPath())
}

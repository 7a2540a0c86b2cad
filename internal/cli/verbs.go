package cli

import (
	"github.com/spf13/cobra"

	"github.com/a2acli/a2a/internal/cli/servecmd"
)

// verb is one of the root's commands, as every part of the CLI that lists commands reads it: the help groups
// (setupHelp), the stand-ins of a lazy run (lazy.go), the whole tree that completion, `help` and the generated
// reference read (newRootCmd). Adding a verb is one entry here, a file with its builder, and a transcript in
// e2e/testdata/script; TestVerbsMatchCommands holds each entry to what its builder builds.
type verb struct {
	name  string
	short string // the builder's Short: what `a2a --help` lists without building the command
	group string // the ID of one of helpGroups
	build func(*factory) *cobra.Command
}

// Command groups of the root's help, in the order it lists them.
var helpGroups = []*cobra.Group{
	{ID: "agents", Title: "Agents:"},
	{ID: "tasks", Title: "Tasks:"},
	{ID: "coding", Title: "Coding agents:"},
	{ID: "serve", Title: "Serving:"},
	{ID: "other", Title: "Other:"},
}

// verbs are the root's commands, in the order the tree holds them (help lists each group's alphabetically).
var verbs = []verb{
	{"discover", "Fetch and show an agent's card", "agents",
		func(f *factory) *cobra.Command { return newDiscoverCmd(f, nil) }},
	{"auth", "Log in to agents with OAuth 2 / OpenID Connect; tokens for later calls", "agents", newAuthCmd},
	{"send", "Send a message to an agent and print the response", "agents",
		func(f *factory) *cobra.Command { return newSendCmd(f, nil) }},
	{"bench", "Measure an agent under load: throughput, latency percentiles, errors", "agents",
		func(f *factory) *cobra.Command { return newBenchCmd(f, nil) }},
	{"get", "Get a resource: task or card", "tasks", func(f *factory) *cobra.Command {
		get := &cobra.Command{Use: "get", Short: "Get a resource: task or card", RunE: nounArgs}
		get.AddCommand(newGetTaskCmd(f, nil), newGetCardCmd(f, nil), newPushConfigCmd(f, "get", nil))
		return get
	}},
	{"list", "List resources: tasks, commands", "tasks", func(f *factory) *cobra.Command {
		list := &cobra.Command{Use: "list", Short: "List resources: tasks, commands", RunE: nounArgs}
		list.AddCommand(newListTasksCmd(f, nil), newListCommandsCmd(f, nil), newPushConfigCmd(f, "list", nil))
		return list
	}},
	{"create", "Create a resource: push-config", "tasks", // pushconfig.go
		func(f *factory) *cobra.Command { return pushNoun(f, "create", "Create a resource: push-config") }},
	{"delete", "Delete a resource: push-config", "tasks",
		func(f *factory) *cobra.Command { return pushNoun(f, "delete", "Delete a resource: push-config") }},
	{"conformance", "Check an agent against the A2A specification on every binding", "agents",
		func(f *factory) *cobra.Command { return newConformanceCmd(f, nil) }},
	{"cancel", "Cancel a task and print its updated status", "tasks",
		func(f *factory) *cobra.Command { return newCancelCmd(f, nil) }},
	{"subscribe", "Stream a task's events until it ends", "tasks",
		func(f *factory) *cobra.Command { return newSubscribeCmd(f, nil) }},
	{"listen", "Receive push notifications: a webhook that prints what agents POST to it", "tasks",
		func(f *factory) *cobra.Command { return newListenCmd(f, nil) }},
	{"run", "Run something on an agent: command", "coding", newRunCmd},
	{"chat", "Talk to an agent interactively on a terminal", "coding",
		func(f *factory) *cobra.Command { return newChatCmd(f, nil) }},
	{"serve", "Serve an A2A agent: echo, a proxy to another agent, or any command", "serve", func(f *factory) *cobra.Command {
		return serverAlias(servecmd.New(servecmd.Deps{Err: f.io.Err, Getenv: f.io.getenv, Opts: &f.opts.Options, Verbose: &f.opts.verbose, Dialer: f.dialer,
			Given: func(flag string) bool { return f.sources[flag].Kind == "flag" }}))
	}},
	// the a2a-cli specification's resource nouns (canonical_cmds.go)
	{"card", "Agent cards, in the a2a-cli grammar: card get (same as discover)", "agents", newCardCmd},
	{"task", "Tasks, in the a2a-cli grammar: get, list, cancel, subscribe, push-config, download", "tasks", newTaskCmd},
	{"version", "Print the version of a2a", "other", newVersionCmd},
	{"config", "Show the configuration: flags, environment, dotenv files", "other", newConfigCmd},
}

// buildIn builds v's command for real, in its help group.
func (v verb) buildIn(f *factory) *cobra.Command {
	c := v.build(f)
	c.GroupID = v.group
	return c
}

// standIn is v's stand-in on a lazy run's root: its name, summary and group, and nothing that costs building.
func (v verb) standIn() *cobra.Command {
	return &cobra.Command{Use: v.name, Short: v.short, GroupID: v.group, RunE: standInRun, Aliases: commandAliases[v.name]}
}

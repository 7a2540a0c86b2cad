package cli

import (
	"fmt"

	"github.com/spf13/cobra"
)

// A run builds only the commands its arguments reach. `a2a --help` lists every command but runs none, and
// building a command's flags, flag groups and completions was most of what main did before printing that help.
// So the root gets a stand-in per verb (its name, summary and group, from verbs) and the one command the
// arguments name is built for real; a shell's completion request (`__complete VERB ...`, on every Tab) builds the
// verb it completes. Anything else (help, completion, an unknown command) gets the whole tree, as before. lazy_test.go holds the stand-ins to the real commands: the same help, byte for byte.

// newRootCmdFor is the command tree a run with args needs: the root with stand-ins, and the real command args
// name; the whole tree when args name none of the root's own commands.
func newRootCmdFor(f *factory, args []string) *cobra.Command {
	root := newRootShell(f)
	for _, v := range verbs {
		root.AddCommand(v.standIn())
	}
	find := args
	if len(args) > 0 && (args[0] == cobra.ShellCompRequestCmd || args[0] == cobra.ShellCompNoDescRequestCmd) {
		find = args[1:]
	}
	c, _, err := root.Find(find)
	if err != nil {
		return newRootCmd(f)
	}
	// cobra's completion command (six commands, their texts formatted) is only listed on these runs: cobra adds
	// its own only when the root has none.
	root.AddCommand(completionStandIn())
	if c == root {
		f.setupHelp(root) // the root's help lists every command, help topics included
		return root
	}
	// A verb's run (its help, its completions) reads none of the root's other commands, whose stand-ins keep its
	// lookups and completions as on the whole tree; cobra adds its help command itself.
	root.RemoveCommand(c)
	for _, v := range verbs {
		if v.name == c.Name() {
			c = v.buildIn(f)
			break
		}
	}
	root.AddCommand(c)
	addFlagAliases(c) // the root has none of the flags aliased: no alias is its
	f.acceptEnvAgent(c)
	root.AddGroup(helpGroups...)
	root.SetHelpCommandGroupID("other")
	if c.Name() == "version" {
		noGlobals(c)
	}
	return root
}

// completionStandIn stands in for cobra's completion command on a lazy run, which never runs it: its name,
// summary and group, as `a2a --help` lists it.
func completionStandIn() *cobra.Command {
	return &cobra.Command{Use: "completion", Short: "Generate the autocompletion script for the specified shell",
		GroupID: "other", RunE: standInRun}
}

// standInRun is the RunE of a verb's stand-in, which newRootCmdFor replaces before anything can run it.
func standInRun(cmd *cobra.Command, _ []string) error {
	return fmt.Errorf("internal error: %s ran before it was built", cmd.CommandPath())
}

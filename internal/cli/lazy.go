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
	if c != root {
		root.RemoveCommand(c)
		for _, v := range verbs {
			if v.name == c.Name() {
				root.AddCommand(v.buildIn(f))
			}
		}
		addFlagAliases(root)
		f.acceptEnvAgent(root)
	}
	f.setupHelp(root)
	return root
}

// standInRun is the RunE of a verb's stand-in, which newRootCmdFor replaces before anything can run it.
func standInRun(cmd *cobra.Command, _ []string) error {
	return fmt.Errorf("internal error: %s ran before it was built", cmd.CommandPath())
}

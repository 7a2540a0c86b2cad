package cli

import (
	"fmt"
	"sort"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/a2acli/a2a/internal/client"
	"github.com/a2acli/a2a/internal/config"
)

// setupHelp adds the root's help groups (its commands carry theirs, from verbs), puts cobra's help and completion in
// "other", adds the `help environment` topic, keeps the global flags out of version
// and completion, and suggests nouns for a mistyped one (`a2a list task`).
func (f *factory) setupHelp(root *cobra.Command) {
	root.AddGroup(helpGroups...)
	root.SetHelpCommandGroupID("other") // before cobra makes the commands, which take the group when made
	root.SetCompletionCommandGroupID("other")
	root.InitDefaultCompletionCmd() // none when a lazy run's stand-in is there
	root.InitDefaultHelpCmd()
	for _, c := range root.Commands() {
		if c.Name() == "version" || c.Name() == "completion" {
			noGlobals(c)
		}
		if c.Name() == "completion" && c.RunE == nil {
			refuseUnknownShell(c)
		}
	}
	// A help topic (no Run): `a2a help environment` prints it. Its text is built when it is shown, not on every start.
	env := &cobra.Command{Use: "environment", Short: "The environment variables a2a reads"}
	show := root.HelpFunc()
	env.SetHelpFunc(func(c *cobra.Command, args []string) {
		fillEnvironmentHelp(root)
		show(c, args)
	})
	root.AddCommand(env)
}

// fillEnvironmentHelp sets the text of the `help environment` topic.
func fillEnvironmentHelp(root *cobra.Command) {
	for _, c := range root.Commands() {
		if c.Name() == "environment" && c.Long == "" {
			c.Long = environmentHelp(root)
		}
	}
}

// environmentHelp lists every variable a2a reads: one per global flag, then the colour and configuration ones.
func environmentHelp(root *cobra.Command) string {
	var b strings.Builder
	b.WriteString(`Every option can come from the environment: A2ACLI_ and the long flag in upper snake case
(--poll-interval: A2ACLI_POLL_INTERVAL), or from a dotenv file of such lines (--config PATH or else ./.env,
then $XDG_CONFIG_HOME/a2a/.env or ~/.config/a2a/.env). Precedence: flag > environment > file > default.
'a2a config show' prints each effective value and where it came from.

Global options:
`)
	var rows [][2]string
	root.PersistentFlags().VisitAll(func(fl *pflag.Flag) {
		if config.NoEnv(fl.Name) {
			return
		}
		rows = append(rows, [2]string{config.EnvName(fl.Name), "--" + fl.Name})
	})
	sort.Slice(rows, func(i, j int) bool { return rows[i][0] < rows[j][0] })
	for _, r := range rows {
		fmt.Fprintf(&b, "  %-28s %s\n", r[0], r[1])
	}
	b.WriteString(`
Command options work the same way (send --wait: A2ACLI_WAIT, serve --port: A2ACLI_PORT), except --stream (it
changes what -o json prints) and the flags that make up the message (its parts, --json, -f): only the command
line sets those.

Output:
  NO_COLOR                     set and not empty: no colour
  CLICOLOR=0                   no colour
  CLICOLOR_FORCE, FORCE_COLOR  set and not 0: colour even in a pipe (text; -o json needs --color always)
  TERM=dumb                    no colour, no spinner

Files:
  XDG_CONFIG_HOME              where the user's a2a/.env lives (default ~/.config)
`)
	return b.String()
}

// suggestNoun is nounArgs' "did you mean" for a mistyped noun: a prefix, or one edit away.
func suggestNoun(cmd *cobra.Command, arg string) string {
	if s := cmd.SuggestionsFor(arg); len(s) > 0 {
		return s[0]
	}
	for _, c := range cmd.Commands() {
		if strings.HasPrefix(c.Name(), arg) || strings.HasPrefix(arg, c.Name()) {
			return c.Name()
		}
	}
	return ""
}

// refuseUnknownShell makes `a2a completion SHELL` for a shell cobra has no script for a usage error that names the
// shells it has (cobra would print the help and exit 0).
func refuseUnknownShell(c *cobra.Command) {
	c.Args = cobra.ArbitraryArgs
	c.RunE = func(cmd *cobra.Command, args []string) error {
		if len(args) == 0 {
			return cmd.Help()
		}
		var shells []string
		for _, sub := range cmd.Commands() {
			if sub.IsAvailableCommand() {
				shells = append(shells, sub.Name())
			}
		}
		return &client.UsageError{Msg: fmt.Sprintf("no completion for shell %q: the shells are %s", args[0], strings.Join(shells, ", ")), Cmd: cmd.CommandPath()}
	}
}

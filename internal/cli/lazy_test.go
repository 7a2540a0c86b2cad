package cli

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/a2acli/a2a/internal/client"
)

// TestVerbsMatchCommands holds each verb to the command its builder builds: the same name and summary, in a help
// group the root has, and nothing else the root's help or command lookup reads (aliases, hidden, deprecated).
func TestVerbsMatchCommands(t *testing.T) {
	s, _, _, _ := TestStreams()
	f := &factory{io: s, opts: &globalOptions{}}
	groups := map[string]bool{}
	for _, g := range helpGroups {
		groups[g.ID] = true
	}
	seen := map[string]bool{}
	for _, v := range verbs {
		c := v.build(f)
		if c.Name() != v.name || c.Short != v.short {
			t.Errorf("verb %q (%q): its builder built %q (%q): want the same in both", v.name, v.short, c.Name(), c.Short)
		}
		if !groups[v.group] {
			t.Errorf("verb %s: group %q is none of helpGroups", v.name, v.group)
		}
		if seen[v.name] {
			t.Errorf("verb %s is in verbs twice", v.name)
		}
		seen[v.name] = true
		if !slices.Equal(c.Aliases, commandAliases[c.Name()]) || len(c.SuggestFor) > 0 || c.Hidden || c.Deprecated != "" || !c.Runnable() {
			t.Errorf("%s: aliases %q, suggest-for %q, hidden %v, deprecated %q, runnable %v: its stand-in has none of these; teach newRootCmdFor",
				c.Name(), c.Aliases, c.SuggestFor, c.Hidden, c.Deprecated, c.Runnable())
		}
	}
}

// TestEveryCommandInAGroup: `a2a --help` lists every command under a group of its own (cobra puts one with no
// group under "Additional Commands"), on the whole tree and on a lazy run's.
func TestEveryCommandInAGroup(t *testing.T) {
	s, _, _, _ := TestStreams()
	for name, root := range map[string]*cobra.Command{
		"whole tree": newRootCmd(&factory{io: s, opts: &globalOptions{}}),
		"lazy tree":  newRootCmdFor(&factory{io: s, opts: &globalOptions{}}, []string{"--help"}),
	} {
		for _, c := range root.Commands() {
			if c.IsAvailableCommand() && c.GroupID == "" {
				t.Errorf("%s: %s is in no help group: give its verb one", name, c.Name())
			}
		}
	}
	out, _ := execTree(newRootCmdFor, []string{"--help"})
	if strings.Contains(out, "Additional Commands") {
		t.Errorf("a2a --help lists commands outside the groups:\n%s", out)
	}
}

// execTree runs args on the tree newTree builds and returns what it printed and the error.
func execTree(newTree func(*factory, []string) *cobra.Command, args []string) (string, string) {
	s, _, out, errOut := TestStreams()
	f := &factory{io: s, opts: &globalOptions{}, log: &client.Log{W: s.Err}}
	root := newTree(f, args)
	root.SetArgs(args)
	errText := ""
	if err := root.ExecuteContext(context.Background()); err != nil {
		errText = err.Error()
	}
	return out.String() + "\n--- stderr\n" + errOut.String(), errText
}

// TestLazyTreeHelpIsTheFullTreeHelp: what a run prints with the stand-ins is what the whole tree prints, for the
// root's help and version, every command's help, and the paths that fall back to the whole tree.
func TestLazyTreeHelpIsTheFullTreeHelp(t *testing.T) {
	cases := [][]string{{}, {"--help"}, {"-h"}, {"--version"}, {"-o", "json", "--help"}, {"--bogus"},
		{"help"}, {"help", "send"}, {"help", "environment"}, {"sned"}, {"completion", "bash"}, {"get"}, {"get", "tsk"},
		{"get", "task", "--help"}, {"list", "push-configs", "--help"}, {"-o", "json", "send", "--help"},
		{"__complete", "send", "--"}, {"__complete", ""}, {"__complete", "se"}, {"__complete", "send"},
		{"__complete", "get", "task", ""}, {"__complete", "get", "task", "--"}, {"__complete", "-o", ""},
		{"__completeNoDesc", "list", ""}, {"__complete", "help", ""}, {"__complete", "completion", ""},
		{"__complete", "config"}, {"__complete", "card"}, {"__complete", "-o", "json", "--"}, {"--help", "send"},
		{"-v", "send", "-h"}, {"help", "completion"}, {"completion", "--help"}, {"completion", "zsh", "--help"},
		{"version", "-h"}, {"version", "--bogus"}, {"send", "--bogus"}, {"get", "task", "--bogus"}}
	for _, v := range verbs {
		cases = append(cases, []string{v.name, "--help"}, []string{"__complete", v.name, ""}, []string{"__complete", v.name, "--"})
	}
	full := func(f *factory, _ []string) *cobra.Command { return newRootCmd(f) }
	for _, args := range cases {
		wantOut, wantErr := execTree(full, args)
		gotOut, gotErr := execTree(newRootCmdFor, args)
		if gotOut != wantOut || gotErr != wantErr {
			t.Errorf("a2a %s:\nwhole tree printed:\n%s\nerror %q\nlazy tree printed:\n%s\nerror %q", strings.Join(args, " "), wantOut, wantErr, gotOut, gotErr)
		}
	}
}

// TestHelpBuildsNoCommand: `a2a --help` builds no command (a stand-in has no flags), and `a2a send` builds send only,
// as does the shell's completion of its flags and arguments.
func TestHelpBuildsNoCommand(t *testing.T) {
	s, _, _, _ := TestStreams()
	root := newRootCmdFor(&factory{io: s, opts: &globalOptions{}}, []string{"--help"})
	for _, c := range root.Commands() {
		if c.HasLocalFlags() && c.Name() != "completion" && c.Name() != "help" {
			t.Errorf("a2a --help built %s (it has flags)", c.Name())
		}
	}
	for _, args := range [][]string{{"-o", "json", "send", "x", "hi"}, {"__complete", "send", "--"}, {"__complete", "send", "x", ""}} {
		root = newRootCmdFor(&factory{io: s, opts: &globalOptions{}}, args)
		for _, c := range root.Commands() {
			if c.Name() == "completion" || c.Name() == "help" {
				continue // cobra's own, built by setupHelp on every run
			}
			if built := c.HasLocalFlags(); built != (c.Name() == "send") {
				t.Errorf("a2a %s: %s built: %v", strings.Join(args, " "), c.Name(), built)
			}
		}
	}
}

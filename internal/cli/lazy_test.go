package cli

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/a2acli/a2a/internal/client"
)

// TestCommandIndexMatchesCommands holds the stand-ins to the commands they stand for: the same names and summaries
// in the same order, and nothing else the root's help or command lookup reads (aliases, hidden, deprecated).
func TestCommandIndexMatchesCommands(t *testing.T) {
	s, _, _, _ := TestStreams()
	f := &factory{io: s, opts: &globalOptions{}}
	if len(topCommands) != len(commandIndex) {
		t.Fatalf("topCommands has %d commands, commandIndex %d: add the new one to both", len(topCommands), len(commandIndex))
	}
	for i, tc := range topCommands {
		c := tc.build(f)
		want := commandIndex[i]
		if c.Name() != tc.name || want.name != tc.name || c.Short != want.short {
			t.Errorf("command %d: built %q (%q), topCommands says %q, commandIndex says {%q, %q}: want {%q, %q} in both",
				i, c.Name(), c.Short, tc.name, want.name, want.short, c.Name(), c.Short)
		}
		if !slices.Equal(c.Aliases, commandAliases[c.Name()]) || len(c.SuggestFor) > 0 || c.Hidden || c.Deprecated != "" || !c.Runnable() {
			t.Errorf("%s: aliases %q, suggest-for %q, hidden %v, deprecated %q, runnable %v: its stand-in has none of these; teach newRootCmdFor",
				c.Name(), c.Aliases, c.SuggestFor, c.Hidden, c.Deprecated, c.Runnable())
		}
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
		{"__complete", "send", "--"}, {"__complete", ""}}
	for _, c := range commandIndex {
		cases = append(cases, []string{c.name, "--help"})
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

// TestHelpBuildsNoCommand: `a2a --help` builds no command (a stand-in has no flags), and `a2a send` builds send only.
func TestHelpBuildsNoCommand(t *testing.T) {
	s, _, _, _ := TestStreams()
	root := newRootCmdFor(&factory{io: s, opts: &globalOptions{}}, []string{"--help"})
	for _, c := range root.Commands() {
		if c.HasLocalFlags() && c.Name() != "completion" && c.Name() != "help" {
			t.Errorf("a2a --help built %s (it has flags)", c.Name())
		}
	}
	root = newRootCmdFor(&factory{io: s, opts: &globalOptions{}}, []string{"-o", "json", "send", "x", "hi"})
	for _, c := range root.Commands() {
		if c.Name() == "completion" || c.Name() == "help" {
			continue // cobra's own, built by setupHelp on every run
		}
		if built := c.HasLocalFlags(); built != (c.Name() == "send") {
			t.Errorf("a2a send: %s built: %v", c.Name(), built)
		}
	}
}

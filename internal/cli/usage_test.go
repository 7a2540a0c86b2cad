package cli

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/a2acli/a2a/internal/client"
)

// cobraTree is the whole command tree with cobra's own help and usage (its default functions, and the
// text/template usage less "Global Flags" that version and completion had): what usage.go replaced.
func cobraTree(f *factory) *cobra.Command {
	root := newRootCmd(f)
	walk(root, func(c *cobra.Command) {
		c.SetHelpFunc(nil)
		c.SetUsageFunc(nil)
	})
	for _, c := range root.Commands() {
		switch c.Name() {
		case "version", "completion":
			templateNoGlobals(c)
		case "environment":
			show := root.HelpFunc()
			c.SetHelpFunc(func(c *cobra.Command, args []string) {
				fillEnvironmentHelp(root)
				show(c, args)
			})
		}
	}
	return root
}

// templateNoGlobals is the noGlobals that usage.go replaced: cobra's usage template less its "Global Flags".
func templateNoGlobals(c *cobra.Command) {
	t := c.UsageTemplate()
	i := strings.Index(t, "{{if .HasAvailableInheritedFlags}}")
	end := strings.Index(t[i:], "{{end}}")
	t = t[:i] + t[i+end+len("{{end}}"):]
	c.SetUsageTemplate(t)
	for _, sub := range c.Commands() {
		sub.SetUsageTemplate(t)
	}
}

func walk(c *cobra.Command, fn func(*cobra.Command)) {
	fn(c)
	for _, sub := range c.Commands() {
		walk(sub, fn)
	}
}

// newTreeFactory is a factory whose streams are out and errOut.
func newTreeFactory() (f *factory, out, errOut *bytes.Buffer) {
	s, _, out, errOut := TestStreams()
	return &factory{io: s, opts: &globalOptions{}, log: &client.Log{W: s.Err}}, out, errOut
}

// TestUsageIsCobras: usage.go's help and usage are cobra's, byte for byte, for every command of the tree (nouns,
// aliases, hidden flags and commands, groups, examples, help topics, flags with `name` placeholders, version and
// completion without global flags): asked of the commands directly (their flags not yet merged), and through a
// run of `PATH --help` and `help PATH` (merged, with the --help flag).
func TestUsageIsCobras(t *testing.T) {
	fOurs, oursOut, _ := newTreeFactory()
	fCobra, cobraOut, _ := newTreeFactory()
	ours, theirs := newRootCmd(fOurs), cobraTree(fCobra)
	var paths [][]string
	var oursCmds, cobraCmds []*cobra.Command
	walk(ours, func(c *cobra.Command) { oursCmds = append(oursCmds, c) })
	walk(theirs, func(c *cobra.Command) { cobraCmds = append(cobraCmds, c) })
	if len(oursCmds) != len(cobraCmds) || len(oursCmds) < 50 {
		t.Fatalf("the trees have %d and %d commands", len(oursCmds), len(cobraCmds))
	}
	sawHidden, sawAliases, sawTopic, sawPlaceholder := false, false, false, false
	for i, c := range oursCmds {
		cc := cobraCmds[i]
		if c.CommandPath() != cc.CommandPath() {
			t.Fatalf("command %d: %s and %s", i, c.CommandPath(), cc.CommandPath())
		}
		path := strings.Fields(c.CommandPath())[1:]
		if !strings.HasPrefix(c.Name(), "__") {
			paths = append(paths, path)
		}
		sawAliases = sawAliases || len(c.Aliases) > 0
		sawTopic = sawTopic || c.IsAdditionalHelpTopicCommand()
		c.Flags().VisitAll(func(fl *pflag.Flag) {
			sawHidden = sawHidden || fl.Hidden
			name, _ := pflag.UnquoteUsage(fl)
			sawPlaceholder = sawPlaceholder || strings.Contains(fl.Usage, "`"+name+"`")
		})
		if got, want := c.UsageString(), cc.UsageString(); got != want {
			t.Errorf("a2a %s: usage:\n%s\ncobra's:\n%s", strings.Join(path, " "), got, want)
		}
		oursOut.Reset()
		cobraOut.Reset()
		_ = c.Help()
		_ = cc.Help()
		if oursOut.String() != cobraOut.String() {
			t.Errorf("a2a %s: help:\n%s\ncobra's:\n%s", strings.Join(path, " "), oursOut, cobraOut)
		}
	}
	if !sawHidden || !sawAliases || !sawTopic || !sawPlaceholder {
		t.Errorf("the tree has hidden flags %v, aliases %v, help topics %v, `name` placeholders %v: want each", sawHidden, sawAliases, sawTopic, sawPlaceholder)
	}

	runs := [][]string{{}, {"--help"}, {"-o", "json", "--help"}, {"help", "bogus"}, {"completion"}, {"get"}}
	for _, p := range paths {
		runs = append(runs, append(append([]string{}, p...), "--help"), append([]string{"help"}, p...))
	}
	for _, args := range runs {
		got, gotErr := execTree(func(f *factory, _ []string) *cobra.Command { return newRootCmd(f) }, args)
		want, wantErr := execTree(func(f *factory, _ []string) *cobra.Command { return cobraTree(f) }, args)
		if got != want || gotErr != wantErr {
			t.Errorf("a2a %s printed:\n%s\nerror %q\nwith cobra's usage:\n%s\nerror %q", strings.Join(args, " "), got, gotErr, want, wantErr)
		}
	}
	if len(runs) < 100 {
		t.Errorf("%d runs: want every command's", len(runs))
	}
}

// TestUsageOfOddFlags: flags the tree does not have (yet) print as cobra prints them: the other value types,
// optional values, deprecated shorthands, usages of several lines, a command that keeps its flags' order.
func TestUsageOfOddFlags(t *testing.T) {
	build := func() *cobra.Command {
		root := &cobra.Command{Use: "x", Short: "x"}
		root.PersistentFlags().StringP("str", "s", "v\"q", "a `word` with\na second line")
		root.PersistentFlags().Count("count", "counted")
		sub := &cobra.Command{Use: "sub", Aliases: []string{"s2"}, Run: func(*cobra.Command, []string) {}}
		fl := sub.Flags()
		fl.IntP("int", "i", 3, "int")
		fl.Int8("int8", 0, "int8")
		fl.Float64("f", 1.5, "float")
		fl.Uint("u", 0, "uint")
		fl.IP("ip", nil, "ip")
		fl.IPMask("mask", nil, "mask")
		fl.IntSlice("ints", []int{1}, "ints")
		fl.StringSlice("strs", nil, "strs")
		fl.StringToString("map", map[string]string{"a": "b"}, "map")
		fl.BoolP("b", "B", true, "bool on")
		fl.String("opt", "", "optional")
		fl.Lookup("opt").NoOptDefVal = "yes"
		fl.Bool("nb", false, "bool")
		fl.Lookup("nb").NoOptDefVal = "false"
		fl.Int("n", 0, "int with an optional value")
		fl.Lookup("n").NoOptDefVal = "7"
		fl.CountP("cnt", "c", "count")
		fl.Lookup("cnt").NoOptDefVal = "+2"
		fl.String("gone", "", "deprecated")
		_ = fl.MarkDeprecated("gone", "use --opt")
		fl.StringP("short", "S", "", "deprecated shorthand")
		_ = fl.MarkShorthandDeprecated("short", "use --short")
		fl.String("dep", "", "shown, deprecated")
		fl.Lookup("dep").Deprecated = "soon"
		fl.Duration("d", 0, "duration")
		fl.String("str", "", "shadows the root's")
		unsorted := &cobra.Command{Use: "unsorted", Run: func(*cobra.Command, []string) {}}
		unsorted.Flags().SortFlags = false
		unsorted.Flags().String("zz", "", "z")
		unsorted.Flags().String("aa", "", "a")
		topic := &cobra.Command{Use: "topic", Short: "a help topic"}
		mid := &cobra.Command{Use: "mid", Short: "a noun"}
		mid.PersistentFlags().String("count", "", "shadows the root's --count for the commands below")
		mid.PersistentFlags().String("mid", "m", "the noun's")
		leaf := &cobra.Command{Use: "leaf <x>", Run: func(*cobra.Command, []string) {}, Example: "  x mid leaf 1"}
		leaf.PersistentFlags().String("below", "", "the leaf's persistent flag")
		leaf.Flags().String("aaa", "", "the leaf's")
		leaf.Flags().Var(&oddValue{"a\nb"}, "odd", "a value of its own type, whose default has two lines")
		leaf.Flags().Var(&oddValue{"0"}, "zero", "its zero")
		leaf.Flags().Bool("old", false, "deprecated\non two lines")
		leaf.Flags().Lookup("old").Deprecated = "see\nbelow"
		mid.AddCommand(leaf)
		root.AddCommand(sub, unsorted, topic, mid)
		return root
	}
	for _, args := range [][]string{{"--help"}, {"sub", "--help"}, {"unsorted", "--help"}, {"help", "topic"}, {"help", "sub"},
		{"mid", "--help"}, {"mid", "leaf", "--help"}, {"help", "mid", "leaf"}} {
		ours, theirs := build(), build()
		setUsage(ours)
		var got, want bytes.Buffer
		for _, r := range []struct {
			c *cobra.Command
			b *bytes.Buffer
		}{{ours, &got}, {theirs, &want}} {
			r.c.SetOut(r.b)
			r.c.SetErr(r.b)
			r.c.SetArgs(args)
			if err := r.c.ExecuteContext(context.Background()); err != nil {
				t.Fatal(err)
			}
		}
		if testing.Verbose() {
			t.Logf("x %s:\n%s", strings.Join(args, " "), got.String())
		}
		if got.String() != want.String() {
			t.Errorf("x %s:\n%s\ncobra's:\n%s", strings.Join(args, " "), got.String(), want.String())
		}
	}
}

// oddValue is a flag value of a type pflag does not know.
type oddValue struct{ v string }

func (o *oddValue) String() string     { return o.v }
func (o *oddValue) Set(v string) error { o.v = v; return nil }
func (o *oddValue) Type() string       { return "odd" }

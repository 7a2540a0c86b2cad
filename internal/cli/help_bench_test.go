package cli

import (
	"context"
	"testing"

	"github.com/spf13/cobra"
)

// BenchmarkHelp is `a2a ARGS` in process (its package init excepted): building the tree, parsing, printing.
func BenchmarkHelp(b *testing.B) {
	for _, args := range [][]string{{"--help"}, {"send", "--help"}, {"version"}, {"get", "task", "--help"}} {
		b.Run(join(args), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				s, _, _, _ := TestStreams()
				if code := Main(context.Background(), args, s); code != 0 {
					b.Fatalf("exit %d", code)
				}
			}
		})
	}
}

// BenchmarkRootCmdFor is the tree a verb's run builds before it parses a flag.
func BenchmarkRootCmdFor(b *testing.B) {
	for _, args := range [][]string{{"send", "x", "hi"}, {"--help"}} {
		b.Run(join(args), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				s, _, _, _ := TestStreams()
				newRootCmdFor(&factory{io: s, opts: &globalOptions{}}, args)
			}
		})
	}
}

// BenchmarkUsage is one command's help (its text and usage), printed by usage.go ("ours") and by cobra's default
// help and usage ("cobra", as before usage.go; version's usage was a text/template).
func BenchmarkUsage(b *testing.B) {
	for _, args := range [][]string{{}, {"send"}, {"get", "task"}, {"version"}} {
		for _, tree := range []struct {
			name  string
			build func(*factory) *cobra.Command
		}{{"cobra", cobraTree}, {"ours", newRootCmd}} {
			b.Run(join(args)+"/"+tree.name, func(b *testing.B) {
				f, out, _ := newTreeFactory()
				root := tree.build(f)
				c, _, _ := root.Find(args)
				b.ReportAllocs()
				for b.Loop() {
					out.Reset()
					_ = c.Help()
				}
			})
		}
	}
}

func join(args []string) string {
	s := "root"
	for _, a := range args {
		s += "_" + a
	}
	return s
}

package output

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden from the current output")

// render runs one fixture through a Printer and returns what it wrote.
type render func(p *Printer) error

func goldenCases() map[string]struct {
	opts Options
	run  render
} {
	text := Options{Format: Text}
	wrapped := Options{Format: Text, Width: 30}
	indented := Options{Format: JSON, Indent: true}
	cases := map[string]struct {
		opts Options
		run  render
	}{
		"card":         {text, func(p *Printer) error { return p.Card(fixtureCard()) }},
		"task":         {text, func(p *Printer) error { return p.Result(fixtureTask()) }},
		"task_wrapped": {wrapped, func(p *Printer) error { return p.Task(fixtureTask()) }},
		"message": {text, func(p *Printer) error {
			return p.Result(fixtureMessage("ROLE_AGENT", "msg-0002", fixtureTask().Artifacts[0].Parts[0]))
		}},
		"tasklist":        {text, func(p *Printer) error { return p.TaskList(fixtureTaskList()) }},
		"tasklist_fields": {text, func(p *Printer) error { return p.TaskListFields(fixtureTaskList()) }},
		"stream":          {text, renderStream},
		"stream_wrapped":  {wrapped, renderStream},
		"stream_exec":     {text, func(p *Printer) error { return renderEvents(p, fixtureExecStream()) }},
		"task_exec":       {text, func(p *Printer) error { return p.Task(fixtureExecTask()) }},
		"error":           {text, func(p *Printer) error { return p.Error(fixtureErrorDoc()) }},
		"error_json":      {indented, func(p *Printer) error { return p.Error(fixtureErrorDoc()) }},
		"task_json":       {indented, func(p *Printer) error { return p.Task(fixtureTask()) }},
	}
	for name, c := range devtoolGoldenCases() {
		cases[name] = c
	}
	return cases
}

func renderStream(p *Printer) error { return renderEvents(p, fixtureStream()) }

func renderEvents(p *Printer, evs []a2a.Event) error {
	for _, e := range evs {
		if err := p.Event(e); err != nil {
			return err
		}
	}
	return p.Close()
}

// TestGolden renders every fixture with colour off and with colour forced on and compares
// the output with testdata/<name>.<plain|color>.golden. Run with -update to rewrite them.
func TestGolden(t *testing.T) {
	t.Parallel()
	for name, tc := range goldenCases() {
		for _, color := range []bool{false, true} {
			variant := "plain"
			if color {
				variant = "color"
			}
			t.Run(name+"/"+variant, func(t *testing.T) {
				t.Parallel()
				opts := tc.opts
				opts.Color = color
				var buf bytes.Buffer
				if err := tc.run(New(&buf, opts)); err != nil {
					t.Fatalf("render %s: %v", name, err)
				}
				path := filepath.Join("testdata", name+"."+variant+".golden")
				if *update {
					if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
						t.Fatal(err)
					}
					return
				}
				want, err := os.ReadFile(path)
				if err != nil {
					t.Fatalf("read golden (run go test -update to create it): %v", err)
				}
				if diff := cmp.Diff(string(want), buf.String()); diff != "" {
					t.Errorf("%s output mismatch (-want +got):\n%s", path, diff)
				}
				if hasEsc := strings.Contains(buf.String(), "\x1b"); hasEsc != color {
					t.Errorf("%s: contains ESC = %v, want %v", path, hasEsc, color)
				}
			})
		}
	}
}

// TestNoEscapeWithoutColor guards the rule that colour off means no escape code at all, even
// when the agent itself sends escape sequences and C1 controls.
func TestNoEscapeWithoutColor(t *testing.T) {
	t.Parallel()
	cases := goldenCases()
	evilRuns := map[string]render{
		"evil task":   func(p *Printer) error { return p.Task(fixtureEvilTask()) },
		"evil event":  func(p *Printer) error { return p.Event(fixtureEvilTask()) },
		"evil status": func(p *Printer) error { return p.Event(evilChunk()) },
	}
	for _, format := range []Format{Text, JSON} {
		for _, indent := range []bool{false, true} {
			runs := map[string]render{}
			for name, tc := range cases {
				runs[name] = tc.run
			}
			for name, r := range evilRuns {
				runs[name] = r
			}
			for name, run := range runs {
				var buf bytes.Buffer
				p := New(&buf, Options{Format: format, Indent: indent, Width: 40})
				if err := run(p); err != nil {
					t.Fatalf("%s/%s: render: %v", format, name, err)
				}
				if err := p.Close(); err != nil {
					t.Fatalf("%s/%s: close: %v", format, name, err)
				}
				out := buf.String()
				if i := strings.IndexAny(out, "\x1b\u009b\u009d\a\r\u202e"); i >= 0 {
					t.Errorf("%s/%s (indent %v): control character at %d in output:\n%q", format, name, indent, i, out)
				}
			}
		}
	}
}

// TestAgentEscapesWithColor checks that with colour on, only our own styles reach the
// terminal: none of the agent's sequences survive.
func TestAgentEscapesWithColor(t *testing.T) {
	t.Parallel()
	for _, format := range []Format{Text, JSON} {
		var buf bytes.Buffer
		p := New(&buf, Options{Format: format, Color: true, Indent: true})
		if err := p.Task(fixtureEvilTask()); err != nil {
			t.Fatalf("render: %v", err)
		}
		for _, bad := range []string{"\x1b]", "\x1b[2J", "\u009b", "\a", "\r", "\u202e"} {
			if strings.Contains(buf.String(), bad) {
				t.Errorf("%s output contains %q:\n%q", format, bad, buf.String())
			}
		}
	}
}

package output

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/google/go-cmp/cmp"

	"github.com/a2acli/a2a/internal/devtool/devtooltest"
)

// captureDir holds the recorded Gemini streams and the hand-written RFC ones.
var captureDir = filepath.Join("..", "devtool", "testdata")

// devtoolGoldenCases render whole capture streams; a case naming several streams renders them
// in order through one Printer, as the CLI does across a confirmation.
func devtoolGoldenCases() map[string]struct {
	opts Options
	run  render
} {
	streams := map[string][]string{
		"devtool_approve-write-1": {"approve-write-1"},
		"devtool_approve-write-2": {"approve-write-1", "approve-write-2"},
		"devtool_approve-edit-1":  {"approve-edit-1"},
		"devtool_approve-shell-1": {"approve-shell-1"},
		"devtool_reject-write":    {"reject-write-1", "reject-write-2"},
		"devtool_live-output-1":   {"live-output-1"},
		"devtool_api-error-1":     {"api-error-1"},
		"devtool_auto-execute-1":  {"auto-execute-1"},
		"devtool_rfc-approve-1":   {"rfc-approve-1"},
		"devtool_rfc-run-1":       {"rfc-approve-1", "rfc-run-1"},
	}
	cases := map[string]struct {
		opts Options
		run  render
	}{}
	for name, files := range streams {
		cases[name] = struct {
			opts Options
			run  render
		}{Options{Format: Text}, func(p *Printer) error { return renderCaptures(p, files...) }}
	}
	return cases
}

func renderCaptures(p *Printer, names ...string) error {
	for _, n := range names {
		events, err := devtooltest.Load(filepath.Join(captureDir, n+".jsonl"))
		if err != nil {
			return err
		}
		for _, e := range events {
			if err := p.Event(e); err != nil {
				return err
			}
		}
	}
	return p.Close()
}

// TestDevToolSession checks what the Printer's session tells the CLI, in both formats.
func TestDevToolSession(t *testing.T) {
	t.Parallel()
	for _, format := range []Format{Text, JSON} {
		var buf bytes.Buffer
		p := New(&buf, Options{Format: format})
		if p.DevTool().Active() {
			t.Fatalf("%s: DevTool() is active before any event", format)
		}
		if err := renderCaptures(p, "approve-write-1"); err != nil {
			t.Fatal(err)
		}
		s := p.DevTool()
		if !s.Active() || len(s.Pending()) != 1 {
			t.Fatalf("%s: after approve-write-1, DevTool() = %v, want one pending call", format, s)
		}
		if err := renderCaptures(p, "approve-write-2"); err != nil {
			t.Fatal(err)
		}
		if n := len(s.Pending()); n != 0 {
			t.Errorf("%s: after approve-write-2, %d pending calls, want none", format, n)
		}
	}
}

// TestDevToolJSONUntouched checks that JSON output stays the raw protocol objects.
func TestDevToolJSONUntouched(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	if err := renderCaptures(New(&buf, Options{Format: JSON}), "approve-write-1"); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != 8 || !strings.Contains(lines[6], `"coderAgent":{"kind":"tool-call-confirmation"}`) {
		t.Errorf("JSON output = %d lines, want 8 raw events with coderAgent metadata:\n%s", len(lines), buf.String())
	}
}

// TestDevToolPlainStreamUnchanged checks that plain agents still get the ordinary rendering.
func TestDevToolPlainStreamUnchanged(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	p := New(&buf, Options{})
	if err := renderStream(p); err != nil {
		t.Fatal(err)
	}
	if p.DevTool().Active() || strings.Contains(buf.String(), "⏺") {
		t.Errorf("plain stream rendered as dev-tool traffic:\n%s", buf.String())
	}
}

func TestDevLiveScreens(t *testing.T) {
	t.Parallel()
	live := func(screen string) a2a.Event {
		return a2a.NewArtifactUpdateEvent(taskInfo, "tool-c1-output", a2a.NewTextPart(screen))
	}
	tests := []struct {
		name    string
		screens []string
		want    string
	}{
		{"extends", []string{"a   \n   ", "a\nb\n", "a\nb\nc"}, "    │ a\n    │ b\n    │ c\n"},
		{"unchanged", []string{"a\n", "a  \n\n"}, "    │ a\n"},
		{"changed above", []string{"a\nb", "a\nB\nc"}, "    │ a\n    │ b\n    (screen redrawn)\n    │ a\n    │ B\n    │ c\n"},
		{"escapes", []string{"\x1b[2Jred\x1b[31m!\r"}, "    │ red!\n"},
	}
	for _, tc := range tests {
		var buf bytes.Buffer
		p := New(&buf, Options{})
		for _, s := range tc.screens {
			if err := p.Event(live(s)); err != nil {
				t.Fatal(err)
			}
		}
		if diff := cmp.Diff(tc.want, buf.String()); diff != "" {
			t.Errorf("%s: output mismatch (-want +got):\n%s", tc.name, diff)
		}
	}
}

func TestDevToolRelativePaths(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	p := New(&buf, Options{})
	p.SetWorkspace("/work/proj/")
	if err := renderCaptures(p, "rfc-approve-1"); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), "⏺ Edit main.go - awaiting approval\n") {
		t.Errorf("output lacks the relative tool line:\n%s", buf.String())
	}
	if s := p.DevTool(); !s.Active() || len(s.Pending()) != 1 || s.Pending()[0].ID != "call-edit-1" {
		t.Errorf("DevTool() = %v, want an active session with the RFC call call-edit-1 pending", s)
	}
}

// evilDevEvents is Gemini-shaped traffic full of escape sequences and control characters.
func evilDevEvents() []a2a.Event {
	const evil = "\x1b]0;pwned\a\x1b[2J\u009b31m\r\u202e"
	status := func(kind string, parts ...*a2a.Part) a2a.Event {
		e := a2a.NewStatusUpdateEvent(taskInfo, a2a.TaskStateWorking, a2a.NewMessageForTask(a2a.MessageRoleAgent, taskInfo, parts...))
		e.Metadata = map[string]any{"coderAgent": map[string]any{"kind": kind}, "error": "bad" + evil}
		return e
	}
	call := map[string]any{
		"request": map[string]any{"callId": "c1", "name": "x" + evil, "args": map[string]any{"command": "rm" + evil}},
		"status":  "awaiting_approval",
		"tool":    map[string]any{"displayName": "Shell" + evil},
		"confirmationDetails": map[string]any{"type": "edit", "title": "t" + evil,
			"fileDiff": "--- a\n+++ b\n@@ -1 +1 @@\n-" + evil + "\n+" + evil + "\n"},
	}
	failed := map[string]any{
		"request":  map[string]any{"callId": "c1", "name": "x"},
		"status":   "error",
		"response": map[string]any{"resultDisplay": "boom" + evil},
	}
	return []a2a.Event{
		status("thought", a2a.NewDataPart(map[string]any{"subject": "s" + evil, "description": "d" + evil})),
		status("text-content", a2a.NewTextPart("t"+evil)),
		status("tool-call-confirmation", a2a.NewDataPart(call)),
		a2a.NewArtifactUpdateEvent(taskInfo, "tool-c1-output", a2a.NewTextPart("out"+evil)),
		status("tool-call-update", a2a.NewDataPart(failed)),
		status("citation", a2a.NewTextPart("c"+evil)),
	}
}

func TestDevToolSanitises(t *testing.T) {
	t.Parallel()
	for _, color := range []bool{false, true} {
		var buf bytes.Buffer
		p := New(&buf, Options{Color: color})
		for _, e := range evilDevEvents() {
			if err := p.Event(e); err != nil {
				t.Fatal(err)
			}
		}
		if err := p.Close(); err != nil {
			t.Fatal(err)
		}
		out := buf.String()
		for _, bad := range []string{"\x1b]", "\x1b[2J", "\u009b", "\a", "\r", "\u202e"} {
			if strings.Contains(out, bad) {
				t.Errorf("color %v: output contains %q:\n%q", color, bad, out)
			}
		}
		if hasEsc := strings.Contains(out, "\x1b"); hasEsc != color {
			t.Errorf("color %v: contains ESC = %v", color, hasEsc)
		}
		for _, want := range []string{"error: bad", "⏺ Shell", "│ out", "error: boom", "citation: c"} {
			if !color && !strings.Contains(out, want) {
				t.Errorf("output lacks %q:\n%s", want, out)
			}
		}
	}
}

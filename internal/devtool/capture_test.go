package devtool

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/google/go-cmp/cmp"

	"github.com/a2acli/a2a/internal/devtool/devtooltest"
)

var update = flag.Bool("update", false, "rewrite testdata/*.updates from the current output")

// captures are the recorded Gemini streams and the hand-written RFC ones.
var captures = []string{
	"api-error-1", "approve-edit-1", "approve-shell-1", "approve-shell-2", "approve-write-1",
	"approve-write-2", "auto-execute-1", "live-output-1", "reject-write-1", "reject-write-2",
	"rfc-approve-1", "rfc-run-1",
}

func loadCapture(t *testing.T, name string) []a2a.Event {
	t.Helper()
	evs, err := devtooltest.Load(filepath.Join("testdata", name+".jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	return evs
}

// summary renders an update as one short line for comparisons.
func summary(u Update) string {
	switch u.Kind {
	case KindThought:
		return fmt.Sprintf("thought %q %q", u.Thought.Subject, u.Thought.Description)
	case KindText, KindError, KindCitation:
		return fmt.Sprintf("%s %q", u.Kind, u.Text)
	case KindLiveOutput:
		return fmt.Sprintf("live %s %q", u.CallID, u.Screen)
	case KindState:
		return fmt.Sprintf("state %s final=%v model=%s", u.State, u.Final, u.Model)
	case KindTool:
		c := u.Tool
		s := fmt.Sprintf("tool %s %s/%s %s(%s) key=%q", c.ID, c.Name, c.DisplayName, c.Status, c.RawStatus, c.KeyArg)
		if cf := c.Confirmation; cf != nil {
			s += fmt.Sprintf(" confirm=%s title=%q cmd=%q file=%q options=%d", cf.Kind, cf.Title, cf.Command, cf.FilePath, len(cf.Options))
		}
		if c.Output != "" {
			s += fmt.Sprintf(" out=%q", c.Output)
		}
		if c.Error != "" {
			s += fmt.Sprintf(" err=%q", c.Error)
		}
		return s
	}
	return string(u.Kind)
}

// TestCaptureSequences runs every capture through a Session and compares what it reports,
// one line per update, with testdata/<name>.updates. Run with -update to rewrite them.
func TestCaptureSequences(t *testing.T) {
	t.Parallel()
	for _, name := range captures {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s := NewSession()
			tt := &turn{}
			var b strings.Builder
			for i, ev := range loadCapture(t, name) {
				for _, u := range tt.feed(s, ev) {
					fmt.Fprintf(&b, "%02d %s\n", i, summary(u))
				}
			}
			fmt.Fprintf(&b, "end pending=%d turnOver=%v yourTurn=%v\n", len(s.Pending()), tt.over, tt.yours(s))
			path := filepath.Join("testdata", name+".updates")
			if *update {
				if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("read golden (run go test -update to create it): %v", err)
			}
			if diff := cmp.Diff(string(want), b.String()); diff != "" {
				t.Errorf("%s mismatch (-want +got):\n%s", path, diff)
			}
		})
	}
}

// TestCapturesAreDevTool checks that every event of every stream but the initial Task is
// recognised, and that the Task is not.
func TestCapturesAreDevTool(t *testing.T) {
	t.Parallel()
	for _, name := range captures {
		for i, ev := range loadCapture(t, name) {
			_, ok := decodeOK(ev)
			_, isTask := ev.(*a2a.Task)
			if ok == isTask {
				t.Errorf("%s event %d (%T): Decode ok = %v, want %v", name, i, ev, ok, !isTask)
			}
		}
	}
}

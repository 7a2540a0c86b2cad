package devtool

import (
	"strings"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/google/go-cmp/cmp"
)

// applyAll feeds the named captures, in order, through one session and returns every update.
func applyAll(t *testing.T, s *Session, names ...string) []Update {
	t.Helper()
	all, _ := applyTurn(t, s, names...)
	return all
}

// applyTurn is applyAll that also follows the turn.
func applyTurn(t *testing.T, s *Session, names ...string) ([]Update, *turn) {
	t.Helper()
	var all []Update
	tt := &turn{}
	for _, n := range names {
		for _, ev := range loadCapture(t, n) {
			all = append(all, tt.feed(s, ev)...)
		}
	}
	return all, tt
}

// turn tells from what a session reports whether the turn is over: the last dev-tool event carried a state
// update marked Final.
type turn struct{ over bool }

func (tt *turn) feed(s *Session, ev a2a.Event) []Update {
	ups, ok := s.Feed(ev)
	if ok {
		tt.over = false
	}
	for _, u := range ups {
		if u.Kind == KindState && u.Final {
			tt.over = true
		}
	}
	return ups
}

// yours reports whether the turn is over with no confirmation pending: the agent waits for the user's next message.
func (tt *turn) yours(s *Session) bool { return tt.over && len(s.Pending()) == 0 }

func pendingIDs(s *Session) []string {
	var ids []string
	for _, c := range s.Pending() {
		ids = append(ids, c.ID)
	}
	return ids
}

func TestSessionTurns(t *testing.T) {
	t.Parallel()
	const write1 = "write_file-1795324972793-a995cfc9dfd04"
	tests := []struct {
		streams      []string
		wantPending  []string
		wantYourTurn bool
		wantShape    Shape
	}{
		{[]string{"approve-write-1"}, []string{write1}, false, Gemini},
		{[]string{"approve-write-1", "approve-write-2"}, nil, true, Gemini},
		{[]string{"approve-shell-1"}, []string{"run_shell_command-1795324975068-92d8af13bdf29"}, false, Gemini},
		{[]string{"approve-edit-1"}, []string{"replace-1795324976755-b90f4b4ad9262"}, false, Gemini},
		{[]string{"reject-write-1", "reject-write-2"}, nil, true, Gemini},
		{[]string{"auto-execute-1"}, nil, true, Gemini},
		{[]string{"live-output-1"}, nil, true, Gemini},
		{[]string{"api-error-1"}, nil, true, Gemini},
		{[]string{"rfc-approve-1"}, []string{"call-edit-1"}, false, RFC},
		{[]string{"rfc-approve-1", "rfc-run-1"}, nil, true, RFC},
	}
	for _, tc := range tests {
		t.Run(strings.Join(tc.streams, "+"), func(t *testing.T) {
			t.Parallel()
			s := NewSession()
			_, tt := applyTurn(t, s, tc.streams...)
			if diff := cmp.Diff(tc.wantPending, pendingIDs(s)); diff != "" {
				t.Errorf("Pending() mismatch (-want +got):\n%s", diff)
			}
			if !tt.over || tt.yours(s) != tc.wantYourTurn {
				t.Errorf("turn over, yours = %v, %v, want true, %v", tt.over, tt.yours(s), tc.wantYourTurn)
			}
			if !s.Active() || s.shape != tc.wantShape {
				t.Errorf("Active, shape = %v, %v, want true, %v", s.Active(), s.shape, tc.wantShape)
			}
		})
	}
}

// TestSessionStaleInputRequired checks that the input-required carried by tool updates inside
// a confirmation stream does not end the turn.
func TestSessionStaleInputRequired(t *testing.T) {
	t.Parallel()
	s := NewSession()
	_, tt := applyTurn(t, s, "approve-write-1")
	second := loadCapture(t, "approve-write-2")
	for i, ev := range second[:len(second)-1] {
		tt.feed(s, ev)
		if tt.over {
			t.Fatalf("turn over after event %d of approve-write-2, want not yet", i)
		}
	}
	tt.feed(s, second[len(second)-1])
	if !tt.yours(s) {
		t.Errorf("after the last event the turn is not the user's, want it to be")
	}
}

func TestSessionConfirmationDetails(t *testing.T) {
	t.Parallel()
	tests := []struct {
		stream string
		want   Confirmation
	}{
		{"approve-shell-1", Confirmation{Kind: "exec", Title: "Confirm Shell Command", Command: "echo hi"}},
		{"approve-edit-1", Confirmation{Kind: "edit", Title: "Confirm Edit: hello.txt", FileName: "hello.txt",
			FilePath: "/home/dev/project/approve-edit/hello.txt", OldContent: "hello world\n", NewContent: "goodbye world\n"}},
		{"rfc-approve-1", Confirmation{Kind: "edit", FileName: "main.go", FilePath: "/work/proj/main.go",
			OldContent: "package main\nfunc main() {}\n", NewContent: "package main\nfunc main() { println(\"hi\") }\n"}},
	}
	for _, tc := range tests {
		s := NewSession()
		applyAll(t, s, tc.stream)
		p := s.Pending()
		if len(p) != 1 {
			t.Fatalf("%s: %d pending calls, want 1", tc.stream, len(p))
		}
		got := *p[0].Confirmation
		if tc.want.Kind == "edit" && !strings.Contains(got.Diff, "\n+") {
			t.Errorf("%s: Diff = %q, want a unified diff", tc.stream, got.Diff)
		}
		got.Diff, got.Options = "", nil
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("%s: confirmation mismatch (-want +got):\n%s", tc.stream, diff)
		}
	}
}

func TestSessionLiveOutput(t *testing.T) {
	t.Parallel()
	s := NewSession()
	var screens []string
	model := ""
	for _, u := range applyAll(t, s, "live-output-1") {
		if u.Kind == KindLiveOutput {
			screens = append(screens, strings.Join(strings.Fields(u.Screen), " "))
		}
		if u.Model != "" {
			model = u.Model
		}
	}
	want := []string{"tick 1", "tick 1 tick 2", "tick 1 tick 2 tick 3"}
	if diff := cmp.Diff(want, screens); diff != "" {
		t.Errorf("live screens mismatch (-want +got):\n%s", diff)
	}
	const id = "run_shell_command-1795325013275-97d9af13d48c5"
	if c := s.calls[id]; c == nil || c.Status != Succeeded || c.Output != "tick 1\ntick 2\ntick 3" {
		t.Errorf("call %q = %+v, want succeeded with the three ticks", id, c)
	}
	if s.Workspace() != "/home/dev/project/live-output" || model != "gemini-2.5-pro" {
		t.Errorf("Workspace, last model = %q, %q", s.Workspace(), model)
	}
}

func TestSessionDeduplicates(t *testing.T) {
	t.Parallel()
	ev := loadCapture(t, "rfc-run-1")[1] // SUCCEEDED edit
	s := NewSession()
	first, again := s.Apply(ev), s.Apply(ev)
	if len(first) != 2 || len(again) != 0 {
		t.Errorf("Apply twice gave %d then %d updates, want 2 then 0", len(first), len(again))
	}
	if got := s.order; len(got) != 1 || got[0] != "call-edit-1" {
		t.Errorf("calls seen = %v, want the edit call", got)
	}
}

func TestDecodePlain(t *testing.T) {
	t.Parallel()
	info := a2a.TaskInfo{TaskID: "t1", ContextID: "c1"}
	msg := a2a.NewMessageForTask(a2a.MessageRoleAgent, info, a2a.NewTextPart("hi"),
		a2a.NewDataPart(map[string]any{"subject": "looks like a thought", "request": map[string]any{"callId": "x"}}))
	status := a2a.NewStatusUpdateEvent(info, a2a.TaskStateInputRequired, msg)
	status.Metadata = map[string]any{"model": "m", "error": "e", "other": map[string]any{"kind": "thought"}}
	events := map[string]a2a.Event{
		"status":   status,
		"artifact": a2a.NewArtifactUpdateEvent(info, "result", a2a.NewTextPart("x")),
		"tool-":    a2a.NewArtifactUpdateEvent(info, "tool--output", a2a.NewTextPart("x")),
		"message":  msg,
		"task":     &a2a.Task{ID: "t1", Metadata: map[string]any{"coderAgent": map[string]any{"kind": "x"}}},
		"nil":      nil,
	}
	for name, ev := range events {
		if ups, ok := decodeOK(ev); ok || ups != nil {
			t.Errorf("Decode(%s) = %v, %v, want nil, false", name, ups, ok)
		}
		s := NewSession()
		if ups := s.Apply(ev); ups != nil || s.Active() {
			t.Errorf("Apply(%s) = %v, Active %v, want nil, false", name, ups, s.Active())
		}
	}
}

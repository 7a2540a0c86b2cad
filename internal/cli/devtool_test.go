package cli

import (
	"context"
	"errors"
	"io"
	"iter"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/a2acli/a2a/internal/client"
	"github.com/a2acli/a2a/internal/devtool"
	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/google/go-cmp/cmp"
)

func TestDevtoolCheck(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file := filepath.Join(dir, "f")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		o       devtoolOptions
		task    string
		wantErr string
		want    []confirmPair
	}{
		{name: "no flags", o: devtoolOptions{}},
		{name: "workspace", o: devtoolOptions{workspace: dir}},
		{name: "missing workspace", o: devtoolOptions{workspace: filepath.Join(dir, "nope")}, wantErr: "invalid --workspace"},
		{name: "workspace is a file", o: devtoolOptions{workspace: file}, wantErr: "not a directory"},
		{name: "confirm without task", o: devtoolOptions{confirm: []string{"c1=approve"}}, wantErr: "--confirm answers a tool call of an existing task"},
		{name: "confirm without option", o: devtoolOptions{confirm: []string{"c1"}}, task: "t", wantErr: "want CALLID=OPTION"},
		{name: "confirm empty option", o: devtoolOptions{confirm: []string{"c1="}}, task: "t", wantErr: "want CALLID=OPTION"},
		{name: "confirm", o: devtoolOptions{confirm: []string{"c1=approve", " c2 = proceed_always_tool"}}, task: "t",
			want: []confirmPair{{callID: "c1", option: "approve"}, {callID: "c2", option: "proceed_always_tool"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := tt.o
			o.answerTimeout = time.Second
			err := o.check(tt.task)
			if tt.wantErr != "" {
				var ue *client.UsageError
				if !errors.As(err, &ue) || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("check() = %v, want a usage error containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("check() = %v", err)
			}
			if diff := cmp.Diff(tt.want, o.answers, cmp.AllowUnexported(confirmPair{})); diff != "" {
				t.Errorf("answers (-want +got):\n%s", diff)
			}
			if o.workspace != "" && !filepath.IsAbs(o.workspace) {
				t.Errorf("workspace %q is not absolute", o.workspace)
			}
		})
	}
}

func TestDevtoolCheckMakesWorkspaceAbsolute(t *testing.T) {
	// Not parallel: changes the working directory.
	dir := t.TempDir()
	t.Chdir(dir)
	if err := os.Mkdir("ws", 0o755); err != nil {
		t.Fatal(err)
	}
	o := devtoolOptions{workspace: "ws", answerTimeout: time.Second}
	if err := o.check(""); err != nil {
		t.Fatal(err)
	}
	want, _ := filepath.Abs("ws")
	if o.workspace != want {
		t.Errorf("workspace = %q, want %q", o.workspace, want)
	}
}

func TestApplySettings(t *testing.T) {
	t.Parallel()
	o := devtoolOptions{workspace: "/abs/ws", autoExecute: true}
	first := a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("hi"))
	o.applySettings(first)
	want := devtool.SettingsMetadata("/abs/ws", true)
	if diff := cmp.Diff(want, first.Metadata); diff != "" {
		t.Errorf("first message metadata (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{devtool.URI}, first.Extensions); diff != "" {
		t.Errorf("first message extensions (-want +got):\n%s", diff)
	}
	follow := a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("more"))
	follow.TaskID = "t1"
	o.applySettings(follow)
	if follow.Metadata != nil {
		t.Errorf("follow-up metadata = %v, want none: settings go on a task's first message only", follow.Metadata)
	}
}

func TestParseAnswer(t *testing.T) {
	t.Parallel()
	opts := []devtool.Option{{ID: "allow-once"}, {ID: "allow-always"}, {ID: "deny"}}
	tests := []struct {
		line     string
		choice   devtool.Choice
		optionID string
		ok       bool
	}{
		{"", devtool.ApproveOnce, "", true},
		{"y", devtool.ApproveOnce, "", true},
		{" YES ", devtool.ApproveOnce, "", true},
		{"a", devtool.ApproveAlways, "", true},
		{"always", devtool.ApproveAlways, "", true},
		{"n", devtool.Reject, "", true},
		{"no", devtool.Reject, "", true},
		{"3", devtool.ApproveOnce, "deny", true},
		{"4", "", "", false},
		{"0", "", "", false},
		{"maybe", "", "", false},
	}
	for _, tt := range tests {
		choice, id, ok := parseAnswer(tt.line, opts)
		if choice != tt.choice || id != tt.optionID || ok != tt.ok {
			t.Errorf("parseAnswer(%q) = %q, %q, %v, want %q, %q, %v", tt.line, choice, id, ok, tt.choice, tt.optionID, tt.ok)
		}
	}
}

func TestParseOption(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in       string
		choice   devtool.Choice
		optionID string
	}{
		{"approve", devtool.ApproveOnce, ""},
		{"always", devtool.ApproveAlways, ""},
		{"reject", devtool.Reject, ""},
		{"proceed_always_server", devtool.ApproveOnce, "proceed_always_server"},
		{"opt-7", devtool.ApproveOnce, "opt-7"},
	}
	for _, tt := range tests {
		choice, id := parseOption(tt.in)
		if choice != tt.choice || id != tt.optionID {
			t.Errorf("parseOption(%q) = %q, %q, want %q, %q", tt.in, choice, id, tt.choice, tt.optionID)
		}
	}
}

// scriptedAsker answers questions from a list and records them.
type scriptedAsker struct {
	answers   []string
	questions []string
}

func (a *scriptedAsker) ask(_ context.Context, q string) (string, error) {
	a.questions = append(a.questions, q)
	if len(a.answers) == 0 {
		return "", io.EOF
	}
	line := a.answers[0]
	a.answers = a.answers[1:]
	return line, nil
}

func TestAskPermission(t *testing.T) {
	t.Parallel()
	gemini := &devtool.ToolCall{ID: "c1", DisplayName: "WriteFile", KeyArg: "hello.txt", Shape: devtool.Gemini,
		Confirmation: &devtool.Confirmation{Options: []devtool.Option{{ID: "proceed_once"}, {ID: "proceed_always"}, {ID: "cancel"}}}}
	rfc := &devtool.ToolCall{ID: "c2", Name: "Shell", KeyArg: "ls", Shape: devtool.RFC,
		Confirmation: &devtool.Confirmation{Options: []devtool.Option{{ID: "o1", Name: "Allow"}, {ID: "o2", Name: "Deny"}}}}
	tests := []struct {
		name     string
		call     *devtool.ToolCall
		answers  []string
		choice   devtool.Choice
		optionID string
		ok       bool
		asked    []string
	}{
		{name: "enter approves once", call: gemini, answers: []string{""}, choice: devtool.ApproveOnce, ok: true,
			asked: []string{"Allow WriteFile hello.txt? [Y]es once / [a]lways / [n]o "}},
		{name: "retry after nonsense", call: gemini, answers: []string{"what", "n"}, choice: devtool.Reject, ok: true,
			asked: []string{"Allow WriteFile hello.txt? [Y]es once / [a]lways / [n]o ", "answer y (yes once), a (always), n (no) or an option number: "}},
		{name: "rfc options numbered", call: rfc, answers: []string{"2"}, choice: devtool.ApproveOnce, optionID: "o2", ok: true,
			asked: []string{"Allow Shell ls? [Y]es once / [a]lways / [n]o\n  agent options: 1) Allow 2) Deny "}},
		{name: "end of input", call: gemini, answers: nil, ok: false,
			asked: []string{"Allow WriteFile hello.txt? [Y]es once / [a]lways / [n]o "}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			a := &scriptedAsker{answers: tt.answers}
			choice, id, ok, err := askPermission(context.Background(), a, tt.call)
			if err != nil {
				t.Fatal(err)
			}
			if choice != tt.choice || id != tt.optionID || ok != tt.ok {
				t.Errorf("askPermission() = %q, %q, %v, want %q, %q, %v", choice, id, ok, tt.choice, tt.optionID, tt.ok)
			}
			if diff := cmp.Diff(tt.asked, a.questions); diff != "" {
				t.Errorf("questions (-want +got):\n%s", diff)
			}
		})
	}
}

func TestHistoryShape(t *testing.T) {
	t.Parallel()
	agent := func(d map[string]any) *a2a.Message { return a2a.NewMessage(a2a.MessageRoleAgent, a2a.NewDataPart(d)) }
	tests := []struct {
		name string
		h    []*a2a.Message
		want devtool.Shape
	}{
		{"empty", nil, devtool.Plain},
		{"gemini", []*a2a.Message{agent(map[string]any{"subject": "s"}), agent(map[string]any{"request": map[string]any{"callId": "c1"}})}, devtool.Gemini},
		{"rfc", []*a2a.Message{agent(map[string]any{"tool_call_id": "c1"})}, devtool.RFC},
		{"user data ignored", []*a2a.Message{a2a.NewMessage(a2a.MessageRoleUser, a2a.NewDataPart(map[string]any{"tool_call_id": "c1"}))}, devtool.Plain},
	}
	for _, tt := range tests {
		if got := historyShape(tt.h); got != tt.want {
			t.Errorf("historyShape(%s) = %v, want %v", tt.name, got, tt.want)
		}
	}
}

// TestStreamWatchedIgnoredAnswer guards the idle watchdog: an agent that ignores an answer sends headers and then
// nothing; the wait must end with errAnswerIgnored instead of hanging.
func TestStreamWatchedIgnoredAnswer(t *testing.T) {
	t.Parallel()
	silent := func(ctx context.Context) iter.Seq2[a2a.Event, error] {
		return func(yield func(a2a.Event, error) bool) {
			<-ctx.Done()
			yield(nil, ctx.Err())
		}
	}
	err := streamWatched(context.Background(), &client.Conn{}, 20*time.Millisecond, silent, func(a2a.Event) error { return nil })
	if !errors.Is(err, errAnswerIgnored) {
		t.Fatalf("streamWatched() = %v, want errAnswerIgnored", err)
	}
}

func TestStreamWatchedAnswered(t *testing.T) {
	t.Parallel()
	ev := a2a.NewStatusUpdateEvent(a2a.TaskInfo{TaskID: "t", ContextID: "c"}, a2a.TaskStateWorking, nil)
	one := func(ctx context.Context) iter.Seq2[a2a.Event, error] {
		return func(yield func(a2a.Event, error) bool) { yield(ev, nil) }
	}
	var got []a2a.Event
	err := streamWatched(context.Background(), &client.Conn{}, time.Minute, one, func(e a2a.Event) error { got = append(got, e); return nil })
	if err != nil || len(got) != 1 {
		t.Fatalf("streamWatched() = %v with %d events, want nil with 1", err, len(got))
	}
}

package coder

import (
	"context"
	"io"
	"testing"

	"github.com/a2acli/a2a/internal/devtool"
	"github.com/google/go-cmp/cmp"
)

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
		choice, id, ok := ParseAnswer(tt.line, opts)
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
		choice, id := ParseOption(tt.in)
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
			choice, id, ok, err := AskPermission(context.Background(), a, tt.call)
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

func (a *scriptedAsker) Ask(_ context.Context, q string) (string, error) {
	a.questions = append(a.questions, q)
	if len(a.answers) == 0 {
		return "", io.EOF
	}
	line := a.answers[0]
	a.answers = a.answers[1:]
	return line, nil
}

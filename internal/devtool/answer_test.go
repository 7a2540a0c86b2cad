package devtool

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestAnswer(t *testing.T) {
	t.Parallel()
	gemini := &ToolCall{ID: "g1", Shape: Gemini, Status: Pending, Confirmation: &Confirmation{Kind: "edit", Options: geminiOptions("edit")}}
	geminiMCP := &ToolCall{ID: "g2", Shape: Gemini, Status: Pending, Confirmation: &Confirmation{Kind: "mcp", Options: geminiOptions("mcp")}}
	rfc := &ToolCall{ID: "r1", Shape: RFC, Status: Pending, Confirmation: &Confirmation{Options: []Option{
		{ID: "modify", Name: "Modify with editor"},
		{ID: "allow_always", Name: "Always allow edits"},
		{ID: "allow_once", Name: "Allow once"},
		{ID: "deny", Name: "Deny"},
	}}}
	rfcYesNo := &ToolCall{ID: "r2", Shape: RFC, Confirmation: &Confirmation{Options: []Option{{ID: "y", Name: "Yes"}, {ID: "n", Name: "No"}}}}
	rfcBare := &ToolCall{ID: "r3", Shape: RFC}
	tests := []struct {
		name     string
		call     *ToolCall
		choice   Choice
		optionID string
		want     map[string]any
		wantErr  error
	}{
		{"gemini once", gemini, ApproveOnce, "", map[string]any{"callId": "g1", "outcome": "proceed_once"}, nil},
		{"gemini always", gemini, ApproveAlways, "", map[string]any{"callId": "g1", "outcome": "proceed_always"}, nil},
		{"gemini reject", gemini, Reject, "", map[string]any{"callId": "g1", "outcome": "cancel"}, nil},
		{"gemini mcp option", geminiMCP, "", "proceed_always_server", map[string]any{"callId": "g2", "outcome": "proceed_always_server"}, nil},
		{"gemini no such option", gemini, "", "proceed_always_server", nil, ErrUnknownOption},
		{"gemini editor", gemini, "", "modify_with_editor", nil, ErrEditorRejected},
		{"gemini without confirmation", &ToolCall{ID: "g3", Shape: Gemini}, Reject, "", map[string]any{"callId": "g3", "outcome": "cancel"}, nil},
		{"rfc once", rfc, ApproveOnce, "", map[string]any{"tool_call_id": "r1", "selected_option_id": "allow_once"}, nil},
		{"rfc always", rfc, ApproveAlways, "", map[string]any{"tool_call_id": "r1", "selected_option_id": "allow_always"}, nil},
		{"rfc reject", rfc, Reject, "", map[string]any{"tool_call_id": "r1", "selected_option_id": "deny"}, nil},
		{"rfc verbatim", rfc, ApproveOnce, "deny", map[string]any{"tool_call_id": "r1", "selected_option_id": "deny"}, nil},
		{"rfc bad option", rfc, ApproveOnce, "nope", nil, ErrUnknownOption},
		{"rfc yes", rfcYesNo, ApproveOnce, "", map[string]any{"tool_call_id": "r2", "selected_option_id": "y"}, nil},
		{"rfc no", rfcYesNo, Reject, "", map[string]any{"tool_call_id": "r2", "selected_option_id": "n"}, nil},
		{"rfc no always", rfcYesNo, ApproveAlways, "", nil, ErrNoOption},
		{"rfc defaults", rfcBare, ApproveAlways, "", map[string]any{"tool_call_id": "r3", "selected_option_id": "proceed_always"}, nil},
		{"unknown choice", gemini, "maybe", "", nil, ErrUnknownChoice},
		{"nil call", nil, ApproveOnce, "", nil, ErrNoCall},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			part, err := Answer(tc.call, tc.choice, tc.optionID)
			if tc.wantErr != nil {
				if !errors.Is(err, tc.wantErr) {
					t.Fatalf("Answer(%q, %q) error = %v, want %v", tc.choice, tc.optionID, err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("Answer(%q, %q) error = %v", tc.choice, tc.optionID, err)
			}
			if diff := cmp.Diff(tc.want, part.Data()); diff != "" {
				t.Errorf("Answer(%q, %q) mismatch (-want +got):\n%s", tc.choice, tc.optionID, diff)
			}
		})
	}
}

// TestGeminiOptionsNeverEditor guards the rule that the editor outcome is never offered.
func TestGeminiOptionsNeverEditor(t *testing.T) {
	t.Parallel()
	for _, kind := range []string{"edit", "exec", "info", "mcp"} {
		for _, o := range geminiOptions(kind) {
			if o.ID == editorOutcome {
				t.Errorf("geminiOptions(%q) offers %s", kind, editorOutcome)
			}
		}
	}
}

func TestSettingsMetadata(t *testing.T) {
	t.Parallel()
	want := map[string]any{
		"coderAgent": map[string]any{"kind": "agent-settings", "workspacePath": "/w", "autoExecute": true},
		URI:          map[string]any{"workspace_path": "/w", "auto_execute": true},
	}
	if diff := cmp.Diff(want, SettingsMetadata("/w", true)); diff != "" {
		t.Errorf("SettingsMetadata mismatch (-want +got):\n%s", diff)
	}
}

package devtool

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseCommands(t *testing.T) {
	t.Parallel()
	want := []SlashCommand{{Name: "memory", Description: "Memory.", SubCommands: []SlashCommand{
		{Name: "add", Description: "Add.", Arguments: []SlashArgument{{Name: "text", Description: "What.", Required: true}}},
	}}}
	tests := map[string]string{
		"gemini": `{"commands":[{"name":"memory","description":"Memory.","arguments":[],"subCommands":[{"name":"add","description":"Add.","arguments":[{"name":"text","description":"What.","isRequired":true}],"subCommands":[]}]}]}`,
		"rfc":    `{"commands":[{"name":"memory","description":"Memory.","sub_commands":[{"name":"add","description":"Add.","arguments":[{"name":"text","description":"What.","is_required":true}]}]}]}`,
		"array":  `[{"name":"memory","description":"Memory.","subCommands":[{"name":"add","description":"Add.","arguments":[{"name":"text","description":"What.","required":true}]}]}]`,
	}
	for name, raw := range tests {
		got, err := ParseCommands(json.RawMessage(raw))
		if err != nil {
			t.Fatalf("ParseCommands(%s) = %v", name, err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("ParseCommands(%s) (-want +got):\n%s", name, diff)
		}
	}
	if _, err := ParseCommands(json.RawMessage(`{"commands":"x"}`)); err == nil || !strings.Contains(err.Error(), "want a list") {
		t.Errorf("ParseCommands(bad) = %v, want a 'want a list' error", err)
	}
}

func TestSplitCommandLine(t *testing.T) {
	t.Parallel()
	cmds := []SlashCommand{{Name: "memory", SubCommands: []SlashCommand{{Name: "add"}, {Name: "show"}}}, {Name: "init"}}
	tests := []struct {
		words      []string
		path, args []string
	}{
		{[]string{"memory", "show"}, []string{"memory", "show"}, []string{}},
		{[]string{"memory", "add", "use", "tabs"}, []string{"memory", "add"}, []string{"use", "tabs"}},
		{[]string{"init", "now"}, []string{"init"}, []string{"now"}},
		{[]string{"unknown", "x"}, []string{"unknown"}, []string{"x"}},
	}
	for _, tt := range tests {
		path, args := SplitCommandLine(tt.words, cmds)
		if diff := cmp.Diff(tt.path, path); diff != "" {
			t.Errorf("SplitCommandLine(%q) path (-want +got):\n%s", tt.words, diff)
		}
		if diff := cmp.Diff(tt.args, args); diff != "" {
			t.Errorf("SplitCommandLine(%q) args (-want +got):\n%s", tt.words, diff)
		}
	}
}

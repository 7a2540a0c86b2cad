package output

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestCommands(t *testing.T) {
	t.Parallel()
	cmds := []SlashCommand{
		{Name: "memory", Description: "Memory\ncommands.", SubCommands: []SlashCommand{
			{Name: "add", Description: "Add.", Arguments: []SlashArgument{{Name: "text", Description: "What to add.", Required: true}, {Name: "scope"}}},
		}},
		{Name: "init\x1b[31m"},
	}
	var b bytes.Buffer
	if err := New(&b, Options{}).Commands(cmds, nil); err != nil {
		t.Fatal(err)
	}
	want := "/memory                       Memory commands.\n" +
		"  /memory add <text> [scope]  Add.\n" +
		"      text: What to add.\n" +
		"/init\n"
	if diff := cmp.Diff(want, b.String()); diff != "" {
		t.Errorf("Commands text (-want +got):\n%s", diff)
	}
	b.Reset()
	raw := json.RawMessage(`{"commands":[{"name":"memory"}]}`)
	if err := New(&b, Options{Format: JSON}).Commands(cmds, raw); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(raw)+"\n", b.String()); diff != "" {
		t.Errorf("Commands JSON (-want +got):\n%s", diff)
	}
}

func TestCommandResult(t *testing.T) {
	t.Parallel()
	tests := map[string]string{
		`{"name":"memory show","data":"line 1\nline 2\n"}`: "line 1\nline 2\n",
		`{"name":"x","data":{"a":1}}`:                      "{\n  \"data\": {\n    \"a\": 1\n  },\n  \"name\": \"x\"\n}\n",
	}
	for raw, want := range tests {
		var b bytes.Buffer
		if err := New(&b, Options{}).CommandResult(json.RawMessage(raw)); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, b.String()); diff != "" {
			t.Errorf("CommandResult(%s) (-want +got):\n%s", raw, diff)
		}
	}
}

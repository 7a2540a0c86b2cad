package cli

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/a2acli/a2a/internal/testagent"
)

// runMain runs Main in-process with test streams.
func runMain(t *testing.T, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	s, in, out, errb := TestStreams()
	in.WriteString(stdin)
	code = Main(context.Background(), args, s)
	return code, out.String(), errb.String()
}

func TestUsageErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"send"}, "missing <url>"},
		{[]string{"send", "h:1", "a", "b"}, "too many arguments"},
		{[]string{"send", "h:1", "x", "--bogus"}, "unknown flag: --bogus"},
		{[]string{"send", "h:1", "x", "--timeout", "soon"}, "invalid argument"},
		{[]string{"send", "h:1", "x", "-o", "yaml"}, "invalid --output"},
		{[]string{"send", "h:1", "--json", "{}", "--parts", "[]"}, "none of the others can be"},
		{[]string{"send", "h:1", "--stream", "--immediate", "x"}, "none of the others can be"},
		{[]string{"send", "h:1", "x", "--svc-param", "novalue"}, "invalid --svc-param"},
		{[]string{"send", "h:1", "x", "--transport", "carrier-pigeon"}, "invalid --transport"},
		{[]string{"send", "h:1", "--parts", "not json"}, "not a JSON array"},
		{[]string{"get"}, "needs a noun: card, push-config, task"},
		{[]string{"get", "tasks", "h:1"}, "unknown noun"},
		{[]string{"get", "task", "h:1"}, "missing <task-id>"},
		{[]string{"list", "tasks", "h:1", "--limit", "0"}, "invalid --limit"},
		{[]string{"list", "tasks", "h:1", "--since", "yesterday"}, "invalid --since"},
		{[]string{"bogus"}, "unknown command"},
		{[]string{"sned", "h:1", "x"}, `unknown command "sned" for "a2a"; did you mean send?`},
		{[]string{"serve"}, "serve needs a backend, one of: --echo (answers with the message it gets), --proxy URL "},
		{[]string{"serve", "--echo", "--exec", "cat"}, "serve runs one backend at a time: --echo and --exec were given together"},
		{[]string{"serve", "--exec", "--port", "0"}, `--exec needs the shell command to run, quoted when it has spaces: --exec "python -u agent.py"; it took the flag "--port" as its value`},
		{[]string{"serve", "--exec", "cat", "x"}, `unexpected argument "x": serve takes flags only`},
		{[]string{"serve", "--proxy="}, "--proxy needs the upstream agent's URL"},
		{[]string{"serve", "--replay", "a.jsonl", "--replay", "--quiet"}, `--replay needs a recording to replay: --replay session.jsonl; it took the flag "--quiet"`},
		{[]string{"serve", "--echo", "--chunk", "x"}, "go with --exec"},
		{[]string{"serve", "--echo", "--transport", "smoke"}, "invalid --transport"},
		{[]string{"serve", "--echo", "--protocol", "2"}, "invalid --protocol"},
		{[]string{"serve", "--echo", "--auth", "x"}, "go with --proxy"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			t.Parallel()
			code, stdout, stderr := runMain(t, "", tt.args...)
			if code != exitUsage {
				t.Fatalf("exit %d, want %d\nstderr: %s", code, exitUsage, stderr)
			}
			if stdout != "" {
				t.Errorf("stdout = %q, want nothing", stdout)
			}
			if !strings.Contains(stderr, tt.want) || !strings.Contains(stderr, "--help") {
				t.Errorf("stderr = %q, want it to contain %q and a --help hint", stderr, tt.want)
			}
		})
	}
}

func TestUsageErrorJSON(t *testing.T) {
	t.Parallel()
	code, stdout, _ := runMain(t, "", "send", "h:1", "--parts", "[", "-o", "json")
	if code != exitUsage {
		t.Fatalf("exit %d, want 2", code)
	}
	var doc struct{ Error struct{ Code, Hint string } }
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil || doc.Error.Code != codeUsage {
		t.Fatalf("stdout = %q (%v), want an %s document", stdout, err, codeUsage)
	}
}

func TestHelpAndVersion(t *testing.T) {
	t.Parallel()
	code, stdout, _ := runMain(t, "", "--help")
	if code != 0 || !strings.Contains(stdout, "Exit codes") || !strings.Contains(stdout, "a2a send localhost:8080") {
		t.Fatalf("--help: exit %d, stdout %q", code, stdout)
	}
	for _, verb := range []string{"discover", "send", "get task", "list tasks", "cancel", "subscribe", "serve"} {
		code, stdout, _ := runMain(t, "", append(strings.Fields(verb), "--help")...)
		if code != 0 || !strings.Contains(stdout, "Examples:") {
			t.Errorf("%s --help: exit %d, no examples:\n%s", verb, code, stdout)
		}
	}
	code, stdout, _ = runMain(t, "", "version", "-o", "json")
	var v versionInfo
	if err := json.Unmarshal([]byte(stdout), &v); code != 0 || err != nil || v.Go == "" || len(v.Protocols) != 2 {
		t.Fatalf("version -o json: exit %d, %q, %v", code, stdout, err)
	}
	for _, shell := range []string{"bash", "zsh", "fish", "powershell"} {
		code, stdout, _ := runMain(t, "", "completion", shell)
		if code != 0 || !strings.Contains(stdout, "a2a") {
			t.Errorf("completion %s: exit %d, %d bytes", shell, code, len(stdout))
		}
	}
}

// TestSendInProcess runs send through Main against a reference agent, reading the text from stdin.
func TestSendInProcess(t *testing.T) {
	t.Parallel()
	ag := testagent.Start(t, testagent.Options{})
	code, stdout, stderr := runMain(t, "from stdin", "send", ag.URL, "-")
	if code != 0 || !strings.Contains(stdout, "echo: from stdin") || !strings.Contains(stdout, "State: completed") {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", code, stdout, stderr)
	}
	if strings.Contains(stdout, "\x1b") {
		t.Fatalf("escape codes in piped output: %q", stdout)
	}
}

// TestOutputAsked: the output format is read from the arguments before the flags parse, so a usage error in them is
// still a JSON document when one was asked for.
func TestOutputAsked(t *testing.T) {
	t.Parallel()
	env := func(v string) func(string) string {
		return func(k string) string {
			if k == "A2ACLI_OUTPUT" {
				return v
			}
			return ""
		}
	}
	tests := []struct {
		args []string
		env  string
		want string
	}{
		{[]string{"send", "h:1", "hi", "--bogus", "-o", "json"}, "", "json"},
		{[]string{"send", "-ojson", "--bogus"}, "", "json"},
		{[]string{"send", "-o=json", "--bogus"}, "", "json"},
		{[]string{"send", "--output=json", "--bogus"}, "", "json"},
		{[]string{"send", "--output", "raw", "--bogus"}, "json", "raw"},
		{[]string{"send", "--jq", ".task", "--bogus"}, "", "json"},
		{[]string{"send", "--bogus"}, "json", "json"},
		{[]string{"send", "--bogus"}, "", ""},
		{[]string{"send", "--", "-o", "json"}, "", ""},
		{[]string{"send", "-o"}, "", ""},
	}
	for _, tt := range tests {
		if got := outputAsked(tt.args, env(tt.env)); got != tt.want {
			t.Errorf("outputAsked(%q) with A2ACLI_OUTPUT=%q = %q, want %q", tt.args, tt.env, got, tt.want)
		}
	}
}

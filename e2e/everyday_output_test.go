package e2e

import (
	"strings"
	"testing"
)

// TestSpinnerOnTerminalOnly: a blocking send on a terminal shows a spinner with the elapsed time on stderr, and nothing
// of it reaches a pipe or -o json.
func TestSpinnerOnTerminalOnly(t *testing.T) {
	t.Parallel()
	srv := startServe(t, "--exec", "sleep 1; echo slow-answer")
	p := startPTY(t, "send", srv.url, "hi")
	p.waitFor(" working") // the spinner names the task and its state once the agent has named it
	p.waitFor("slow-answer")
	p.wantSuccess()
	if !strings.Contains(p.text(), "\x1b[K") {
		t.Fatalf("the spinner line was not erased:\n%q", p.text())
	}
	j := startPTY(t, "send", srv.url, "hi", "-o", "json")
	if code := j.wait(); code != 0 {
		t.Fatalf("exit %d:\n%s", code, j.text())
	}
	if strings.Contains(j.text(), "waiting for the agent") {
		t.Fatalf("spinner with -o json:\n%q", j.text())
	}
	r := run(t, "", "send", srv.url, "hi")
	wantCode(t, r, 0)
	if strings.Contains(r.stderr, "waiting") || strings.Contains(r.stderr, "\x1b") {
		t.Fatalf("spinner in a pipe:\n%q", r.stderr)
	}
}

// TestOutputControls: -o json writes the same bytes on a terminal as in a pipe (one compact line), colour only with
// --color always; CLICOLOR=0, FORCE_COLOR and --color steer text colour.
func TestOutputControls(t *testing.T) {
	t.Parallel()
	srv := startServe(t, "--echo")
	pipe := run(t, "", "discover", srv.url, "-o", "json")
	wantCode(t, pipe, 0)
	term := startPTY(t, "discover", srv.url, "-o", "json")
	if code := term.wait(); code != 0 {
		t.Fatalf("exit %d:\n%s", code, term.text())
	}
	// The terminal turns \n into \r\n.
	if got := strings.ReplaceAll(term.text(), "\r\n", "\n"); got != pipe.stdout {
		t.Fatalf("-o json differs between a terminal and a pipe:\nterminal: %q\npipe:     %q", got, pipe.stdout)
	}
	colored := run(t, "", "discover", srv.url, "-o", "json", "--color", "always")
	if !strings.Contains(colored.stdout, "\x1b[") {
		t.Fatalf("--color always gave no colour:\n%q", colored.stdout)
	}
	for _, tc := range []struct {
		env   []string
		args  []string
		color bool
	}{
		{[]string{"FORCE_COLOR=1"}, nil, true},
		{[]string{"CLICOLOR_FORCE=1"}, nil, true},
		{[]string{"FORCE_COLOR=1", "NO_COLOR=1"}, nil, false},
		{nil, []string{"--color", "always"}, true},
		{[]string{"FORCE_COLOR=1"}, []string{"--color", "never"}, false},
		{[]string{"A2ACLI_COLOR=always"}, nil, true},
	} {
		r := runEnv(t, "", tc.env, "", append([]string{"discover", srv.url}, tc.args...)...)
		wantCode(t, r, 0)
		if got := strings.Contains(r.stdout, "\x1b["); got != tc.color {
			t.Errorf("env %v args %v: colour %v, want %v:\n%q", tc.env, tc.args, got, tc.color, r.stdout)
		}
	}
	bad := run(t, "", "discover", srv.url, "--color", "sometimes")
	wantCode(t, bad, 2)
	wantContains(t, "stderr", bad.stderr, `invalid --color "sometimes"`)
}

// On a terminal, text carries no escape sequences unless colour is asked for (the a2a-cli specification's text
// contract): plain by default, coloured with FORCE_COLOR, and NO_COLOR (or CLICOLOR=0 without a force) keeps it plain.
func TestTerminalColourOnlyWhenAsked(t *testing.T) {
	t.Parallel()
	srv := startServe(t, "--echo")
	for _, tc := range []struct {
		env   []string
		color bool
	}{
		{[]string{"TERM=xterm"}, false},
		{[]string{"TERM=xterm", "CLICOLOR=0"}, false},
		{[]string{"TERM=xterm", "FORCE_COLOR=1"}, true},
		{[]string{"TERM=xterm", "FORCE_COLOR=1", "NO_COLOR=1"}, false},
	} {
		p := startPTYWith(t, tc.env, "discover", srv.url)
		p.wantSuccess()
		if got := strings.Contains(p.text(), "\x1b["); got != tc.color {
			t.Errorf("%v: colour %v, want %v:\n%q", tc.env, got, tc.color, p.text())
		}
	}
}

// --jq filters JSON in-process, as gh does: strings raw, other values as compact JSON.
func TestJQ(t *testing.T) {
	t.Parallel()
	srv := startServe(t, "--echo")
	r := run(t, "", "send", srv.url, "hello jq", "--jq", ".task.status.state")
	wantCode(t, r, 0)
	if strings.TrimSpace(r.stdout) != "TASK_STATE_COMPLETED" {
		t.Fatalf("--jq .task.status.state printed %q", r.stdout)
	}
	r = run(t, "", "discover", srv.url, "--jq", "{name}")
	wantCode(t, r, 0)
	if strings.TrimSpace(r.stdout) != `{"name":"echo"}` && !strings.HasPrefix(r.stdout, `{"name":`) {
		t.Fatalf("--jq {name} printed %q", r.stdout)
	}
	bad := run(t, "", "discover", srv.url, "--jq", ".[")
	wantCode(t, bad, 2)
	// --jq means JSON output: the error is the JSON error document.
	if doc := errorDoc(t, bad); doc["code"] != "A2ACLI_ERR_USAGE" || !strings.Contains(doc["message"].(string), "invalid --jq expression") {
		t.Fatalf("error document %v, want a usage error naming the --jq expression", doc)
	}
	mixed := run(t, "", "discover", srv.url, "--jq", ".name", "-o", "text")
	wantCode(t, mixed, 2)
	wantContains(t, "stderr", mixed.stderr, "--jq filters JSON")
}

// TestHelpEveryday: help names the nouns of a mistyped one, lists the environment, keeps global flags out of version,
// and send --help's jq example prints the state rather than null.
func TestHelpEveryday(t *testing.T) {
	t.Parallel()
	r := run(t, "", "list", "task", "localhost:1")
	wantCode(t, r, 2)
	wantContains(t, "stderr", r.stderr, "did you mean 'a2a list tasks'?")
	env := run(t, "", "help", "environment")
	wantCode(t, env, 0)
	wantContains(t, "help environment", env.stdout, "A2ACLI_AUTH", "A2ACLI_TIMEOUT", "NO_COLOR", "CLICOLOR")
	v := run(t, "", "version", "--help")
	if strings.Contains(v.stdout, "Global Flags") {
		t.Fatalf("version --help lists the global flags:\n%s", v.stdout)
	}
	root := run(t, "", "--help")
	wantContains(t, "a2a --help", root.stdout, "Agents:", "Tasks:", "Coding agents:", "Serving:", "Other:")
	help := run(t, "", "send", "--help")
	if !strings.Contains(help.stdout, "jq -r .task.status.state") {
		t.Fatalf("send --help has no jq example reading .task.status.state:\n%s", help.stdout)
	}
	srv := startServe(t, "--echo")
	out := run(t, "", "send", srv.url, "hi", "-o", "json", "--jq", ".task.status.state")
	if strings.TrimSpace(out.stdout) == "null" || out.stdout == "" {
		t.Fatalf("the example's path prints %q", out.stdout)
	}
}

// TestChatRedrawsAfterATurn: after a turn, what is typed at the prompt is drawn where it is typed: x/term moved the
// cursor as if the prompt were not there, so "third" came out as "> t  hird". The echo agent's turns end the task, so
// each turn shows its own header.
func TestChatRedrawsAfterATurn(t *testing.T) {
	t.Parallel()
	srv := startServe(t, "--echo")
	p := startPTY(t, "chat", srv.url)
	p.waitFor("chatting with")
	p.answer("> ", "first\r")
	p.waitFor("State: completed")
	p.waitFor("> ")
	start := p.mark
	p.write("third\r")
	p.waitFor("State: completed")
	typed := p.text()[start:]
	if !strings.HasPrefix(typed, "third\r\n") {
		t.Fatalf("the typed line was not drawn as typed: %q", typed[:min(len(typed), 60)])
	}
	p.write("\x04")
	p.wantSuccess()
}

// TestListTasksTable: list tasks in text is an aligned table, one row per task, the ids in the first column.
func TestListTasksTable(t *testing.T) {
	t.Parallel()
	srv := startServe(t, "--echo")
	ids := map[string]bool{}
	for _, text := range []string{"one", "two"} {
		ids[string(sendTask(t, run(t, "", "send", srv.url, text, "-o", "json")).ID)] = true
	}
	r := run(t, "", "list", "tasks", srv.url)
	wantCode(t, r, 0)
	lines := strings.Split(r.stdout, "\n")
	if !strings.HasPrefix(lines[0], "TASK ID") {
		t.Fatalf("no table header:\n%s", r.stdout)
	}
	col := strings.Index(lines[0], "STATE")
	for _, l := range lines[1:3] {
		f := strings.Fields(l)
		if len(f) < 4 || !ids[f[0]] || strings.Index(l, f[2]) != col || f[2] != "completed" {
			t.Fatalf("row %q is not aligned under the header (STATE at column %d):\n%s", l, col, r.stdout)
		}
	}
	wantContains(t, "stdout", r.stdout, "\nTotal: 2\n")
}

package e2e

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// Coding agents (the development-tool extension) against the replay agent serving recordings of the real Gemini
// CLI A2A server and of the RFC shape: permission prompts answered by flags and by a later process, the rendering's
// key lines, slash commands. Each test gets its own replay agent: a task's first message matches any recording.

// replayAgent serves the named recordings of testdata/recordings.
func replayAgent(t *testing.T, names ...string) *server {
	t.Helper()
	var args []string
	for _, n := range names {
		args = append(args, "--replay", filepath.Join("..", "testdata", "recordings", n+".jsonl"))
	}
	return startServe(t, args...)
}

var confirmCmd = regexp.MustCompile(`a2a send (\S+) --task (\S+) --confirm (\S+)=approve`)

func TestDevtoolFlagsAnswer(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, recording, flag string
		want                  []string
	}{
		{"gemini approve", "gemini-approve-write", "--approve", []string{"WriteFile hello.txt - succeeded", "All done.", "your turn"}},
		{"gemini reject", "gemini-reject-write", "--reject", []string{"WriteFile hello.txt - cancelled", "your turn"}},
		{"gemini two tools", "gemini-two-tools", "--approve", []string{"WriteFile hello.txt - succeeded", "Shell echo hi - succeeded"}},
		{"gemini edit", "gemini-approve-edit", "--approve", []string{"succeeded"}},
		{"gemini shell", "gemini-approve-shell", "--approve", []string{"Shell echo hi - succeeded"}},
		{"rfc approve", "rfc-approve-write", "--approve", []string{"hello.txt - succeeded", "completed"}},
		{"rfc reject", "rfc-reject-write", "--reject", []string{"hello.txt - cancelled"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := replayAgent(t, tt.recording)
			r := run(t, "", "send", srv.url, "--workspace", t.TempDir(), tt.flag, "Please write hello.txt")
			wantCode(t, r, 0)
			wantContains(t, "stdout", r.stdout, tt.want...)
			if strings.Contains(r.stderr, "permission needed") {
				t.Errorf("%s still stopped at a prompt:\n%s", tt.flag, r)
			}
		})
	}
}

func TestDevtoolAutoExecuteAndLiveOutput(t *testing.T) {
	t.Parallel()
	tests := []struct{ recording, text, want string }{
		{"gemini-auto-execute", "Please write hello.txt", "WriteFile hello.txt - succeeded"},
		{"gemini-live-output", "Please run the ticker", "tick 3"},
	}
	for _, tt := range tests {
		t.Run(tt.recording, func(t *testing.T) {
			t.Parallel()
			srv := replayAgent(t, tt.recording)
			r := run(t, "", "send", srv.url, "--workspace", t.TempDir(), "--auto-execute", tt.text)
			wantCode(t, r, 0)
			wantContains(t, "stdout", r.stdout, tt.want, "your turn")
			if strings.Contains(r.stderr, "permission needed") {
				t.Errorf("--auto-execute stopped at a prompt:\n%s", r)
			}
		})
	}
}

func TestDevtoolModelError(t *testing.T) {
	t.Parallel()
	srv := replayAgent(t, "gemini-api-error")
	r := run(t, "", "send", srv.url, "--stream", "trigger an api error")
	wantCode(t, r, 0)
	wantContains(t, "stdout", r.stdout, "fake-gemini: scripted API error", "your turn")
}

// TestDevtoolAnswerFromLaterProcess is the connection rule: the first process stops at the prompt and exits only
// once the agent closed its idle connection; the answer from a second process must then find the tool waiting
// (not "Execution aborted by client.").
func TestDevtoolAnswerFromLaterProcess(t *testing.T) {
	t.Parallel()
	for _, rec := range []string{"gemini-approve-write", "rfc-approve-write"} {
		t.Run(rec, func(t *testing.T) {
			t.Parallel()
			srv := replayAgent(t, rec)
			first := run(t, "", "send", srv.url, "--workspace", t.TempDir(), "Please write hello.txt")
			wantCode(t, first, 0)
			wantContains(t, "stderr", first.stderr, "permission needed: 1 tool call(s)")
			m := confirmCmd.FindStringSubmatch(first.stderr)
			if m == nil {
				t.Fatalf("no --confirm command on stderr:\n%s", first)
			}
			second := run(t, "", "send", m[1], "--task", m[2], "--confirm", m[3]+"=approve")
			wantCode(t, second, 0)
			wantContains(t, "stdout", second.stdout, "succeeded")
			if strings.Contains(second.stdout, "aborted") {
				t.Errorf("the turn was aborted: the first process closed the connection that started it\n%s", second)
			}
		})
	}
}

func TestDevtoolStopAtPromptFail(t *testing.T) {
	t.Parallel()
	srv := replayAgent(t, "gemini-approve-write")
	r := run(t, "", "send", srv.url, "--fail", "-o", "json", "--stream", "Please write hello.txt")
	wantCode(t, r, 7)
	events, errDoc := jsonLines(t, r.stdout)
	if errDoc != nil || len(events) == 0 {
		t.Fatalf("want only protocol events on stdout, got %d events and error %v", len(events), errDoc)
	}
	wantContains(t, "stderr", r.stderr, "--confirm write_file-", "=reject")
}

// TestDevtoolIgnoredAnswer is the idle watchdog: an answer the agent does not expect gets no event at all; a2a must
// say so and suggest cancel, not hang.
func TestDevtoolIgnoredAnswer(t *testing.T) {
	t.Parallel()
	srv := replayAgent(t, "gemini-approve-write")
	first := run(t, "", "send", srv.url, "Please write hello.txt")
	m := confirmCmd.FindStringSubmatch(first.stderr)
	if m == nil {
		t.Fatalf("no --confirm command on stderr:\n%s", first)
	}
	// The recording only knows proceed_once: "always" is an answer this agent ignores.
	r := run(t, "", "send", m[1], "--task", m[2], "--confirm", m[3]+"=always", "--answer-timeout", "1s")
	wantCode(t, r, 5)
	wantContains(t, "stderr", r.stderr, "ignored the answer", "hint: cancel the task with: a2a cancel")
}

func TestDevtoolConfirmUsage(t *testing.T) {
	t.Parallel()
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"send", "127.0.0.1:9", "--confirm", "c1=approve"}, "--task"},
		{[]string{"send", "127.0.0.1:9", "--task", "t", "--confirm", "c1"}, "CALLID=OPTION"},
		{[]string{"send", "127.0.0.1:9", "--task", "t", "--confirm", "c1=approve", "more text"}, "drop the message"},
		{[]string{"send", "127.0.0.1:9", "--approve", "--reject", "x"}, "approve"},
		{[]string{"send", "127.0.0.1:9", "--workspace", "/does/not/exist", "x"}, "--workspace"},
		{[]string{"chat", "127.0.0.1:9"}, "chat needs a terminal"},
	}
	for _, tt := range tests {
		r := run(t, "", tt.args...)
		wantCode(t, r, 2)
		wantContains(t, "stderr", r.stderr, tt.want)
	}
}

func TestSlashCommands(t *testing.T) {
	t.Parallel()
	for _, transport := range []string{"rest", "jsonrpc"} {
		t.Run(transport, func(t *testing.T) {
			t.Parallel()
			srv := startServe(t, "--transport", transport, "--replay", filepath.Join("..", "testdata", "recordings", "commands.jsonl"))
			r := run(t, "", "list", "commands", srv.url)
			wantCode(t, r, 0)
			wantContains(t, "stdout", r.stdout, "/memory", "/memory add <text>", "Add content to the memory.")
			r = run(t, "", "list", "commands", srv.url, "-o", "json")
			wantCode(t, r, 0)
			wantContains(t, "stdout", r.stdout, `"commands":[`)
			r = run(t, "", "run", "command", srv.url, "memory", "show")
			wantCode(t, r, 0)
			if transport == "rest" {
				wantContains(t, "stdout", r.stdout, "# Project notes")
			} else {
				wantContains(t, "stderr", r.stderr, "command started: execution exec-memory-show-1")
			}
		})
	}
}

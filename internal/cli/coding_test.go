package cli

import (
	"bufio"
	"context"
	"io"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// Coding agents through Main: a serve --replay agent in the same process plays recordings of the real Gemini CLI
// A2A server and of the RFC shape (e2e/devtool_test.go runs the same against the built binary).

// runMainQuick is runMain with a short wait for the agent to close idle connections after a turn stopped at a
// prompt (10 s in production).
func runMainQuick(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	s, _, out, errb := TestStreams()
	code = run(context.Background(), args, s, func(f *factory) { f.idleClose = 100 * time.Millisecond })
	return code, out.String(), errb.String()
}

// startReplay runs `a2a serve --replay` on a free port until the test ends and returns its URL.
func startReplay(t *testing.T, recordings ...string) string {
	t.Helper()
	args := []string{"--port", "0"}
	for _, r := range recordings {
		args = append(args, "--replay", filepath.Join("..", "..", "testdata", "recordings", r+".jsonl"))
	}
	return startServe(t, args...)
}

// startServe runs `a2a serve ARGS` in this process until the test ends and returns the URL it listens on.
func startServe(t *testing.T, args ...string) string {
	t.Helper()
	args = append([]string{"serve"}, args...)
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	s := &Streams{In: strings.NewReader(""), Out: io.Discard, Err: pw, Getenv: func(string) string { return "" }}
	done := make(chan int, 1)
	go func() {
		done <- Main(ctx, args, s)
		pw.Close()
	}()
	t.Cleanup(func() {
		cancel()
		<-done
	})
	sc := bufio.NewScanner(pr)
	for sc.Scan() {
		if u, ok := strings.CutPrefix(sc.Text(), "listening on "); ok {
			go io.Copy(io.Discard, pr) //nolint:errcheck // drain the log
			return strings.Fields(u)[0]
		}
	}
	t.Fatalf("serve %v ended before listening", args)
	return ""
}

var confirmLine = regexp.MustCompile(`a2a send (\S+) --task (\S+) --confirm (\S+)=approve`)

func TestCodingAgentFlags(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, recording string
		args            []string
		code            int
		stdout          []string
	}{
		{"gemini approve", "gemini-approve-write", []string{"--approve"}, 0, []string{"WriteFile hello.txt - succeeded", "your turn"}},
		{"gemini reject", "gemini-reject-write", []string{"--reject"}, 0, []string{"WriteFile hello.txt - cancelled"}},
		{"gemini approve json", "gemini-approve-write", []string{"--approve", "-o", "json"}, 0, []string{`{"task":{"id":`}},
		{"gemini approve raw", "gemini-approve-write", []string{"--approve", "-o", "raw", "--stream"}, 0, nil},
		{"gemini auto-execute", "gemini-auto-execute", []string{"--auto-execute"}, 0, []string{"WriteFile hello.txt - succeeded"}},
		{"rfc approve", "rfc-approve-write", []string{"--approve"}, 0, []string{"hello.txt - succeeded"}},
		{"rfc reject", "rfc-reject-write", []string{"--reject"}, 0, []string{"hello.txt - cancelled"}},
		{"stop at prompt --fail", "gemini-approve-write", []string{"--fail", "--stream", "-o", "json"}, exitTaskPaused, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			url := startReplay(t, tt.recording)
			args := append([]string{"send", url, "--workspace", t.TempDir(), "Please write hello.txt"}, tt.args...)
			code, stdout, stderr := runMainQuick(t, args...)
			if code != tt.code {
				t.Fatalf("exit %d, want %d\nstdout: %s\nstderr: %s", code, tt.code, stdout, stderr)
			}
			for _, s := range tt.stdout {
				if !strings.Contains(stdout, s) {
					t.Errorf("stdout lacks %q:\n%s", s, stdout)
				}
			}
		})
	}
}

// TestCodingAgentLaterProcess stops at the prompt (no terminal, no flag), then answers from a second run.
func TestCodingAgentLaterProcess(t *testing.T) {
	t.Parallel()
	for _, rec := range []string{"gemini-approve-write", "rfc-approve-write"} {
		t.Run(rec, func(t *testing.T) {
			t.Parallel()
			url := startReplay(t, rec)
			code, _, stderr := runMainQuick(t, "send", url, "--workspace", t.TempDir(), "Please write hello.txt")
			if code != 0 || !strings.Contains(stderr, "permission needed: 1 tool call(s)") {
				t.Fatalf("first: exit %d\n%s", code, stderr)
			}
			m := confirmLine.FindStringSubmatch(stderr)
			if m == nil {
				t.Fatalf("no --confirm command on stderr:\n%s", stderr)
			}
			code, stdout, stderr := runMain(t, "", "send", m[1], "--task", m[2], "--confirm", m[3]+"=approve")
			if code != 0 || !strings.Contains(stdout, "succeeded") {
				t.Fatalf("second: exit %d\nstdout: %s\nstderr: %s", code, stdout, stderr)
			}
		})
	}
}

func TestCodingAgentModelErrorAndCommands(t *testing.T) {
	t.Parallel()
	url := startReplay(t, "gemini-api-error")
	code, stdout, stderr := runMain(t, "", "send", url, "--stream", "trigger an api error")
	if code != 0 || !strings.Contains(stdout, "fake-gemini: scripted API error") {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", code, stdout, stderr)
	}
	cmds := startReplay(t, "commands")
	runVerbCases(t, []verbCase{
		{name: "list commands", args: []string{"list", "commands", cmds}, stdout: []string{"/memory add <text>"}},
		{name: "list commands json", args: []string{"list", "commands", cmds, "-o", "json"}, stdout: []string{`"commands":[`}},
		{name: "run command", args: []string{"run", "command", cmds, "memory", "show"}, stdout: []string{"# Project notes"}},
		{name: "chat needs a terminal", args: []string{"chat", cmds}, code: exitUsage, stderr: []string{"chat needs a terminal"}},
	})
}

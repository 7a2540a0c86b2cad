package e2e

import (
	"bytes"
	"context"
	"io"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/creack/pty"

	"github.com/a2acli/a2a/internal/testagent"
)

// TestTextNoControlSequencesOnTerminal: the text contract carries no terminal control sequences, on a terminal too
// (the a2a-cli specification, §11.2): stdout is a terminal here, TERM says it can colour, NO_COLOR is unset, and the
// bytes are what a pipe gets. Blocks are closed by a blank line. --color always still colours.
func TestTextNoControlSequencesOnTerminal(t *testing.T) {
	t.Parallel()
	srv := startServe(t, "--echo")
	task := sendTask(t, run(t, "", "send", srv.url, "hello", "-o", "json"))
	piped := run(t, "", "get", "task", srv.url, string(task.ID))
	wantCode(t, piped, 0)

	onTTY := func(extra ...string) string {
		ptmx, tty, err := pty.Open()
		if err != nil {
			t.Skipf("no pseudo-terminal: %v", err)
		}
		defer ptmx.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		cmd := exec.CommandContext(ctx, bin, append([]string{"get", "task", srv.url, string(task.ID)}, extra...)...)
		cmd.Env = append(cmdEnv("TERM=xterm-256color"), "NO_COLOR=")
		var stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = tty, &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		tty.Close()
		var out bytes.Buffer
		done := make(chan struct{})
		go func() { _, _ = io.Copy(&out, ptmx); close(done) }()
		if err := cmd.Wait(); err != nil {
			t.Fatalf("a2a get task on a terminal: %v\n%s", err, stderr.String())
		}
		ptmx.Close()
		<-done
		return strings.ReplaceAll(out.String(), "\r\n", "\n")
	}
	got := onTTY()
	if strings.Contains(got, "\x1b") {
		t.Errorf("text output on a terminal carries escape sequences:\n%q", got)
	}
	if got != piped.stdout {
		t.Errorf("text on a terminal differs from text in a pipe:\n%q\n%q", got, piped.stdout)
	}
	if !strings.Contains(got, "Artifact: echo\n  hello\n\n") {
		t.Errorf("the artifact block is not closed by a blank line:\n%q", got)
	}
	if colored := onTTY("--color", "always"); !strings.Contains(colored, "\x1b[") {
		t.Errorf("--color always: no colour on a terminal:\n%q", colored)
	}
}

// TestPushConfigNeedsDeclaredCapability: push configs go only to an agent whose card declares push notifications
// (the a2a-cli specification, §13.3), in both grammars; the refusal is the protocol's own error name, before any
// call. The agents are a2a-go's SDK servers, one without push and one with it.
func TestPushConfigNeedsDeclaredCapability(t *testing.T) {
	t.Parallel()
	noPush := testagent.Start(t, testagent.Options{})
	withPush := testagent.Start(t, testagent.Options{Push: true})
	for _, args := range [][]string{
		{"list", "push-configs", noPush.URL, "t1"},
		{"task", "push-config", "list", "-a", noPush.URL, "t1"},
		{"create", "push-config", noPush.URL, "t1", "--webhook", "http://127.0.0.1:9/"},
		{"send", noPush.URL, "hi", "--push-url", "http://127.0.0.1:9/"},
	} {
		r := run(t, "", append(args, "-o", "json")...)
		wantCode(t, r, 1)
		wantContains(t, "stdout", r.stdout, `"code":"PushNotificationNotSupportedError"`, "does not declare push notifications")
	}
	task := sendTask(t, run(t, "", "send", withPush.URL, "hi", "-o", "json"))
	r := run(t, "", "task", "push-config", "list", "-a", withPush.URL, string(task.ID))
	wantCode(t, r, 0)
}

// TestTaskGetWait: task get --wait polls a2a-go's SDK agent until its slow task completes; --timeout bounds the
// whole wait (exit 5, A2ACLI_ERR_TIMEOUT) and a settled task is printed with its artifacts.
func TestTaskGetWait(t *testing.T) {
	t.Parallel()
	slow := testagent.Start(t, testagent.Options{Behavior: testagent.Slow, Delay: 1500 * time.Millisecond})
	task := sendTask(t, run(t, "", "send", slow.URL, "hi", "--immediate", "-o", "json"))
	r := run(t, "", "task", "get", "-a", slow.URL, string(task.ID), "--wait", "--timeout", "200ms", "-o", "json")
	wantCode(t, r, 5)
	wantContains(t, "stdout", r.stdout, `"code":"A2ACLI_ERR_TIMEOUT"`)
	r = run(t, "", "task", "get", "-a", slow.URL, string(task.ID), "--wait", "--poll-interval", "50ms")
	wantCode(t, r, 0)
	wantContains(t, "stdout", r.stdout, "State: completed", "Artifact: ")
}

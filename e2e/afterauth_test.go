package e2e

import (
	"context"
	"strings"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/a2acli/a2a/internal/testagent"
	"github.com/a2acli/a2a/internal/testagent/wire"
)

// TestChatAndMCPFollowTaskAfterCredentials: a task at auth-required (A2A §7.6) that the user continues with
// credentials, in a chat (--task) or through the MCP bridge's continue tool, is followed to its end as send --task
// does, whether the agent takes the message (the wire agents) or refuses it and goes on by itself once the
// credentials arrive (a2a-go's handler).
func TestChatAndMCPFollowTaskAfterCredentials(t *testing.T) {
	t.Parallel()
	agents := []struct {
		name, answer string
		start        func() string
	}{
		{"a2a-go", "authorized: start", func() string {
			return testagent.Start(t, testagent.Options{Behavior: testagent.AuthRequired}).URL
		}},
		{"a2a-go_HTTP+JSON", "authorized: start", func() string {
			return testagent.Start(t, testagent.Options{Behavior: testagent.AuthRequired, Transport: a2a.TransportProtocolHTTPJSON}).URL
		}},
		{"wire_streaming", "authorized: start, go on", func() string {
			return wire.StartInTaskAuth(t, wire.InTaskAuthOptions{Stream: true}).URL
		}},
		{"wire", "authorized: start, go on", func() string { return wire.StartInTaskAuth(t, wire.InTaskAuthOptions{}).URL }},
	}
	for _, ag := range agents {
		t.Run(ag.name, func(t *testing.T) {
			t.Parallel()
			authRequired := func(url string) string {
				t.Helper()
				r := run(t, "", "send", url, "-o", "json", "start")
				wantCode(t, r, 0)
				task := sendTask(t, r)
				if task.Status.State != a2a.TaskStateAuthRequired {
					t.Fatalf("task state %s, want auth-required", task.Status.State)
				}
				return string(task.ID)
			}
			url := ag.start()
			id := authRequired(url)
			p := startPTY(t, "chat", url, "--task", id, "--auth", "Bearer letmein")
			p.answer("> ", "go on\r")
			p.waitFor("State: completed")
			p.waitFor(ag.answer)
			p.answer("> ", "\x04")
			p.wantSuccess()

			url = ag.start()
			id = authRequired(url)
			h := &mcpClient{}
			cs := connectMCP(t, "stdio", h, url, "--auth", "Bearer letmein")
			res := callTool(t, context.Background(), cs, "continue", map[string]any{"taskId": id, "answer": "go on"})
			if res.IsError || !strings.Contains(resultText(res), ag.answer) {
				t.Fatalf("continue: error %v, text %q\nstderr:\n%s", res.IsError, resultText(res), h.stderr.String())
			}
			if st := structured(t, res); st["state"] != "completed" || st["taskId"] != id {
				t.Fatalf("continue: structured %v", st)
			}
		})
	}
}

// TestFollowUpStillWaitsForCredentials: a follow-up that the agent refuses while its task waits for credentials it
// never gets (a2a-go's handler; TaskAuth accepts nothing) is followed for --timeout, then fails the same way from
// send --task, a chat turn and the MCP bridge's continue tool: the refusal, the task that still waits, and (where
// hints are shown) the command that shows what the agent asks for.
func TestFollowUpStillWaitsForCredentials(t *testing.T) {
	t.Parallel()
	agent := testagent.Start(t, testagent.Options{Behavior: testagent.AuthRequired, TaskAuth: func(string) bool { return false }})
	authRequired := func() string {
		t.Helper()
		r := run(t, "", "send", agent.URL, "-o", "json", "start")
		wantCode(t, r, 0)
		task := sendTask(t, r)
		if task.Status.State != a2a.TaskStateAuthRequired {
			t.Fatalf("task state %s, want auth-required", task.Status.State)
		}
		return string(task.ID)
	}
	still := func(id string) string { return "(task " + id + ": the task still waits for credentials)" }

	id := authRequired()
	r := run(t, "", "send", agent.URL, "--task", id, "--auth", "Bearer nope", "--timeout", "1s", "go on")
	wantCode(t, r, 1)
	wantContains(t, "send", r.stderr,
		"The agent did not take the message; task "+id+" waited for credentials: following it\n",
		still(id)+"\n",
		"hint: check what the agent asks for with: a2a get task "+agent.URL+" "+id+"\n")
	if r.stdout != "" {
		t.Errorf("send printed %q on stdout", r.stdout)
	}

	id = authRequired()
	p := startPTY(t, "chat", agent.URL, "--task", id, "--auth", "Bearer nope", "--timeout", "1s")
	p.answer("> ", "go on\r")
	p.waitFor("(task " + id + " still waits for credentials: a2a auth login, then a new chat with --task " + id + ")")
	p.waitFor(still(id))
	p.answer("> ", "\x04")
	p.wantSuccess()

	id = authRequired()
	h := &mcpClient{}
	cs := connectMCP(t, "stdio", h, agent.URL, "--auth", "Bearer nope", "--timeout", "1s")
	res := callTool(t, context.Background(), cs, "continue", map[string]any{"taskId": id, "answer": "go on"})
	if !res.IsError || !strings.Contains(resultText(res), still(id)) {
		t.Fatalf("continue: error %v, text %q\nstderr:\n%s", res.IsError, resultText(res), h.stderr.String())
	}
}

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

package cli

import (
	"testing"

	"github.com/a2acli/a2a/internal/testagent"
)

// serve's backends and the push verbs through Main, against agents of this process.

func TestServeBackends(t *testing.T) {
	t.Parallel()
	echo := startServe(t, "--echo", "--port", "0")
	exec := startServe(t, "--exec", "cat", "--port", "0")
	upstream := testagent.Start(t, testagent.Options{})
	proxy := startServe(t, "--proxy", upstream.URL, "--port", "0")
	multi := startServe(t, "--echo", "--port", "0", "--transport", "jsonrpc,rest")
	runVerbCases(t, []verbCase{
		{name: "echo", args: []string{"send", echo, "hi"}, stdout: []string{"hi"}},
		{name: "echo stream", args: []string{"send", echo, "hi", "--stream", "-o", "json"}, stdout: []string{"hi"}},
		{name: "exec raw", args: []string{"send", exec, "through cat", "-o", "raw"}, stdout: []string{"through cat"}},
		{name: "proxy", args: []string{"send", proxy, "hi"}, stdout: []string{"echo: hi"}},
		{name: "proxy stream", args: []string{"send", proxy, "hi", "--stream"}, stdout: []string{"echo: hi"}},
		{name: "proxy again", args: []string{"send", proxy, "again"}, stdout: []string{"echo: again"}},
		{name: "multi rest", args: []string{"send", multi, "hi", "--transport", "rest"}, stdout: []string{"hi"}},
		{name: "card", args: []string{"discover", echo, "-o", "json"}, jsonDoc: true},
		{name: "two backends", args: []string{"serve", "--echo", "--exec", "cat"}, code: exitUsage},
		{name: "auth without proxy", args: []string{"serve", "--echo", "--auth", "x"}, code: exitUsage, stderr: []string{"--proxy"}},
		{name: "bad proxy", args: []string{"serve", "--proxy", "ftp://x"}, code: exitUsage},
		{name: "bad input", args: []string{"serve", "--exec", "cat", "--input", "yaml"}, code: exitUsage},
		{name: "empty chunk", args: []string{"serve", "--exec", "cat", "--chunk="}, code: exitUsage},
		{name: "negative concurrency", args: []string{"serve", "--exec", "cat", "--max-concurrent", "-1"}, code: exitUsage},
		{name: "replay missing", args: []string{"serve", "--replay", "/no/such.jsonl"}, code: exitUsage},
	})
}

func TestPushVerbs(t *testing.T) {
	t.Parallel()
	ag := testagent.Start(t, testagent.Options{Push: true})
	code, stdout, stderr := runMain(t, "", "send", ag.URL, "hi", "--jq", ".task.id")
	if code != 0 {
		t.Fatalf("send: exit %d\n%s", code, stderr)
	}
	id := stdout[:len(stdout)-1]
	runVerbCases(t, []verbCase{
		{name: "create", args: []string{"create", "push-config", ag.URL, id, "--webhook", "http://127.0.0.1:9/hook", "--id", "c1", "--token", "tok"}, stdout: []string{"c1"}},
		{name: "get", args: []string{"get", "push-config", ag.URL, id, "c1", "-o", "json"}, stdout: []string{"127.0.0.1:9/hook"}, jsonDoc: true},
		{name: "list", args: []string{"list", "push-configs", ag.URL, id}, stdout: []string{"c1"}},
		{name: "delete", args: []string{"delete", "push-config", ag.URL, id, "c1"}},
		{name: "create without webhook", args: []string{"create", "push-config", ag.URL, id}, code: exitUsage},
		{name: "send --push", args: []string{"send", ag.URL, "hi", "--push", "--timeout", "10s"}, stdout: []string{"echo: hi"}},
		{name: "push-token without url", args: []string{"send", ag.URL, "hi", "--push-token", "x"}, code: exitUsage},
	})
}

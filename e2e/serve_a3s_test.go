package e2e

import (
	"context"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/a2acli/a2a/internal/testagent/a3sagent"
)

// serve --a3s against the scripted A3S agents of internal/testagent/a3sagent (gRPC servers built from the project's
// .proto files, not from the bridge), in both shapes of the interface, driven by our own verbs and by a2a-go's client.

func startA3S(t *testing.T, shape a3sagent.Shape, args ...string) (*a3sagent.Agent, *server) {
	t.Helper()
	agent := a3sagent.Start(t, a3sagent.Options{Shape: shape})
	srv := startServe(t, append([]string{"--a3s", agent.Addr}, args...)...)
	return agent, srv
}

func TestA3SStream(t *testing.T) {
	t.Parallel()
	for _, shape := range []a3sagent.Shape{a3sagent.A3S, a3sagent.Seed} {
		t.Run(shape.String(), func(t *testing.T) {
			t.Parallel()
			_, srv := startA3S(t, shape, "--transport", "rest,jsonrpc,grpc")
			r := run(t, "", "send", srv.url, "--stream", "-o", "raw", "hello agent")
			wantCode(t, r, 0)
			if r.stdout != "echo: hello agent" {
				t.Errorf("raw output %q, want the streamed text once", r.stdout)
			}
			r = run(t, "", "send", srv.url, "--stream", "think about it")
			wantCode(t, r, 0)
			wantContains(t, "stdout", r.stdout, "The user wants a greeting", "Hello!", "completed")
			r = run(t, "", "send", srv.url, "--stream", "fail please")
			wantCode(t, r, 0)
			wantContains(t, "stdout", r.stdout, "failed", "model error: the scripted model is overloaded")
			r = run(t, "", "send", srv.url, "length")
			wantCode(t, r, 0)
			wantContains(t, "stdout", r.stdout, "completed", "stopped early: the model reached its output length limit")
		})
	}
}

func TestA3SCard(t *testing.T) {
	t.Parallel()
	_, srv := startA3S(t, a3sagent.A3S)
	r := run(t, "", "get", "card", srv.url, "-o", "json")
	wantCode(t, r, 0)
	wantContains(t, "stdout", r.stdout, `"name":"test-a3s-agent"`, `"version":"0.9.1"`, `"id":"bash"`,
		"developer-profile/v0/spec.md")
}

func TestA3SApproveReject(t *testing.T) {
	t.Parallel()
	tests := []struct {
		flag, call, text, confirm string
	}{
		{"--approve", "bash echo hi > hello.txt - succeeded", "I wrote hello.txt.", "ConfirmToolExecution sess-1 call-1 true"},
		{"--reject", "bash echo hi > hello.txt - cancelled", "I did not write hello.txt.", "ConfirmToolExecution sess-1 call-1 false"},
		{"--auto-execute", "bash echo hi > hello.txt - succeeded", "I wrote hello.txt.", "ConfirmToolExecution sess-1 call-1 true"},
	}
	for _, tt := range tests {
		t.Run(tt.flag, func(t *testing.T) {
			t.Parallel()
			agent, srv := startA3S(t, a3sagent.A3S)
			ws := t.TempDir()
			r := run(t, "", "send", srv.url, "--workspace", ws, tt.flag, "please write hello.txt")
			wantCode(t, r, 0)
			wantContains(t, "stdout", r.stdout, tt.call, tt.text, "completed")
			if !agent.Called(tt.confirm) || !agent.Called("CreateSession sess-1 "+ws) {
				t.Errorf("agent calls %q, want %q and the workspace %s", agent.Calls(), tt.confirm, ws)
			}
		})
	}
}

func TestA3SConfirmFromLaterProcess(t *testing.T) {
	t.Parallel()
	agent, srv := startA3S(t, a3sagent.A3S)
	first := run(t, "", "send", srv.url, "please write hello.txt")
	wantCode(t, first, 0)
	wantContains(t, "stderr", first.stderr, "permission needed: 1 tool call(s)")
	wantContains(t, "stdout", first.stdout, "input-required")
	m := confirmCmd.FindStringSubmatch(first.stderr)
	if m == nil || m[3] != "call-1" {
		t.Fatalf("no --confirm command for call-1 on stderr:\n%s", first)
	}
	second := run(t, "", "send", m[1], "--task", m[2], "--confirm", m[3]+"=approve")
	wantCode(t, second, 0)
	wantContains(t, "stdout", second.stdout, "succeeded", "I wrote hello.txt.", "completed")
	if !agent.Called("ConfirmToolExecution sess-1 call-1 true") {
		t.Errorf("agent calls %q", agent.Calls())
	}
}

func TestA3SCancelMidStream(t *testing.T) {
	t.Parallel()
	agent, srv := startA3S(t, a3sagent.A3S)
	c := startClient(t, "send", srv.url, "--stream", "-o", "json", "slow please")
	_, taskID := firstChunk(t, c, 30*time.Second)
	r := run(t, "", "cancel", srv.url, string(taskID))
	wantCode(t, r, 0)
	wantContains(t, "stdout", r.stdout, "canceled")
	c.wait(t, 30*time.Second)
	if !agent.Called("Cancel sess-1") {
		t.Errorf("agent calls %q, want Cancel sess-1", agent.Calls())
	}
}

func TestA3SUnreachable(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := ln.Addr().String()
	ln.Close()
	srv := startServe(t, "--a3s", dead)
	wantContains(t, "serve log", srv.Log(), "warning: A3S agent "+dead+" unreachable")
	r := run(t, "", "send", srv.url, "hello")
	wantCode(t, r, 1)
	wantContains(t, "stderr", r.stderr, "A3S agent "+dead+" unreachable")
	r = run(t, "", "get", "card", srv.url)
	wantCode(t, r, 0)
	wantContains(t, "stdout", r.stdout, dead)
}

// A plain a2a-go client through the bridge, on every transport, v1.0 and v0.3.
func TestA3SLibClient(t *testing.T) {
	t.Parallel()
	for _, v03 := range []bool{false, true} {
		for _, tr := range []a2a.TransportProtocol{a2a.TransportProtocolJSONRPC, a2a.TransportProtocolHTTPJSON, a2a.TransportProtocolGRPC} {
			name := string(tr)
			args := []string{"--transport", "rest,jsonrpc,grpc"}
			if v03 {
				name += "-v03"
				args = append(args, "--protocol", "0.3")
			}
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				_, srv := startA3S(t, a3sagent.A3S, args...)
				c := libClient(t, srv.url, tr, v03)
				ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
				defer cancel()
				var text strings.Builder
				var last a2a.TaskState
				var task a2a.TaskInfo
				for ev, err := range c.SendStreamingMessage(ctx, &a2a.SendMessageRequest{Message: a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("please write hello.txt"))}) {
					if err != nil {
						t.Fatalf("stream: %v", err)
					}
					switch v := ev.(type) {
					case *a2a.TaskArtifactUpdateEvent:
						for _, p := range v.Artifact.Parts {
							text.WriteString(p.Text())
						}
					case *a2a.TaskStatusUpdateEvent:
						last, task = v.Status.State, a2a.TaskInfo{TaskID: v.TaskID, ContextID: v.ContextID}
					case *a2a.Task:
						last, task = v.Status.State, a2a.TaskInfo{TaskID: v.ID, ContextID: v.ContextID}
					}
				}
				if last != a2a.TaskStateInputRequired {
					t.Fatalf("first turn ended %v, want input-required", last)
				}
				answer := a2a.NewMessage(a2a.MessageRoleUser, a2a.NewDataPart(map[string]any{"tool_call_id": "call-1", "selected_option_id": "proceed_once"}))
				answer.TaskID, answer.ContextID = task.TaskID, task.ContextID
				res, err := c.SendMessage(ctx, &a2a.SendMessageRequest{Message: answer})
				if err != nil {
					t.Fatalf("answer: %v", err)
				}
				got, ok := res.(*a2a.Task)
				if !ok || got.Status.State != a2a.TaskStateCompleted {
					t.Fatalf("answer result %#v, want a completed task", res)
				}
				var all strings.Builder
				for _, a := range got.Artifacts {
					for _, p := range a.Parts {
						all.WriteString(p.Text())
					}
				}
				if want := "I'll write hello.txt.\nI wrote hello.txt."; all.String() != want || text.String() != "I'll write hello.txt.\n" {
					t.Errorf("artifact %q (streamed before the prompt %q), want %q", all.String(), text.String(), want)
				}
			})
		}
	}
}

// TestA3SChatPTY chats with an A3S agent on a terminal: a permission approved at the prompt, a second message in
// the same conversation (the same A3S session), a new conversation (a new session) whose permission is rejected.
func TestA3SChatPTY(t *testing.T) {
	t.Parallel()
	agent, srv := startA3S(t, a3sagent.A3S)
	p := startPTY(t, "chat", srv.url, "--workspace", t.TempDir())
	p.waitFor("chatting with")
	p.answer("> ", "please write hello.txt\r")
	p.answer("[Y]es once / [a]lways / [n]o", "y\r")
	p.waitFor("bash echo hi > hello.txt - succeeded")
	p.waitFor("I wrote hello.txt.")
	p.answer("> ", "hello again\r")
	p.waitFor("echo: hello again")
	p.answer("> ", "/new\r")
	p.answer("(new conversation)", "please write hello.txt\r")
	p.answer("[Y]es once / [a]lways / [n]o", "n\r")
	p.waitFor("bash echo hi > hello.txt - cancelled")
	p.waitFor("> ")
	p.write("\x04") // Ctrl-D
	p.wantSuccess()
	for _, want := range []string{"StreamGenerate sess-1 hello again", "ConfirmToolExecution sess-1 call-1 true", "ConfirmToolExecution sess-2 call-1 false"} {
		if !agent.Called(want) {
			t.Errorf("agent calls %q, want %q", agent.Calls(), want)
		}
	}
}

// TestA3SSessionsFollowRetention: a context whose tasks retention dropped loses its A3S session; shutdown ends the
// rest.
func TestA3SSessionsFollowRetention(t *testing.T) {
	t.Parallel()
	agent, srv := startA3S(t, a3sagent.A3S, "--max-tasks", "1")
	wantCode(t, run(t, "", "send", srv.url, "first context"), 0)
	wantCode(t, run(t, "", "send", srv.url, "second context"), 0) // its task pushes the first one out
	wantCode(t, run(t, "", "send", srv.url, "third context"), 0)  // the turn that notices
	if !agent.Called("DestroySession sess-1") {
		t.Errorf("agent calls %q, want DestroySession sess-1 once its context's task was dropped", agent.Calls())
	}
	srv.stop(t)
	if !agent.Called("DestroySession sess-3") {
		t.Errorf("agent calls %q, want DestroySession sess-3 at shutdown", agent.Calls())
	}
}

// TestA3SDialectNeverMisread: with --a3s-dialect forced to the other shape, an agent that answers anyway (a lenient
// decoder) has its chunks refused, not misread; a strict one refuses the request.
func TestA3SDialectNeverMisread(t *testing.T) {
	t.Parallel()
	tests := []struct {
		shape   a3sagent.Shape
		lenient bool
		dialect string
		want    string
	}{
		{a3sagent.A3S, true, "seed", "the agent sends the a3s shape of GenerateChunk (type as a string), but --a3s-dialect is seed"},
		{a3sagent.Seed, true, "a3s", "the agent sends the seed shape of GenerateChunk (type as an enum), but --a3s-dialect is a3s"},
		{a3sagent.A3S, false, "seed", "StreamGenerate: a3s.code.agent.v1.Message has fields of another shape (InvalidArgument)"},
	}
	for _, tt := range tests {
		t.Run(tt.shape.String()+"-as-"+tt.dialect, func(t *testing.T) {
			t.Parallel()
			agent := a3sagent.Start(t, a3sagent.Options{Shape: tt.shape, Lenient: tt.lenient})
			srv := startServe(t, "--a3s", agent.Addr, "--a3s-dialect", tt.dialect)
			r := run(t, "", "send", srv.url, "hello")
			wantCode(t, r, 0)
			wantContains(t, "stdout", r.stdout, "failed", tt.want)
			if strings.Contains(r.stdout, "echo: hello") {
				t.Errorf("the other shape's content came through:\n%s", r.stdout)
			}
		})
	}
}

// A coding agent runs tools for whoever calls: beyond loopback the bridge needs a token, like --exec.
func TestA3SNeedsTokenBeyondLoopback(t *testing.T) {
	t.Parallel()
	r := run(t, "", "serve", "--a3s", "127.0.0.1:1", "--host", "0.0.0.0", "--port", "0")
	wantCode(t, r, 2)
	wantContains(t, "stderr", r.stderr, "--host 0.0.0.0 makes the server reachable from other machines: give it a --token")
	r = run(t, "", "serve", "--a3s", "localhost", "--port", "0")
	wantCode(t, r, 2)
	wantContains(t, "stderr", r.stderr, `invalid A3S address "localhost": want HOST:PORT`)
}

package e2e

import (
	"strings"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/a2acli/a2a/internal/testagent"
	"github.com/a2acli/a2a/internal/testagent/wire"
)

// TestGRPCOnlyPort: a gRPC agent whose port speaks only gRPC (its card lives elsewhere). With --transport grpc the
// URL is the endpoint; without it, the error says what the port is. Guards against "malformed HTTP response".
func TestGRPCOnlyPort(t *testing.T) {
	t.Parallel()
	ag := testagent.Start(t, testagent.Options{Transport: a2a.TransportProtocolGRPC})
	grpcURL := "http://" + ag.Endpoint

	r := run(t, "", "send", "--transport", "grpc", grpcURL, "over grpc", "-o", "json")
	wantCode(t, r, 0)
	task := sendTask(t, r)
	if task.Status.State != a2a.TaskStateCompleted {
		t.Fatalf("state %s, want completed\n%s", task.Status.State, r)
	}
	wantContains(t, "stdout", r.stdout, "echo: over grpc")

	r = run(t, "", "get", "task", "--transport", "grpc", grpcURL, string(task.ID))
	wantCode(t, r, 0)
	if field(r.stdout, "State") != "completed" {
		t.Fatalf("get task over the gRPC-only port\n%s", r)
	}

	// A gRPC error names its status, not only the message a2a-go keeps.
	r = run(t, "", "get", "task", "--transport", "grpc", grpcURL, "no-such-task", "-o", "json")
	wantCode(t, r, 1)
	doc := errorDoc(t, r)
	if doc["code"] != "TaskNotFoundError" {
		t.Fatalf("error document %v, want TaskNotFoundError", doc)
	}
	wantContains(t, "message", doc["message"].(string), "(gRPC status NotFound)")

	r = run(t, "", "send", grpcURL, "no transport")
	wantCode(t, r, 1)
	wantContains(t, "stderr", r.stderr, "the port answers in HTTP/2 frames", "hint: add --transport grpc")

	// Most gRPC agents in the wild speak v0.3 (service a2a.v1.A2AService): without a card to say so, the endpoint
	// is asked, and one that serves only v0.3 is spoken to in v0.3 on the opt-in alone (the a2a-cli specification,
	// §13.2): unasked, an error that says how to ask.
	v03 := testagent.Start(t, testagent.Options{Transport: a2a.TransportProtocolGRPC, V03: true})
	r = run(t, "", "send", "--transport", "grpc", "http://"+v03.Endpoint, "old grpc", "-v")
	wantCode(t, r, 1)
	wantContains(t, "stderr", r.stderr, "speaking A2A v0.3", "speaks only A2A 0.3 (its gRPC endpoint serves only the v0.3 service)",
		"hint: speak 0.3 to it with --a2a-version 0.3")
	if n := len(v03.Calls()); n != 0 {
		t.Fatalf("%d calls reached the v0.3 agent without the opt-in", n)
	}
	r = run(t, "", "send", "--transport", "grpc", "--a2a-version", "0.3", "http://"+v03.Endpoint, "old grpc")
	wantCode(t, r, 0)
	wantContains(t, "stdout", r.stdout, "State: completed", "echo: old grpc")
	r = run(t, "", "send", "--stream", "--transport", "grpc", "--a2a-version", "0.3", "http://"+v03.Endpoint, "old grpc stream")
	wantCode(t, r, 0)
	wantContains(t, "stdout", r.stdout, "State: completed", "echo: old grpc stream")
}

// TestREST201 runs every verb against a v0.3 REST agent that answers POST /v1/message:send with 201 Created, as the
// a2a-js SDK 0.3 line does. a2a-go alone fails every call there with "internal error".
func TestREST201(t *testing.T) {
	t.Parallel()
	ag := wire.Start(t, wire.Options{Kind: wire.REST201})

	r := run(t, "", "--a2a-version", "0.3", "discover", ag.URL)
	wantCode(t, r, 0)
	wantContains(t, "discover", r.stdout, "HTTP+JSON")

	// --immediate: one SendMessage (a plain send streams where the card says the agent streams).
	r = run(t, "", "--a2a-version", "0.3", "send", ag.URL, "created", "--immediate", "-o", "json")
	wantCode(t, r, 0)
	task := sendTask(t, r)
	if task.Status.State != a2a.TaskStateCompleted || !strings.Contains(r.stdout, "echo: created") {
		t.Fatalf("send over 201\n%s", r)
	}
	if ag.Count("POST /v1/message:send") != 1 {
		t.Fatalf("calls %v, want one POST /v1/message:send", ag.Calls())
	}

	r = run(t, "", "--a2a-version", "0.3", "send", ag.URL, "text mode")
	wantCode(t, r, 0)
	wantContains(t, "send", r.stdout, "State: completed", "echo: text mode")

	r = run(t, "", "--a2a-version", "0.3", "send", "--stream", ag.URL, "streamed", "-o", "json")
	wantCode(t, r, 0)
	events, errDoc := jsonLines(t, r.stdout)
	if errDoc != nil || lastState(t, events) != a2a.TaskStateCompleted {
		t.Fatalf("send --stream\n%s", r)
	}

	r = run(t, "", "--a2a-version", "0.3", "get", "task", ag.URL, string(task.ID))
	wantCode(t, r, 0)
	wantContains(t, "get task", r.stdout, "Task ID: "+string(task.ID), "State: completed")

	r = run(t, "", "--a2a-version", "0.3", "subscribe", ag.URL, string(task.ID))
	wantCode(t, r, 0)
	wantContains(t, "subscribe", r.stdout, "completed")

	r = run(t, "", "--a2a-version", "0.3", "cancel", ag.URL, string(task.ID))
	wantCode(t, r, 0)
	wantContains(t, "cancel", r.stdout, "State: canceled")

	// An error in the a2a-js shape ({"code":-32001,"message":…} with HTTP 404) is the protocol error it names.
	r = run(t, "", "--a2a-version", "0.3", "get", "task", ag.URL, "nope", "-o", "json")
	wantCode(t, r, 1)
	doc := errorDoc(t, r)
	if doc["code"] != "TaskNotFoundError" || doc["a2aCode"] != float64(-32001) {
		t.Fatalf("error document %v, want TaskNotFoundError -32001\n%s", doc, r)
	}
	wantContains(t, "error message", doc["message"].(string), "Task not found: nope")
}

// TestErrorNamesTheAnswer: an answer no binding can read (an HTML 502 from a proxy) is reported with its status,
// content type and first bytes, never as a bare "internal error"/"server error"; -v shows the exchange.
func TestErrorNamesTheAnswer(t *testing.T) {
	t.Parallel()
	for _, rest := range []bool{false, true} {
		name := "jsonrpc"
		if rest {
			name = "rest"
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			ag := wire.Start(t, wire.Options{Kind: wire.HTMLError, REST: rest})
			for _, args := range [][]string{{"send", ag.URL, "hi"}, {"send", "--stream", ag.URL, "hi"}, {"get", "task", ag.URL, "t1"}} {
				r := run(t, "", args...)
				wantCode(t, r, 1)
				wantContains(t, "stderr", r.stderr, "HTTP 502 Bad Gateway, text/html; charset=utf-8", `<title>502 Bad Gateway</title>`)
				for _, bare := range []string{"a2a: internal error", "a2a: server error", ": internal error\n", ": server error\n"} {
					if strings.Contains(r.stderr, bare) {
						t.Fatalf("%v: bare error %q\n%s", args, bare, r)
					}
				}
			}
			r := run(t, "", "send", ag.URL, "hi", "-v")
			wantCode(t, r, 1)
			wantContains(t, "stderr -v", r.stderr, "< 502 Bad Gateway", "Content-Type: text/html", "< body", "<h1>502 Bad Gateway</h1>")
		})
	}
}

// TestStreamingCallJSONRPCError: an agent that answers a streaming call with a plain JSON-RPC error (HTTP 200,
// application/json, as the Python SDK does) fails the command with that error. It used to exit 0 with no output.
func TestStreamingCallJSONRPCError(t *testing.T) {
	t.Parallel()
	ag := wire.Start(t, wire.Options{Kind: wire.RPCErrorStream})

	r := run(t, "", "subscribe", ag.URL, "unknown-task", "-o", "json")
	wantCode(t, r, 1)
	doc := errorDoc(t, r)
	if doc["code"] != "TaskNotFoundError" || doc["a2aCode"] != float64(-32001) {
		t.Fatalf("error document %v, want TaskNotFoundError -32001\n%s", doc, r)
	}
	wantContains(t, "message", doc["message"].(string), "task not found: unknown-task")
	if strings.Count(r.stdout, "\n") != 1 {
		t.Fatalf("want exactly the error document on stdout\n%s", r)
	}

	r = run(t, "", "subscribe", ag.URL, "unknown-task")
	wantCode(t, r, 1)
	wantContains(t, "stderr", r.stderr, "a2a: ", "task not found: unknown-task")
	if r.stdout != "" {
		t.Fatalf("stdout not empty\n%s", r)
	}

	r = run(t, "", "send", "--stream", ag.URL, "hi", "-o", "json")
	wantCode(t, r, 1)
	_, errDocLine := jsonLines(t, r.stdout)
	if errDocLine == nil || errDocLine["code"] != "TaskNotFoundError" {
		t.Fatalf("send --stream: want the error document\n%s", r)
	}
}

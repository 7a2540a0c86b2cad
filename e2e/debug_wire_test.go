package e2e

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// startRawStreamAgent is a plain net/http JSON-RPC agent (not our serve) whose streaming answer carries what a
// hostile or careless agent may send: an event-stream comment with a raw terminal escape sequence, and a task whose
// metadata holds a credential-named member.
func startRawStreamAgent(t *testing.T) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/.well-known/") {
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"name":"raw","description":"raw bytes","version":"1","supportedInterfaces":[{"url":"http://%s","protocolBinding":"JSONRPC","protocolVersion":"1.0"}],"capabilities":{"streaming":true},"defaultInputModes":["text/plain"],"defaultOutputModes":["text/plain"],"skills":[]}`, r.Host)
			return
		}
		var req struct {
			ID json.RawMessage `json:"id"`
		}
		if err := json.NewDecoder(io.LimitReader(r.Body, 1<<20)).Decode(&req); err != nil || len(req.ID) == 0 {
			req.ID = json.RawMessage(`null`)
		}
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, ": hello \x1b]0;pwned\x07 there\n\n")
		fmt.Fprintf(w, `data: {"jsonrpc":"2.0","id":%s,"result":{"task":{"id":"t1","contextId":"c1","status":{"state":"TASK_STATE_COMPLETED"},"metadata":{"apiKey":"leak-me","note":"visible"}}}}`+"\n\n", req.ID)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// TestDebugRawWire: --debug is the raw wire, distinct from -v (the a2a-cli specification, §7.2): every body whole
// (-v shows the first 16 KiB), each event-stream line as it arrives, each gRPC message; credentials masked whatever
// the flag (§12.1), and bytes from the network escaped, never passed to the terminal.
func TestDebugRawWire(t *testing.T) {
	t.Parallel()
	echo := startServe(t, "--echo", "--transport", "jsonrpc,grpc", "--quiet")

	// A body longer than -v's 16 KiB: -v cuts it, --debug shows it whole.
	long := strings.Repeat("x", 40<<10) + "END-OF-LONG-MESSAGE"
	r := run(t, "", "send", echo.url, long, "--blocking", "-o", "raw", "-v")
	wantCode(t, r, 0)
	if strings.Contains(r.stderr, "END-OF-LONG-MESSAGE") || !strings.Contains(r.stderr, "…(truncated)") {
		t.Fatalf("-v: want the long body cut\n%.2000s", r.stderr)
	}
	r = run(t, "", "send", echo.url, long, "--blocking", "-o", "raw", "--debug")
	wantCode(t, r, 0)
	if n := strings.Count(r.stderr, "END-OF-LONG-MESSAGE"); n < 2 {
		t.Fatalf("--debug: the long body is in the log %d times, want the request's and the answer's", n)
	}

	// An event stream, line by line, under --debug only; credentials masked in headers and bodies alike.
	r = run(t, "", "send", echo.url, "streamed", "--stream", "--debug", "--bearer", "s3cret-bearer", "--auth-undeclared",
		"--svc-param", "X-Upstream-Token=s3cret-svc")
	wantCode(t, r, 0)
	wantContains(t, "stderr", r.stderr, "* < sse data: {", `"statusUpdate"`, "Authorization: ***", "X-Upstream-Token: ***")
	if strings.Contains(r.stderr, "s3cret") {
		t.Fatalf("--debug printed a credential\n%s", r.stderr)
	}
	r2 := run(t, "", "send", echo.url, "streamed", "--stream", "-v")
	if strings.Contains(r2.stderr, "< sse") {
		t.Fatalf("-v logs the event stream line by line; only --debug does\n%s", r2)
	}

	// gRPC: each message sent and received.
	r = run(t, "", "send", echo.url, "over grpc", "--transport", "grpc", "--debug")
	wantCode(t, r, 0)
	wantContains(t, "stderr", r.stderr, "* grpc > /lf.a2a.v1.A2AService/SendStreamingMessage {", `"over grpc"`, "* grpc < /lf.a2a.v1.A2AService/SendStreamingMessage {")
	if r := run(t, "", "send", echo.url, "over grpc", "--transport", "grpc", "-v"); strings.Contains(r.stderr, "grpc >") {
		t.Fatalf("-v logs gRPC messages; only --debug does\n%s", r)
	}

	// A hostile stream: the escape sequence is shown escaped, the credential-named member masked.
	raw := startRawStreamAgent(t)
	r = run(t, "", "send", raw, "hi", "--stream", "--debug")
	wantCode(t, r, 0)
	wantContains(t, "stderr", r.stderr, `* < sse : hello \x1b]0;pwned\x07 there`, `"note":"visible"`)
	for _, bad := range []string{"\x1b", "\x07", "leak-me", "s3cret"} {
		if strings.Contains(r.stderr, bad) {
			t.Fatalf("--debug printed %q\n%s", bad, r.stderr)
		}
	}
}

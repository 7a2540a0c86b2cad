package e2e

import (
	"net/http"
	"strings"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/a2acli/a2a/internal/testagent"
)

// TestProxyFastCommands: the Gemini server's custom endpoints and JSON-RPC methods reach the
// upstream through the proxy's byte-level path, and the traffic log has a line for each.
func TestProxyFastCommands(t *testing.T) {
	t.Parallel()
	up := startServe(t, "--replay", recording("commands.jsonl"), "--transport", "jsonrpc", "--quiet")
	proxy := startServe(t, "--proxy", up.url, "--transport", "jsonrpc")
	checkCalls(t, proxy.url, commandCalls)
	proxy.stop(t)
	wantContains(t, "proxy log", proxy.Log(), "GET /listCommands task=- state=-", "POST /executeCommand task=- state=-",
		`error="HTTP 404"`, "commands/get task=- state=-")
}

// TestProxyFastHeaders: on the byte-level path --svc-param and --auth reach the upstream, and so do
// the caller's own headers (the decoding path forwards the same ones: package proxy's header policy).
func TestProxyFastHeaders(t *testing.T) {
	t.Parallel()
	ag := testagent.Start(t, testagent.Options{Transport: a2a.TransportProtocolHTTPJSON, RequireAuth: "Bearer right"})
	proxy := startServe(t, "--proxy", ag.URL, "--auth", "Bearer right", "--svc-param", "X-Trace=1")
	req, err := http.NewRequest(http.MethodPost, proxy.url+"/message:send",
		strings.NewReader(`{"message":{"messageId":"m1","role":"ROLE_USER","parts":[{"text":"hi"}]}}`))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer caller")
	req.Header.Set("Traceparent", "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("POST /message:send through the proxy = %d, want 200", resp.StatusCode)
	}
	calls := ag.Calls()
	if len(calls) != 1 {
		t.Fatalf("upstream saw %d calls, want 1", len(calls))
	}
	p := http.Header(calls[0].Params)
	if p.Get("Authorization") != "Bearer right" || p.Get("X-Trace") != "1" || p.Get("Traceparent") == "" {
		t.Fatalf("upstream saw Authorization=%q X-Trace=%q Traceparent=%q; want the injected ones and the caller's traceparent",
			p.Get("Authorization"), p.Get("X-Trace"), p.Get("Traceparent"))
	}
	proxy.stop(t)
	if log := proxy.Log(); !strings.Contains(log, "SendMessage task=") || strings.Contains(log, "right") || strings.Contains(log, "caller") {
		t.Fatalf("proxy log lacks the call or shows a credential:\n%s", log)
	}
}

package e2e

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// rawHTTP writes one HTTP/1.1 request by hand on a fresh connection (the target exactly as given: no client
// cleans or escapes it) and returns the answer's status and body. hdr may set Host and Content-Type (a body is
// application/json otherwise).
func rawHTTP(t testing.TB, hostport, method, target string, hdr map[string]string, body string) (int, string) {
	t.Helper()
	conn, err := net.Dial("tcp", hostport)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	host, ctype := hostport, "application/json"
	var b strings.Builder
	for k, v := range hdr {
		switch k {
		case "Host":
			host = v
		case "Content-Type":
			ctype = v
		default:
			fmt.Fprintf(&b, "%s: %s\r\n", k, v)
		}
	}
	if body != "" {
		fmt.Fprintf(&b, "Content-Type: %s\r\nContent-Length: %d\r\n", ctype, len(body))
	}
	req := fmt.Sprintf("%s %s HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n%s\r\n%s", method, target, host, b.String(), body)
	if _, err := io.WriteString(conn, req); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("%s %s: %v", method, target, err)
	}
	defer resp.Body.Close()
	rb, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(rb)
}

// recordingUpstream is a hand-written agent (JSON-RPC at /rpc, REST under /api, both v1.0) that records every
// request that reaches it, with the Authorization it carried, and answers A2A calls with a completed task and
// anything else 200 "admin done" (as an admin endpoint that trusts the operator's credential would).
type recordingUpstream struct {
	*httptest.Server
	mu   sync.Mutex
	seen []string // "METHOD REQUEST-URI auth=…" and " key=…" when an X-Api-Key came
}

func startRecordingUpstream(t *testing.T) *recordingUpstream {
	t.Helper()
	u := &recordingUpstream{}
	u.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		u.mu.Lock()
		seen := r.Method + " " + r.RequestURI + " auth=" + r.Header.Get("Authorization")
		if k := r.Header.Get("X-Api-Key"); k != "" {
			seen += " key=" + k
		}
		u.seen = append(u.seen, seen)
		u.mu.Unlock()
		const task = `{"id":"t-1","contextId":"c-1","status":{"state":"TASK_STATE_COMPLETED"}}`
		w.Header().Set("Content-Type", "application/json")
		switch {
		case r.URL.Path == "/.well-known/agent-card.json":
			base := "http://" + r.Host
			fmt.Fprintf(w, `{"name":"recorder","description":"records","version":"1","capabilities":{},
				"defaultInputModes":["text/plain"],"defaultOutputModes":["text/plain"],"skills":[],
				"supportedInterfaces":[{"url":%q,"protocolBinding":"JSONRPC","protocolVersion":"1.0"},
				{"url":%q,"protocolBinding":"HTTP+JSON","protocolVersion":"1.0"}]}`, base+"/rpc", base+"/api")
		case r.URL.Path == "/rpc" && r.Method == http.MethodPost:
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"task":%s}}`, rpcID(r), task)
		case r.URL.Path == "/api/message:send":
			fmt.Fprintf(w, `{"task":%s}`, task)
		case r.URL.Path == "/api/tasks/t-1":
			io.WriteString(w, task)
		default:
			io.WriteString(w, `{"admin":"done"}`)
		}
	}))
	t.Cleanup(u.Close)
	return u
}

func (u *recordingUpstream) requests() []string {
	u.mu.Lock()
	defer u.mu.Unlock()
	return append([]string(nil), u.seen...)
}

// TestProxyForwardsOnlyA2ARoutes: the proxy forwards with the operator's --auth only what an A2A
// binding routes. Admin paths, other methods, dotfiles and paths that clean to another route are answered 404 and
// never reach the upstream; the A2A calls of each binding still do, with the operator's credential. Requests are
// written by hand, so no client cleans their paths.
func TestProxyForwardsOnlyA2ARoutes(t *testing.T) {
	t.Parallel()
	up := startRecordingUpstream(t)
	proxy := startServe(t, "--proxy", up.URL, "--auth", "Bearer op-secret", "--transport", "jsonrpc,rest")
	hp := strings.TrimPrefix(proxy.url, "http://")

	for _, r := range []struct{ method, target, body string }{
		{"GET", "/admin/delete-all", ""},
		{"POST", "/admin/delete-all", `{}`},
		{"DELETE", "/api/users/1", ""},
		{"GET", "/.env", ""},
		{"POST", "/jsonrpc/../admin", rpcSend},
		{"GET", "/jsonrpc/../admin", ""},
		{"GET", "/tasks/../../admin", ""},
		{"GET", "/tasks/..%2F..%2Fadmin", ""},
		{"GET", "/tasks/t-1/..", ""},
		{"GET", "/tasks/t-1\\..\\..\\admin", ""},
		{"GET", "/./tasks/t-1", ""},
		{"GET", "//tasks/t-1", ""},
		{"DELETE", "/tasks/t-1", ""},
		{"PUT", "/message:send", restSend},
		{"GET", "/message:send", ""},
		{"GET", "/tasks/t-1/admin", ""},
		{"GET", "/tasks/t-1:purge", ""},
		{"GET", "/", ""},
		{"POST", "/listCommands", `{}`},
	} {
		code, body := rawHTTP(t, hp, r.method, r.target, nil, r.body)
		if code != http.StatusNotFound || strings.Contains(body, "admin") {
			t.Errorf("%s %s through the proxy = %d %.200q, want 404 from the proxy itself", r.method, r.target, code, body)
		}
	}
	// The A2A calls of both bindings still go through, with the operator's credential.
	for _, r := range []struct{ method, target, body string }{
		{"POST", "/jsonrpc", rpcSend},
		{"POST", "/message:send", restSend},
		{"GET", "/tasks/t-1", ""},
	} {
		if code, body := rawHTTP(t, hp, r.method, r.target, map[string]string{"A2A-Version": "1.0"}, r.body); code != http.StatusOK || !strings.Contains(body, "t-1") {
			t.Errorf("%s %s through the proxy = %d %.200q, want 200 and the upstream's task", r.method, r.target, code, body)
		}
	}
	var calls []string
	for _, s := range up.requests() {
		if strings.HasPrefix(s, "GET /.well-known/agent-card.json ") {
			continue
		}
		calls = append(calls, s)
	}
	want := []string{"POST /rpc auth=Bearer op-secret", "POST /api/message:send auth=Bearer op-secret", "GET /api/tasks/t-1 auth=Bearer op-secret"}
	if strings.Join(calls, "\n") != strings.Join(want, "\n") {
		t.Fatalf("the upstream saw\n%s\nwant only\n%s", strings.Join(calls, "\n"), strings.Join(want, "\n"))
	}
}

// TestProxyForwardsOnlyA2ARoutesV03: the same rule on a v0.3 front (REST under /v1/, JSON-RPC at /): its calls reach
// the upstream (decoded, as the upstream speaks v1.0), anything else under /v1/ is answered 404 and never reaches it.
func TestProxyForwardsOnlyA2ARoutesV03(t *testing.T) {
	t.Parallel()
	up := startRecordingUpstream(t)
	proxy := startServe(t, "--proxy", up.URL, "--auth", "Bearer op-secret", "--transport", "jsonrpc,rest", "--protocol", "0.3")
	hp := strings.TrimPrefix(proxy.url, "http://")
	for _, r := range []struct{ method, target string }{
		{"GET", "/v1/../admin"},
		{"GET", "/v1/admin"},
		{"DELETE", "/v1/tasks/t-1"},
		{"GET", "/v1/tasks/t-1/secrets"},
		{"POST", "/v1/tasks/t-1:purge"},
		{"GET", "/jsonrpc"},
	} {
		if code, body := rawHTTP(t, hp, r.method, r.target, nil, ""); code != http.StatusNotFound {
			t.Errorf("%s %s through the v0.3 proxy = %d %.200q, want 404", r.method, r.target, code, body)
		}
	}
	send := `{"message":{"messageId":"m-1","role":"user","parts":[{"kind":"text","text":"hi"}]}}`
	if code, body := rawHTTP(t, hp, "POST", "/v1/message:send", nil, send); code != http.StatusOK || !strings.Contains(body, "t-1") {
		t.Errorf("POST /v1/message:send through the v0.3 proxy = %d %.200q, want 200 and the upstream's task", code, body)
	}
	for _, s := range up.requests() {
		if !strings.HasPrefix(s, "GET /.well-known/agent-card.json ") && s != "POST /rpc auth=Bearer op-secret" {
			t.Errorf("the upstream saw %q", s)
		}
	}
}

// TestProxyDevtoolPathsGetNoCredentials: the development tool's own paths (GET /listCommands, POST /executeCommand)
// are no A2A endpoint of the upstream's card: the proxy forwards them to its origin without the operator's --auth
// and --svc-param (nor a caller's value of those names), while the A2A calls still carry them.
func TestProxyDevtoolPathsGetNoCredentials(t *testing.T) {
	t.Parallel()
	up := startRecordingUpstream(t)
	proxy := startServe(t, "--proxy", up.URL, "--auth", "Bearer op-secret", "--svc-param", "X-Api-Key=op-key",
		"--transport", "jsonrpc,rest")
	hp := strings.TrimPrefix(proxy.url, "http://")
	hdr := map[string]string{"A2A-Version": "1.0", "X-Api-Key": "caller-key", "Authorization": "Bearer caller"}
	for _, r := range []struct{ method, target, body string }{
		{"GET", "/listCommands", ""},
		{"POST", "/executeCommand", `{"command":"rm","args":[]}`},
		{"POST", "/message:send", restSend},
	} {
		if code, body := rawHTTP(t, hp, r.method, r.target, hdr, r.body); code != http.StatusOK {
			t.Errorf("%s %s through the proxy = %d %.200q, want the upstream's 200", r.method, r.target, code, body)
		}
	}
	up.mu.Lock()
	defer up.mu.Unlock()
	want := map[string]string{"/listCommands": "", "/executeCommand": "", "/api/message:send": "Bearer op-secret key=op-key"}
	seen := 0
	for _, s := range up.seen {
		for path, auth := range want {
			if strings.Contains(s, " "+path+" ") {
				seen++
				if got := s[strings.Index(s, " auth=")+len(" auth="):]; got != auth {
					t.Errorf("the upstream saw %q: credentials %q, want %q", s, got, auth)
				}
			}
		}
	}
	if seen != len(want) {
		t.Errorf("the upstream saw %q, want one call to each of the three paths", up.seen)
	}
}

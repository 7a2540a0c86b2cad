package serve_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/a2acli/a2a/internal/serve"
	"github.com/a2acli/a2a/internal/serve/proxy"
	"github.com/a2acli/a2a/internal/serve/servetest"
	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2aclient"
	"github.com/google/go-cmp/cmp"
)

// fakeUpstream is an HTTP agent whose card puts JSON-RPC v1.0 at /rpc and REST v1.0 under /api;
// every other request goes to h, which also sees the A2A calls.
type fakeUpstream struct {
	srv *httptest.Server
	mu  sync.Mutex
	got []seenRequest
}

type seenRequest struct {
	Method, Path, Body string
	Header             http.Header
}

func startFakeUpstream(t *testing.T, h http.HandlerFunc) *fakeUpstream {
	t.Helper()
	u := &fakeUpstream{}
	u.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/.well-known/agent-card.json" {
			base := "http://" + r.Host
			writeJSON(w, http.StatusOK, []byte(`{"name":"fake","description":"d","version":"1","supportedInterfaces":[`+
				`{"url":"`+base+`/rpc","protocolBinding":"JSONRPC","protocolVersion":"1.0"},`+
				`{"url":"`+base+`/api","protocolBinding":"HTTP+JSON","protocolVersion":"1.0"}],`+
				`"capabilities":{"streaming":true},"defaultInputModes":["text/plain"],"defaultOutputModes":["text/plain"],"skills":[]}`))
			return
		}
		body, _ := io.ReadAll(r.Body) // a broken body shows as a short one in the test's comparison
		u.mu.Lock()
		u.got = append(u.got, seenRequest{r.Method, r.URL.RequestURI(), string(body), r.Header.Clone()})
		u.mu.Unlock()
		h(w, r)
	}))
	t.Cleanup(u.srv.Close)
	return u
}

func (u *fakeUpstream) last(t *testing.T) seenRequest {
	t.Helper()
	u.mu.Lock()
	defer u.mu.Unlock()
	if len(u.got) == 0 {
		t.Fatal("the upstream saw no request")
	}
	return u.got[len(u.got)-1]
}

func fixedAnswer(ct, body string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", ct)
		w.Header().Set("A2A-Extensions", "https://ext.example/back")
		_, _ = io.WriteString(w, body) // the caller went away: nothing to do
	}
}

// rawCall sends body to url and returns the status and the whole answer.
func rawCall(t *testing.T, method, url, body string, header http.Header) (int, http.Header, string) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json") // what every A2A client sends; conform.go refuses others
	}
	for k, v := range header {
		req.Header[k] = v
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s: read: %v", method, url, err)
	}
	return resp.StatusCode, resp.Header, string(out)
}

var bothFronts = []a2a.TransportProtocol{a2a.TransportProtocolHTTPJSON, a2a.TransportProtocolJSONRPC}

// TestProxyFastPassthrough: requests and answers cross the proxy byte for byte, unknown fields
// included, on the path the upstream card gives; other paths reach the upstream's origin.
func TestProxyFastPassthrough(t *testing.T) {
	t.Parallel()
	answer := `{"task":{"id":"t1","contextId":"c1","status":{"state":"TASK_STATE_COMPLETED"},"x-unknown":{"keep":[1,2.50,"me"]}}}`
	up := startFakeUpstream(t, fixedAnswer("application/json", answer))
	px := startServer(t, serve.Config{Backend: proxy.New(proxy.Config{Connect: servetest.Connector(up.srv.URL)}), Quiet: true, Transports: bothFronts})
	cases := []struct {
		method, path, body, wantPath string
	}{
		{"POST", "/jsonrpc", `{"jsonrpc":"2.0","id":7,"method":"SendMessage","params":{"message":{"messageId":"m","role":"ROLE_USER","parts":[{"text":"hi"}]},"x-extra":  true}}`, "/rpc"},
		{"POST", "/message:send", `{"message":{"messageId":"m","role":"ROLE_USER","parts":[{"text":"hi"}]},"metadata":{"https://ext.example/k":{"deep":"v"}}}`, "/api/message:send"},
		{"GET", "/tasks/t1?historyLength=2", "", "/api/tasks/t1?historyLength=2"},
		{"GET", "/acme/tasks/t1", "", "/api/acme/tasks/t1"},
		{"GET", "/listCommands", "", "/listCommands"},
		{"POST", "/executeCommand", `{"command":"memory show","args":[]}`, "/executeCommand"},
	}
	for _, tc := range cases {
		code, hdr, got := rawCall(t, tc.method, px.URL+tc.path, tc.body, nil)
		if code != http.StatusOK || got != answer {
			t.Errorf("%s %s = %d %s, want 200 and the upstream's bytes", tc.method, tc.path, code, got)
		}
		if ext := hdr.Get("A2A-Extensions"); ext != "https://ext.example/back" {
			t.Errorf("%s %s: A2A-Extensions = %q, want the upstream's", tc.method, tc.path, ext)
		}
		seen := up.last(t)
		if diff := cmp.Diff(seenRequest{Method: tc.method, Path: tc.wantPath, Body: tc.body}, seenRequest{seen.Method, seen.Path, seen.Body, nil}); diff != "" {
			t.Errorf("%s %s: upstream saw (-want +got):\n%s", tc.method, tc.path, diff)
		}
	}
}

// TestProxyFastHeaders: configured headers are injected, the caller's Authorization passes unless
// the proxy brings its own, A2A-Extensions merges.
func TestProxyFastHeaders(t *testing.T) {
	t.Parallel()
	up := startFakeUpstream(t, fixedAnswer("application/json", `{}`))
	caller := http.Header{"Authorization": {"Bearer caller"}, "A2a-Extensions": {"https://ext.example/a"}, "X-Caller": {"c"}}
	cases := []struct {
		name     string
		cfg      proxy.Config
		wantAuth string
		wantExt  []string
		wantSvc  string
	}{
		{"pass-through", proxy.Config{}, "Bearer caller", []string{"https://ext.example/a"}, ""},
		{"injected", proxy.Config{AuthInjected: true, Headers: map[string][]string{
			"Authorization": {"Bearer proxy"}, "x-svc": {"s"}, "A2A-Extensions": {"https://ext.example/b,https://ext.example/a"}}},
			"Bearer proxy", []string{"https://ext.example/a", "https://ext.example/b"}, "s"},
	}
	for _, tc := range cases {
		tc.cfg.Connect = servetest.Connector(up.srv.URL)
		px := startServer(t, serve.Config{Backend: proxy.New(tc.cfg), Quiet: true})
		rawCall(t, "POST", px.URL+"/message:send", `{}`, caller)
		h := up.last(t).Header
		if h.Get("Authorization") != tc.wantAuth || h.Get("X-Svc") != tc.wantSvc || h.Get("X-Caller") != "c" {
			t.Errorf("%s: upstream saw Authorization=%q X-Svc=%q X-Caller=%q, want %q %q c", tc.name,
				h.Get("Authorization"), h.Get("X-Svc"), h.Get("X-Caller"), tc.wantAuth, tc.wantSvc)
		}
		if diff := cmp.Diff(tc.wantExt, h.Values("A2A-Extensions")); diff != "" {
			t.Errorf("%s: A2A-Extensions upstream (-want +got):\n%s", tc.name, diff)
		}
	}
}

// TestProxyFastStreamFlushes: each event reaches the caller as the upstream sends it, while the
// upstream's stream is still open; the log line counts the events and keeps the last state.
func TestProxyFastStreamFlushes(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	up := startFakeUpstream(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, `data: {"jsonrpc":"2.0","id":1,"result":{"task":{"id":"t9","status":{"state":"TASK_STATE_WORKING"}}}}`+"\n\n")
		w.(http.Flusher).Flush()
		<-release
		io.WriteString(w, `data: {"jsonrpc":"2.0","id":1,"result":{"statusUpdate":{"taskId":"t9","status":{"state":"TASK_STATE_COMPLETED"}}}}`+"\n\n")
	})
	log := &servetest.SyncBuffer{}
	px := startServer(t, serve.Config{Backend: proxy.New(proxy.Config{Connect: servetest.Connector(up.srv.URL)}), Log: log, Transports: bothFronts})
	resp, err := http.Post(px.URL+"/jsonrpc", "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"SendStreamingMessage","params":{}}`))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	rd := bufio.NewReader(resp.Body)
	first, err := rd.ReadString('\n')
	if err != nil || !strings.Contains(first, "TASK_STATE_WORKING") {
		t.Fatalf("first line = %q, %v; want the working event before the upstream goes on", first, err)
	}
	close(release)
	rest, err := io.ReadAll(rd)
	if err != nil || !strings.Contains(string(rest), "TASK_STATE_COMPLETED") {
		t.Fatalf("rest of the stream = %q, %v; want the completed event", rest, err)
	}
	resp.Body.Close()
	px.Shutdown()
	if out := log.String(); !strings.Contains(out, "SendStreamingMessage task=t9 state=completed ") || !strings.Contains(out, " events=2") {
		t.Errorf("log lacks the stream's line:\n%s", out)
	}
}

// TestProxyFastUpstreamDown: a dead upstream gives an error in the caller's binding, at once.
func TestProxyFastUpstreamDown(t *testing.T) {
	t.Parallel()
	down := func(context.Context) (*a2aclient.Client, *a2a.AgentCard, error) {
		return nil, nil, errors.New("dial tcp: connection refused")
	}
	gone := httptest.NewServer(http.NotFoundHandler())
	gone.Close()
	up := startFakeUpstream(t, fixedAnswer("application/json", `{}`))
	upURL := up.srv.URL
	// The upstream answers the card, then every other request fails at the transport.
	dying := func(ctx context.Context) (*a2aclient.Client, *a2a.AgentCard, error) {
		c, card, err := servetest.Connector(upURL)(ctx)
		if err == nil {
			for _, iface := range card.SupportedInterfaces {
				iface.URL = strings.Replace(iface.URL, upURL, gone.URL, 1)
			}
		}
		return c, card, err
	}
	for _, tc := range []struct {
		name    string
		connect func(context.Context) (*a2aclient.Client, *a2a.AgentCard, error)
		want    string
	}{
		{"unreachable", down, "upstream unreachable: dial tcp: connection refused"},
		{"dead", dying, "connection refused"},
	} {
		px := startServer(t, serve.Config{Backend: proxy.New(proxy.Config{Connect: tc.connect}), Quiet: true, Transports: bothFronts})
		code, _, body := rawCall(t, "POST", px.URL+"/jsonrpc", `{"jsonrpc":"2.0","id":"q1","method":"SendMessage","params":{"message":{"messageId":"m","role":"ROLE_USER","parts":[{"text":"x"}]}}}`, nil)
		var rpc struct {
			ID    string `json:"id"`
			Error struct {
				Code    int    `json:"code"`
				Message string `json:"message"`
			} `json:"error"`
		}
		if err := json.Unmarshal([]byte(body), &rpc); err != nil || code != http.StatusOK || rpc.ID != "q1" || rpc.Error.Code != -32000 || !strings.Contains(rpc.Error.Message, tc.want) {
			t.Errorf("%s: JSON-RPC = %d %s, want a -32000 error for id q1 naming %q", tc.name, code, body, tc.want)
		}
		code, _, body = rawCall(t, "POST", px.URL+"/message:send", `{"message":{"messageId":"m","role":"ROLE_USER","parts":[{"text":"x"}]}}`, nil)
		if code != http.StatusInternalServerError || !strings.Contains(body, `"status":"INTERNAL"`) || !strings.Contains(body, tc.want) {
			t.Errorf("%s: REST = %d %s, want a google.rpc.Status error naming %q", tc.name, code, body, tc.want)
		}
		code, _, body = rawCall(t, "GET", px.URL+"/listCommands", "", nil)
		if code != http.StatusServiceUnavailable || !strings.Contains(body, `"status":"UNAVAILABLE"`) || !strings.Contains(body, tc.want) {
			t.Errorf("%s: GET /listCommands = %d %s, want a 503 JSON error naming %q", tc.name, code, body, tc.want)
		}
	}
}

// TestProxyFastUpstreamDiesMidStream: the caller's stream ends with an error event in its binding.
func TestProxyFastUpstreamDiesMidStream(t *testing.T) {
	t.Parallel()
	sent := make(chan struct{})
	var up *fakeUpstream
	up = startFakeUpstream(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, `data: {"statusUpdate":{"taskId":"t3","status":{"state":"TASK_STATE_WORKING"}}}`+"\n\n")
		w.(http.Flusher).Flush()
		close(sent)
		<-r.Context().Done()
	})
	px := startServer(t, serve.Config{Backend: proxy.New(proxy.Config{Connect: servetest.Connector(up.srv.URL)}), Quiet: true})
	resp, err := http.Post(px.URL+"/message:stream", "application/json", strings.NewReader(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	<-sent
	up.srv.CloseClientConnections()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("stream = %q, %v; want a clean end", body, err)
	}
	events := strings.Split(strings.TrimSpace(string(body)), "\n\n")
	if len(events) != 2 || !strings.Contains(events[1], `"error":{"code":500`) || !strings.Contains(events[1], `"message":"upstream: `) {
		t.Errorf("stream = %q, want the working event, then an error event", events)
	}
}

// TestProxyFastLog: one line per call with method, task, state and bytes; payloads and
// credentials redacted with -v.
func TestProxyFastLog(t *testing.T) {
	t.Parallel()
	up := startServer(t, serve.Config{Backend: serve.Echo(), Quiet: true, Transports: bothFronts})
	log := &servetest.SyncBuffer{}
	px := startServer(t, serve.Config{Backend: proxy.New(proxy.Config{Connect: servetest.Connector(up.URL)}), Log: log, Verbose: true, Transports: bothFronts})
	hdr := http.Header{"Authorization": {"Bearer s3cr3t"}, "Content-Type": {"application/json"}}
	_, _, body := rawCall(t, "POST", px.URL+"/jsonrpc", `{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"m","role":"ROLE_USER","parts":[{"data":{"api_token":"t0ken"}}]}}}`, hdr)
	var res struct {
		Result struct {
			Task struct {
				ID string `json:"id"`
			} `json:"task"`
		} `json:"result"`
	}
	if err := json.Unmarshal([]byte(body), &res); err != nil || res.Result.Task.ID == "" {
		t.Fatalf("SendMessage answer = %s, %v", body, err)
	}
	id := res.Result.Task.ID
	rawCall(t, "GET", px.URL+"/tasks/"+id, "", hdr)
	rawCall(t, "POST", px.URL+"/message:stream", `{"message":{"messageId":"m2","role":"ROLE_USER","parts":[{"text":"s"}]}}`, hdr)
	px.Shutdown()
	out := log.String()
	for _, want := range []string{
		"SendMessage task=" + id + " state=completed ",
		"GetTask task=" + id + " state=completed ",
		"SendStreamingMessage task=",
		"authorization=***",
		`"api_token":"***"`,
	} {
		if !strings.Contains(strings.ToLower(out), strings.ToLower(want)) {
			t.Errorf("log lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "s3cr3t") || strings.Contains(out, "t0ken") {
		t.Errorf("log leaks a credential:\n%s", out)
	}
	for _, line := range strings.Split(out, "\n") {
		if strings.Contains(line, " SendStreamingMessage task=") && (!strings.Contains(line, "state=completed") || !strings.Contains(line, "events=")) {
			t.Errorf("stream line = %q, want state=completed and an event count", line)
		}
	}
}

func writeJSON(w http.ResponseWriter, code int, body []byte) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_, _ = w.Write(body) // the client went away: nothing to do
}

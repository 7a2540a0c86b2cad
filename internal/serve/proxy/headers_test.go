package proxy

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2aclient"
	"github.com/a2aproject/a2a-go/v2/a2aclient/agentcard"
	"github.com/a2aproject/a2a-go/v2/a2asrv"
	"github.com/google/go-cmp/cmp"
)

// recordingUpstream is a plain net/http agent: its card puts JSON-RPC v1.0 at /rpc and REST v1.0
// under /api, it answers SendMessage with a completed task and keeps what each call brought.
type recordingUpstream struct {
	srv *httptest.Server
	mu  sync.Mutex
	got []arrived
}

// arrived is one call as the upstream saw it: its headers and the request its body decodes to.
type arrived struct {
	header http.Header
	req    *a2a.SendMessageRequest
}

func startRecordingUpstream(t *testing.T) *recordingUpstream {
	t.Helper()
	u := &recordingUpstream{}
	task := &a2a.Task{ID: "t1", ContextID: "c1", Status: a2a.TaskStatus{State: a2a.TaskStateCompleted}}
	result, err := json.Marshal(a2a.StreamResponse{Event: task})
	if err != nil {
		t.Fatal(err)
	}
	u.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		base := "http://" + r.Host
		body, _ := io.ReadAll(r.Body) // a body cut short decodes to nothing, which the test reports
		switch r.URL.Path {
		case "/.well-known/agent-card.json":
			_, _ = io.WriteString(w, `{"name":"rec","description":"d","version":"1","supportedInterfaces":[`+
				`{"url":"`+base+`/rpc","protocolBinding":"JSONRPC","protocolVersion":"1.0"},`+
				`{"url":"`+base+`/api","protocolBinding":"HTTP+JSON","protocolVersion":"1.0"}],`+
				`"capabilities":{"streaming":true},"defaultInputModes":["text/plain"],"defaultOutputModes":["text/plain"],"skills":[]}`)
			return
		case "/rpc":
			var env struct {
				ID     json.RawMessage         `json:"id"`
				Params *a2a.SendMessageRequest `json:"params"`
			}
			_ = json.Unmarshal(body, &env) // nil params: reported by the test
			u.record(r.Header, env.Params)
			_, _ = w.Write([]byte(`{"jsonrpc":"2.0","id":` + string(env.ID) + `,"result":` + string(result) + `}`))
		case "/api/message:send":
			var req a2a.SendMessageRequest
			if json.Unmarshal(body, &req) != nil {
				u.record(r.Header, nil)
			} else {
				u.record(r.Header, &req)
			}
			_, _ = w.Write(result)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(u.srv.Close)
	return u
}

func (u *recordingUpstream) record(h http.Header, req *a2a.SendMessageRequest) {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.got = append(u.got, arrived{h.Clone(), req})
}

func (u *recordingUpstream) last(t *testing.T) arrived {
	t.Helper()
	u.mu.Lock()
	defer u.mu.Unlock()
	if len(u.got) == 0 {
		t.Fatal("the upstream got no call")
	}
	return u.got[len(u.got)-1]
}

// setParams puts the configured headers on every upstream call, over the caller's: what the
// upstream client of `a2a serve --proxy` does with --svc-param and --auth.
type setParams struct {
	a2aclient.PassthroughInterceptor
	params map[string][]string
}

func (p setParams) Before(ctx context.Context, req *a2aclient.Request) (context.Context, any, error) {
	for k, v := range p.params {
		for have := range req.ServiceParams {
			if strings.EqualFold(have, k) {
				delete(req.ServiceParams, have)
			}
		}
		req.ServiceParams[k] = v
	}
	return ctx, nil, nil
}

// testRoutes is the route table of the server the test puts the proxy in: JSON-RPC v1.0 at
// /jsonrpc, REST v1.0 at /message:send.
type testRoutes struct{}

func (testRoutes) Classify(r *http.Request) Route {
	switch r.URL.Path {
	case "/jsonrpc":
		return Route{Kind: A2A, Binding: Binding{a2a.TransportProtocolJSONRPC, "1.0"}}
	case "/message:send":
		return Route{Kind: A2A, Binding: Binding{a2a.TransportProtocolHTTPJSON, "1.0"}, Method: "SendMessage"}
	}
	return Route{Kind: Other, Method: r.Method + " " + r.URL.Path}
}

func (testRoutes) RPCMethod(m string) string { return m }

// startProxy serves the proxy as package serve mounts it: the byte path in front of a2asrv's
// handlers over the proxy. bytes false sends every A2A call down the decoding path.
func startProxy(t *testing.T, cfg Config, bytes bool) string {
	t.Helper()
	x, err := newProxy(cfg, Env{Log: discardLog{}, Routes: testRoutes{}, Fallback: &a2a.AgentCard{Name: "fallback"}, Bytes: bytes})
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle("POST /jsonrpc", a2asrv.NewJSONRPCHandler(x.Handler()))
	mux.Handle("/", a2asrv.NewRESTHandler(x.Handler()))
	srv := httptest.NewServer(x.Front(mux))
	t.Cleanup(func() {
		srv.Close()
		if err := x.Shutdown(context.Background()); err != nil {
			t.Error(err)
		}
	})
	return srv.URL
}

// TestHeaderPolicyBothPaths: the byte path and the decoding path forward the same headers of the
// caller and the same known fields of its message, on both HTTP bindings, with and without the
// proxy's own credentials. Hop-by-hop headers (and those the caller's Connection header names)
// reach the upstream on neither; representation headers (Content-Type, Accept, A2A-Version, ...)
// follow the body each path sends and are not compared.
func TestHeaderPolicyBothPaths(t *testing.T) {
	t.Parallel()
	up := startRecordingUpstream(t)
	connect := func(params map[string][]string) func(ctx context.Context) (*a2aclient.Client, *a2a.AgentCard, error) {
		return func(ctx context.Context) (*a2aclient.Client, *a2a.AgentCard, error) {
			card, err := agentcard.DefaultResolver.Resolve(ctx, up.srv.URL)
			if err != nil {
				return nil, nil, err
			}
			c, err := a2aclient.NewFromCard(ctx, card, a2aclient.WithCallInterceptors(setParams{params: params}))
			return c, card, err
		}
	}
	forwarded := http.Header{
		"Authorization": {"Bearer caller"}, "A2a-Extensions": {"https://ext.example/a"}, "X-Custom": {"a", "b"},
		"Cookie": {"k=v"}, "User-Agent": {"tester/1"}, "Traceparent": {"00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"},
		"X-Forwarded-For": {"10.0.0.1"}, "Forwarded": {"for=10.0.0.1"}, "Baggage": {"k=v"},
	}
	never := http.Header{
		"Keep-Alive": {"timeout=5"}, "Proxy-Authorization": {"Basic eDp5"}, "Proxy-Custom": {"p"},
		"Connection": {"X-Hop"}, "X-Hop": {"gone"}, "Te": {"trailers"}, "Grpc-Timeout": {"1S"},
	}
	msg := `{"messageId":"m1","role":"ROLE_USER","parts":[{"text":"hi"},{"data":{"k":[1,2]}}],` +
		`"metadata":{"m":"v"},"extensions":["https://ext.example/a"],"contextId":"c1"}`
	bodies := map[string]string{
		"/jsonrpc":      `{"jsonrpc":"2.0","id":7,"method":"SendMessage","params":{"message":` + msg + `,"metadata":{"r":1}}}`,
		"/message:send": `{"message":` + msg + `,"metadata":{"r":1}}`,
	}
	cases := []struct {
		name     string
		cfg      Config
		wantAuth string
	}{
		{"caller's credentials", Config{}, "Bearer caller"},
		{"proxy's credentials", Config{AuthInjected: true, Headers: map[string][]string{"Authorization": {"Bearer proxy"}, "X-Svc": {"s"}}}, "Bearer proxy"},
	}
	for _, tc := range cases {
		tc.cfg.Connect = connect(tc.cfg.Headers)
		byteURL, decodeURL := startProxy(t, tc.cfg, true), startProxy(t, tc.cfg, false)
		for path, body := range bodies {
			send := func(base string) arrived {
				t.Helper()
				req, err := http.NewRequest(http.MethodPost, base+path, strings.NewReader(body))
				if err != nil {
					t.Fatal(err)
				}
				for _, h := range []http.Header{forwarded, never} {
					for k, v := range h {
						req.Header[k] = v
					}
				}
				req.Header.Set("Content-Type", "application/json")
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				answer, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if resp.StatusCode != http.StatusOK || !strings.Contains(string(answer), `"t1"`) {
					t.Fatalf("%s %s: %d %s", tc.name, path, resp.StatusCode, answer)
				}
				return up.last(t)
			}
			byBytes, byDecoding := send(byteURL), send(decodeURL)
			for _, got := range []struct {
				path string
				a    arrived
			}{{"byte", byBytes}, {"decoding", byDecoding}} {
				for k := range never {
					if v, ok := got.a.header[k]; ok {
						t.Errorf("%s %s: the %s path forwarded %s: %q", tc.name, path, got.path, k, v)
					}
				}
				if a := got.a.header.Get("Authorization"); a != tc.wantAuth {
					t.Errorf("%s %s: the %s path sent Authorization %q, want %q", tc.name, path, got.path, a, tc.wantAuth)
				}
				if got.a.req == nil || got.a.req.Message == nil {
					t.Fatalf("%s %s: the %s path's body did not decode to a message", tc.name, path, got.path)
				}
			}
			for k := range forwarded {
				if diff := cmp.Diff(byBytes.header.Values(k), byDecoding.header.Values(k)); diff != "" {
					t.Errorf("%s %s: %s differs (-byte +decoding):\n%s", tc.name, path, k, diff)
				}
			}
			for k := range tc.cfg.Headers {
				if diff := cmp.Diff(tc.cfg.Headers[k], byDecoding.header.Values(k)); diff != "" {
					t.Errorf("%s %s: configured %s on the decoding path (-want +got):\n%s", tc.name, path, k, diff)
				}
				if diff := cmp.Diff(tc.cfg.Headers[k], byBytes.header.Values(k)); diff != "" {
					t.Errorf("%s %s: configured %s on the byte path (-want +got):\n%s", tc.name, path, k, diff)
				}
			}
			if diff := cmp.Diff(byBytes.req, byDecoding.req); diff != "" {
				t.Errorf("%s %s: the message differs (-byte +decoding):\n%s", tc.name, path, diff)
			}
		}
	}
}

// TestHeaderPolicyGRPCMetadata: a call that came in over gRPC reaches the decoding path with the
// gRPC transport's metadata among its service parameters; only the caller's own headers go on, and
// binary metadata, which no HTTP field can carry, is dropped instead of failing the upstream call.
func TestHeaderPolicyGRPCMetadata(t *testing.T) {
	t.Parallel()
	params := map[string][]string{
		":authority": {"127.0.0.1:1"}, "content-type": {"application/grpc"}, "grpc-accept-encoding": {"gzip"},
		"te": {"trailers"}, "user-agent": {"grpc-go/1.70.0"}, "x-ok": {"v"}, "trace-bin": {"\x00\x01\x02"},
		"authorization": {"Bearer caller"},
	}
	seq := func(yield func(string, []string) bool) {
		for k, v := range params {
			if !yield(k, v) {
				return
			}
		}
	}
	got := newHeaderPolicy(Config{}).decoded(seq)
	want := a2aclient.ServiceParams{"user-agent": {"grpc-go/1.70.0"}, "x-ok": {"v"}, "authorization": {"Bearer caller"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("forwarded service parameters (-want +got):\n%s", diff)
	}
}

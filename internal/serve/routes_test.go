package serve

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/a2acli/a2a/internal/serve/tasks"
	"github.com/a2acli/a2a/internal/serve/traffic"
)

// TestRoutesAgree ties the places that route a request together: the mux buildServers mounts from
// the route table (transports.go, with the hot path of package hotpath on the v1.0 bindings) and
// classify (routes.go, what the proxy and the conformance layer ask), which must name the binding
// and protocol version the mux hands the request to. For every set of fronts, each probe asks for
// an unknown task in the shape of one binding (and, for JSON-RPC, one version); the server answers
// TaskNotFound exactly when that binding took the request, and classify must say so. REST probes
// tell the version by the answer: v0.3's REST handler writes its errors as application/problem+json.
func TestRoutesAgree(t *testing.T) {
	t.Parallel()
	const host = "127.0.0.1:4000"
	rpcBody := map[string]string{
		v1Version:  `{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"id":"nope"}}`,
		v03Version: `{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":{"id":"nope"}}`,
	}
	type probe struct {
		method, path, body string
		want               frontKey // the binding and version that answers TaskNotFound for this probe
	}
	var probes []probe
	for _, p := range []string{JSONRPCPath, "/"} {
		for v, body := range rpcBody {
			probes = append(probes, probe{http.MethodPost, p, body, frontKey{a2a.TransportProtocolJSONRPC, v}})
		}
	}
	// REST: both versions' decoders are lenient, so the probe is the same for both and the answer
	// tells the version (/v1/ is v0.3's prefix when v0.3 is served, a tenant otherwise).
	for _, p := range []string{"/tasks/nope", "/acme/tasks/nope", "/v1/tasks/nope"} {
		probes = append(probes, probe{http.MethodGet, p, "", frontKey{binding: a2a.TransportProtocolHTTPJSON}})
	}

	for _, trs := range [][]a2a.TransportProtocol{
		{a2a.TransportProtocolHTTPJSON}, {a2a.TransportProtocolJSONRPC}, {a2a.TransportProtocolHTTPJSON, a2a.TransportProtocolJSONRPC},
	} {
		for _, proto := range []string{"", "0.3"} {
			for _, compat := range []bool{false, true} {
				cfg := Config{Transports: trs, Protocol: proto, CardCompat: compat, Quiet: true}
				if err := cfg.normalize(); err != nil {
					t.Fatal(err)
				}
				_, parts := (&Env{Config: &cfg, Store: tasks.NewStore(0, 0, nil), Log: traffic.New(traffic.Config{Quiet: true})}).TaskParts(echoAgent{})
				srv := buildServers(&cfg, host, parts, traffic.New(traffic.Config{Quiet: true}), false)
				fronts := frontsOf(&cfg)
				name := fmt.Sprintf("%v protocol=%q compat=%v", trs, proto, compat)
				for _, p := range probes {
					r := httptest.NewRequest(p.method, p.path, strings.NewReader(p.body))
					r.Host = host
					if p.body != "" {
						r.Header.Set("Content-Type", "application/json")
					}
					fr := fronts.classify(r)
					// A backend (the proxy) reads the same table through Env.Routes.
					if rt := (Routes{fronts}).Classify(r); rt.Binding != fr.key.binding || rt.Version != fr.key.version ||
						(rt.Kind == RouteA2A) != (fr.kind == frontA2A) || rt.Method != fr.method || rt.TaskID != fr.taskID || rt.Exact != fr.exact {
						t.Errorf("%s: %s %s: Routes.Classify %+v, classify's %+v", name, p.method, p.path, rt, fr)
					}
					w := httptest.NewRecorder()
					srv.http.Handler.ServeHTTP(w, r)
					want := p.want
					if want.binding == a2a.TransportProtocolHTTPJSON {
						want.version = v1Version
						if strings.HasPrefix(w.Header().Get("Content-Type"), "application/problem+json") {
							want.version = v03Version
						}
					}
					got, answered := answeredBy(want, w.Body.String())
					switch {
					case answered && (fr.kind != frontA2A || fr.key != got):
						t.Errorf("%s: %s %s: answered by %s %s (%d %.100q), classify says %+v",
							name, p.method, p.path, got.binding, got.version, w.Code, w.Body.String(), fr)
					case !answered && fr.kind == frontA2A && fr.key.binding == p.want.binding && (p.want.version == "" || fr.key == p.want):
						t.Errorf("%s: %s %s: classify says %s %s, which did not answer (%d %.100q)",
							name, p.method, p.path, p.want.binding, p.want.version, w.Code, w.Body.String())
					}
				}
				_ = parts.Shutdown(t.Context())
			}
		}
	}
}

// answeredBy tells whether the binding and version a probe is shaped for answered it with
// TaskNotFound: a JSON-RPC probe is a call only its version decodes, and only JSON-RPC answers in an envelope.
func answeredBy(probe frontKey, body string) (frontKey, bool) {
	if !strings.Contains(body, "TASK_NOT_FOUND") && !strings.Contains(body, "-32001") && !strings.Contains(body, "TaskNotFound") {
		return frontKey{}, false
	}
	return probe, strings.Contains(body, `"jsonrpc"`) == (probe.binding == a2a.TransportProtocolJSONRPC)
}

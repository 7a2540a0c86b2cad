package serve

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/a2acli/a2a/internal/serve/tasks"
)

// TestRoutesAgree ties the places that route a request together: the mux buildServers mounts
// (transports.go, with the hot path of package hotpath on the v1.0 bindings) and the proxy's
// classify (proxyroute.go), which must name the binding and protocol version the mux hands the
// request to. For every set of fronts, each probe asks for an unknown task in the shape of one
// binding (and, for JSON-RPC, one version); the server answers TaskNotFound exactly when that binding
// took the request, and classify must say so.
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
	// REST: both versions' decoders are lenient, so the probe only tells that a REST binding took the
	// request (the version is the path's: /v1/ is v0.3's prefix when v0.3 is served, a tenant otherwise).
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
				parts := taskBackend(&Env{Config: &cfg, Store: tasks.NewStore(0, 0, nil)}, echoAgent{})
				srv := buildServers(&cfg, host, parts, &trafficLog{quiet: true}, false)
				fronts := frontsOf(&cfg)
				name := fmt.Sprintf("%v protocol=%q compat=%v", trs, proto, compat)
				for _, p := range probes {
					r := httptest.NewRequest(p.method, p.path, strings.NewReader(p.body))
					r.Host = host
					if p.body != "" {
						r.Header.Set("Content-Type", "application/json")
					}
					fr := fronts.classify(r)
					w := httptest.NewRecorder()
					srv.http.Handler.ServeHTTP(w, r)
					got, answered := answeredBy(p.want, w.Body.String())
					if p.want.binding == a2a.TransportProtocolHTTPJSON {
						fr.key.version = "" // REST probes check the binding only
					}
					switch {
					case answered && (fr.kind != frontA2A || fr.key != got):
						t.Errorf("%s: %s %s: answered by %s %s (%d %.100q), classify says %+v",
							name, p.method, p.path, got.binding, got.version, w.Code, w.Body.String(), fr)
					case !answered && fr.kind == frontA2A && fr.key == p.want:
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

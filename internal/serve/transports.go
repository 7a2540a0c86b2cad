package serve

import (
	"net/http"
	"strings"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2acompat/a2av0"
	grpcv0 "github.com/a2aproject/a2a-go/v2/a2agrpc/v0"
	grpcv1 "github.com/a2aproject/a2a-go/v2/a2agrpc/v1"
	"github.com/a2aproject/a2a-go/v2/a2asrv"
	"google.golang.org/grpc"

	"github.com/a2acli/a2a/internal/serve/hotpath"
)

// versions says which protocol versions are served.
type versions struct{ v1, v03 bool }

// mountREST mounts the REST binding as the route table (restMounts) places it. fast says whether
// the hot calls take the fast path (package hotpath), d (when not nil) detaches its streams from
// net/http.
func mountREST(mux *http.ServeMux, h a2asrv.RequestHandler, ver versions, fast bool, d *hotpath.Detacher) {
	for _, mt := range (httpFronts{rest: true, v1: ver.v1, v03: ver.v03}).restMounts() {
		switch mt.version {
		case v1Version:
			plain := a2asrv.NewRESTHandler(h)
			if fast {
				plain = hotpath.REST(h, d, refusal(frontKey{a2a.TransportProtocolHTTPJSON, v1Version}))
			}
			mux.Handle(mt.prefix, timestampAlias(tenantRouter(plain, a2asrv.NewTenantRESTHandler("/{*}", h))))
		case v03Version:
			mux.Handle(mt.prefix, a2av0.NewRESTHandler(h))
		}
	}
}

// timestampAlias accepts lastUpdatedAfter as a name for statusTimestampAfter in ListTasks queries: a2a-go's v1.0 REST
// client sends the former while its handler reads only the latter, so `list tasks --since` would be ignored.
func timestampAlias(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet && strings.Contains(r.URL.RawQuery, "lastUpdatedAfter=") {
			q := r.URL.Query()
			if q.Get("statusTimestampAfter") == "" {
				q.Set("statusTimestampAfter", q.Get("lastUpdatedAfter"))
				r = r.Clone(r.Context())
				r.URL.RawQuery = q.Encode()
			}
		}
		next.ServeHTTP(w, r)
	})
}

// tenantRouter sends REST paths that start with a tenant ("/acme/message:send", what a2a-go's REST client sends for
// --tenant) to tenanted, and the protocol's own paths to plain.
func tenantRouter(plain, tenanted http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		first, _, _ := strings.Cut(strings.TrimPrefix(r.URL.Path, "/"), "/")
		switch {
		case first == "", strings.HasPrefix(first, "message:"), first == "tasks", strings.HasPrefix(first, "tasks:"),
			strings.HasPrefix(first, "extendedAgentCard"), strings.HasPrefix(first, "card"), strings.HasPrefix(first, ".well-known"):
			plain.ServeHTTP(w, r)
		default:
			tenanted.ServeHTTP(w, r)
		}
	})
}

// mountJSONRPC mounts the JSON-RPC endpoints as the route table (jsonrpcAt) places them.
func mountJSONRPC(mux *http.ServeMux, h a2asrv.RequestHandler, ver versions, fast bool, d *hotpath.Detacher) {
	fronts := httpFronts{jsonrpc: true, v1: ver.v1, v03: ver.v03}
	rpc := a2asrv.NewJSONRPCHandler(h)
	if fast {
		rpc = hotpath.JSONRPC(h, d, refusal(frontKey{a2a.TransportProtocolJSONRPC, v1Version}))
	}
	for path, pattern := range map[string]string{JSONRPCPath: "POST " + JSONRPCPath, "/": "POST /{$}"} {
		switch fronts.jsonrpcAt(path) {
		case v1Version:
			mux.Handle(pattern, rpc)
		case v03Version:
			mux.Handle(pattern, a2av0.NewJSONRPCHandler(h))
		}
	}
}

// newGRPCServer registers the v1.0 service (lf.a2a.v1.A2AService) and/or the v0.3 one
// (a2a.v1.A2AService); their names differ, so both live on one server.
// opts come first: the guard's interceptors (guard.go) run before the conformance ones.
func newGRPCServer(h a2asrv.RequestHandler, ver versions, opts ...grpc.ServerOption) *grpc.Server {
	opts = append(opts, grpc.ChainUnaryInterceptor(grpcUnaryConform), grpc.ChainStreamInterceptor(grpcStreamConform))
	s := grpc.NewServer(opts...)
	if ver.v1 {
		grpcv1.NewHandler(h).RegisterWith(s)
	}
	if ver.v03 {
		grpcv0.NewHandler(h).RegisterWith(s)
	}
	return s
}

package serve

import (
	"net/http"
	"net/url"
	pathpkg "path"
	"slices"
	"strings"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2acompat/a2av0"
	"github.com/a2aproject/a2a-go/v2/a2asrv"
)

// Routes is the server's route table over HTTP as a backend reads it (Env.Routes): Run mounts its mux from the
// same table, and TestRoutesAgree holds the two together. The zero Routes routes nothing (every path is
// RouteOther).
type Routes struct{ f httpFronts }

// RouteKind says who answers a request, by the route table.
type RouteKind int

// The kinds of request.
const (
	RouteOurs  RouteKind = iota // served by the server whatever the backend: the agent card
	RouteA2A                    // an A2A call on one of the server's HTTP bindings
	RouteOther                  // a path none of the bindings owns: GET /listCommands, a browser's /robots.txt
)

// Route is a request as the route table classifies it.
type Route struct {
	Kind RouteKind
	// Binding and Version ("1.0" or "0.3") name where the mux hands an A2A call.
	Binding a2a.TransportProtocol
	Version string
	// Method is the traffic log's name of the call: a REST call's from its route; "" for a JSON-RPC call,
	// whose body names it (RPCMethod); "GET /path" for another path.
	Method string
	TaskID string // a REST call's task, from its path
	// Exact is true when a binding routes the request, method and clean path both: a JSON-RPC POST, a REST
	// route of a2a-go's tables, the development tool's GET /listCommands and POST /executeCommand. Another
	// shape under a binding's path, a path with . or .. segments, is not.
	Exact bool
}

// Classify names the binding and protocol version the server's mux hands req to.
func (r Routes) Classify(req *http.Request) Route {
	fr := r.f.classify(req)
	return Route{Kind: RouteKind(fr.kind), Binding: fr.key.binding, Version: fr.key.version, Method: fr.method, TaskID: fr.taskID, Exact: fr.exact}
}

// RPCMethod is the traffic log's name of a JSON-RPC method of either protocol version ("message/send" and
// "SendMessage" are both "SendMessage").
func (Routes) RPCMethod(method string) string { return rpcMethodName(method) }

// frontKey is an HTTP binding at one protocol version ("1.0" or "0.3").
type frontKey struct {
	binding a2a.TransportProtocol
	version string
}

// frontKind says who answers a request reaching the proxy over HTTP.
type frontKind int

const (
	frontOurs  = frontKind(RouteOurs)  // served here whatever the backend (the agent card)
	frontA2A   = frontKind(RouteA2A)   // an A2A call on one of our HTTP bindings
	frontOther = frontKind(RouteOther) // a path none of our bindings owns, e.g. GET /listCommands
)

// front is a classified request: for REST calls the method and task come from the route, for
// JSON-RPC calls they are read from the body later.
type front struct {
	kind   frontKind
	key    frontKey
	method string
	taskID string
	// exact is true when the request is one a binding routes, method and clean path both: a JSON-RPC
	// POST, a REST route of a2a-go's tables, the development tool's GET /listCommands and POST
	// /executeCommand. The proxy forwards only these (the A2A calls with the operator's credentials, the
	// development tool's paths without them); a shape it
	// does not know, a path with . or .. segments, is answered 404 without reaching the upstream.
	exact bool
}

// httpFronts is what the server serves over HTTP, as buildServers mounts it.
type httpFronts struct {
	rest, jsonrpc bool
	v1, v03       bool
}

func frontsOf(cfg *Config) httpFronts {
	v03 := cfg.Protocol == "0.3"
	return httpFronts{
		rest:    slices.Contains(cfg.Transports, a2a.TransportProtocolHTTPJSON),
		jsonrpc: slices.Contains(cfg.Transports, a2a.TransportProtocolJSONRPC),
		v1:      !v03,
		v03:     v03 || cfg.CardCompat,
	}
}

// jsonrpcAt is the route table of the JSON-RPC binding: the protocol version a POST to path reaches
// (v1Version, v03Version), "" when none. The mux is mounted from it (mountJSONRPC) and the proxy
// classifies with it. v1.0 owns /jsonrpc; POST / is v0.3's when v0.3 is served (where v0.3 clients
// expect it), otherwise v1.0's too.
func (f httpFronts) jsonrpcAt(path string) string {
	switch {
	case !f.jsonrpc:
		return ""
	case path == JSONRPCPath && f.v1:
		return v1Version
	case path == "/" && f.v03:
		return v03Version
	case path == "/" && f.v1:
		return v1Version
	}
	return ""
}

// restMount is where the REST binding of one protocol version is mounted: the mux pattern prefix,
// and the part of a path under it that the version's handler routes on.
type restMount struct {
	prefix, strip, version string
}

// restMounts is the route table of the REST binding, most specific first: the mux is mounted from
// it (mountREST) and the proxy classifies with it. v0.3 owns /v1/ when it is served (where v0.3
// clients expect it); v1.0 takes every other path (tenant-prefixed or not), /v1/ too otherwise
// (a tenant named v1).
func (f httpFronts) restMounts() []restMount {
	var m []restMount
	if f.rest && f.v03 {
		m = append(m, restMount{prefix: a2av0.RESTPathPrefix + "/", strip: a2av0.RESTPathPrefix, version: v03Version})
	}
	if f.rest && f.v1 {
		m = append(m, restMount{prefix: "/", version: v1Version})
	}
	return m
}

const (
	v1Version  = string(a2a.Version)
	v03Version = string(a2av0.Version)
)

// classify names the binding the mux of buildServers hands r to (TestRoutesAgree ties the two):
// JSON-RPC where the route table puts it (jsonrpcAt), REST where restMounts puts it.
func (f httpFronts) classify(r *http.Request) front {
	path := r.URL.Path
	if path == a2asrv.WellKnownAgentCardPath || path == legacyCardPath {
		return front{kind: frontOurs, exact: true}
	}
	if v := f.jsonrpcAt(path); v != "" && r.Method == http.MethodPost {
		return front{kind: frontA2A, key: frontKey{a2a.TransportProtocolJSONRPC, v}, exact: true}
	}
	clean := cleanPath(path)
	for _, mt := range f.restMounts() {
		if !strings.HasPrefix(path, mt.prefix) {
			continue
		}
		if m, id, known, ok := restRoute(r.Method, strings.TrimPrefix(path, mt.strip)); ok {
			return front{kind: frontA2A, key: frontKey{a2a.TransportProtocolHTTPJSON, mt.version}, method: m, taskID: id, exact: known && clean}
		}
	}
	devtool := (r.Method == http.MethodGet && path == "/listCommands") || (r.Method == http.MethodPost && path == "/executeCommand")
	return front{kind: frontOther, method: r.Method + " " + path, exact: devtool}
}

// cleanPath reports a path with no empty, . or .. segment and no backslash: one an upstream cannot
// resolve to another route than the one classify named.
func cleanPath(p string) bool {
	return p == "/" || (strings.HasPrefix(p, "/") && pathpkg.Clean(p) == p && !strings.ContainsRune(p, '\\'))
}

// restRoute names the A2A REST call of method and path ("/tasks/abc:cancel"), a tenant segment
// first allowed. ok is false when the path is no A2A route; known is true when method and path are
// a route of a2a-go's REST tables (v1.0 and v0.3), false for another shape under a route's segment.
func restRoute(method, path string) (name, taskID string, known, ok bool) {
	segs := strings.Split(strings.TrimPrefix(path, "/"), "/")
	if !routeSegment(segs[0]) && len(segs) > 1 && routeSegment(segs[1]) {
		segs = segs[1:] // a tenant
	}
	if !routeSegment(segs[0]) {
		return "", "", false, false
	}
	name = method + " " + path // what the log shows for a shape it does not know
	get, post := method == http.MethodGet, method == http.MethodPost
	switch {
	case segs[0] == "message:send" && len(segs) == 1:
		name, known = "SendMessage", post
	case segs[0] == "message:stream" && len(segs) == 1:
		name, known = "SendStreamingMessage", post
	case segs[0] == "extendedAgentCard" || segs[0] == "card":
		name, known = "GetExtendedAgentCard", get && len(segs) == 1
	case segs[0] == "tasks" && len(segs) == 1:
		name, known = "ListTasks", get
	case segs[0] == "tasks":
		name, taskID, known = taskRoute(method, segs[1:])
	}
	return name, taskID, known, true
}

func routeSegment(s string) bool {
	return strings.HasPrefix(s, "message:") || s == "tasks" || s == "extendedAgentCard" || s == "card"
}

// taskRoute names the calls under /tasks/: segs is {"abc:cancel"}, {"abc", "pushNotificationConfigs"}, ….
// known is true when method and shape are a route of a2a-go's tables.
func taskRoute(method string, segs []string) (name, taskID string, known bool) {
	id, verb, _ := strings.Cut(segs[0], ":")
	taskID, _ = url.PathUnescape(id)
	get, post := method == http.MethodGet, method == http.MethodPost
	configs := len(segs) > 1 && segs[1] == "pushNotificationConfigs" && verb == "" && id != ""
	switch {
	case len(segs) == 1 && verb == "cancel":
		return "CancelTask", taskID, post && id != ""
	case len(segs) == 1 && verb == "subscribe":
		return "SubscribeToTask", taskID, (get || post) && id != ""
	case len(segs) == 1 && verb == "":
		return "GetTask", taskID, get && id != ""
	case len(segs) == 2 && method == http.MethodPost:
		return "CreateTaskPushConfig", taskID, configs
	case len(segs) == 2:
		return "ListTaskPushConfigs", taskID, configs && get
	case len(segs) == 3 && method == http.MethodDelete:
		return "DeleteTaskPushConfig", taskID, configs && segs[2] != ""
	case len(segs) == 3:
		return "GetTaskPushConfig", taskID, configs && get && segs[2] != ""
	}
	return method + " /tasks/" + strings.Join(segs, "/"), taskID, false
}

// rpcMethods maps the JSON-RPC method names of both protocol versions to the names the traffic
// log uses for every transport.
var rpcMethods = map[string]string{
	"GetTaskPushNotificationConfig":       "GetTaskPushConfig",
	"CreateTaskPushNotificationConfig":    "CreateTaskPushConfig",
	"ListTaskPushNotificationConfigs":     "ListTaskPushConfigs",
	"DeleteTaskPushNotificationConfig":    "DeleteTaskPushConfig",
	"message/send":                        "SendMessage",
	"message/stream":                      "SendStreamingMessage",
	"tasks/get":                           "GetTask",
	"tasks/list":                          "ListTasks",
	"tasks/cancel":                        "CancelTask",
	"tasks/resubscribe":                   "SubscribeToTask",
	"tasks/pushNotificationConfig/get":    "GetTaskPushConfig",
	"tasks/pushNotificationConfig/set":    "CreateTaskPushConfig",
	"tasks/pushNotificationConfig/list":   "ListTaskPushConfigs",
	"tasks/pushNotificationConfig/delete": "DeleteTaskPushConfig",
	"agent/getAuthenticatedExtendedCard":  "GetExtendedAgentCard",
}

func rpcMethodName(m string) string {
	if n, ok := rpcMethods[m]; ok {
		return n
	}
	if m == "" {
		return "-"
	}
	return m
}

// MajorMinor reduces a protocol version to the form a Route's Version carries: "0.3.0" to "0.3", "1" to "1.0",
// "v1.0" to "1.0"; "" stays "". The proxy keys its upstream's interfaces by it too.
func MajorMinor(v string) string {
	parts := strings.SplitN(strings.TrimPrefix(strings.TrimSpace(v), "v"), ".", 3)
	switch {
	case parts[0] == "":
		return ""
	case len(parts) == 1:
		return parts[0] + ".0"
	}
	return parts[0] + "." + parts[1]
}

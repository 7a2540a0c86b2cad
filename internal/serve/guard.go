package serve

import (
	"crypto/sha256"
	"crypto/subtle"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv"
	"github.com/a2aproject/a2a-go/v2/errordetails"

	"github.com/a2acli/a2a/internal/serve/traffic"
)

// Who may call serve, checked in front of everything it serves over HTTP (the fast path, a2asrv's handlers, the
// proxy's byte path, replay) before any of it reads the request:
//   - Host (DNS rebinding): on a loopback listener, only a loopback name or address, the --public-url's host or an
//     --allow-host name; a page on evil.example whose name was rebound to 127.0.0.1 sends Host: evil.example.
//   - Origin: a browser names the page that makes a call; only serve's own origin, the --public-url's and
//     --allow-origin ones pass, and only those get CORS headers. Clients that are not browsers send none and pass.
//   - the token: with Config.Token, every call but the agent card carries Authorization: Bearer <token>.
//   - the body: at most MaxRequestBytes, read within readTimeout, held as it arrives within a budget of all the
//     bodies in flight (guardlimits.go); the answer is written under a write deadline that
//     every write renews, so a stream may stay quiet for hours but a client that stops reading is let go.

// Defaults of the limits.
const (
	defaultMaxRequestBytes = 4 << 20 // gRPC's own default receive limit too
	defaultReadTimeout     = 60 * time.Second
	defaultWriteTimeout    = 60 * time.Second
	defaultIdleTimeout     = 120 * time.Second
)

// guard is the HTTP handler in front of the server's mux.
type guard struct {
	next      http.Handler
	loopback  bool            // the listener is on loopback: Host is checked
	hosts     map[string]bool // host names accepted besides loopback ones (lower case, no port)
	origins   map[string]bool // origins accepted besides serve's own (scheme://host[:port], lower case)
	anyOrigin bool            // --allow-origin '*'
	token     [sha256.Size]byte
	hasToken  bool
	maxBody   int64       // <0: no bound
	bodies    *bodyBudget // what bodies in flight hold together (guardlimits.go)
	readTO    time.Duration
	writeTO   time.Duration
	rpcRoot   bool         // POST / is JSON-RPC: errors there take JSON-RPC's shape
	scheme    string       // serve's own origin's scheme: http or https
	log       *traffic.Log // where gRPC refusals are logged (guardgrpc.go); nil => not logged
	inspector Inspector    // accepts its own credential under InspectorPath; nil => none
}

func newGuard(cfg *Config, next http.Handler, loopback bool) *guard {
	g := &guard{next: next, loopback: loopback, hosts: map[string]bool{}, origins: map[string]bool{},
		maxBody: cfg.MaxRequestBytes, readTO: cfg.readTimeout, writeTO: cfg.writeTimeout, scheme: cfg.scheme(),
		bodies: newBodyBudget(cfg.MaxRequestBytes)}
	for _, tr := range cfg.Transports {
		g.rpcRoot = g.rpcRoot || tr == a2a.TransportProtocolJSONRPC
	}
	for _, h := range cfg.AllowHosts {
		g.hosts[strings.ToLower(h)] = true
	}
	for _, o := range cfg.AllowOrigins {
		if o == "*" {
			g.anyOrigin = true
			continue
		}
		g.origins[strings.ToLower(strings.TrimSuffix(o, "/"))] = true
	}
	if u, err := url.Parse(cfg.PublicURL); err == nil && u.Host != "" {
		g.hosts[strings.ToLower(u.Hostname())] = true
		g.origins[strings.ToLower(u.Scheme+"://"+u.Host)] = true
	}
	if cfg.Token != "" {
		g.token, g.hasToken = sha256.Sum256([]byte(cfg.Token)), true
	}
	return g
}

// loopbackName reports whether host (no port) can only mean this machine: browsers resolve localhost and
// *.localhost to loopback themselves, so no DNS answer can rebind them.
func loopbackName(host string) bool {
	host = strings.ToLower(strings.TrimSuffix(host, "."))
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return true
	}
	ip := net.ParseIP(strings.Trim(host, "[]"))
	return ip != nil && ip.IsLoopback()
}

// hostOnly strips the port from a Host header value.
func hostOnly(hostport string) string {
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		return h
	}
	return strings.Trim(hostport, "[]")
}

// hostAllowed is the DNS-rebinding check of a Host header (or gRPC :authority).
func (g *guard) hostAllowed(hostport string) bool {
	if !g.loopback || hostport == "" { // no Host at all: HTTP/1.0, never a browser
		return true
	}
	h := hostOnly(hostport)
	return loopbackName(h) || g.hosts[strings.ToLower(strings.TrimSuffix(h, "."))]
}

// originAllowed reports whether a browser page of origin may call serve reached at host, and whether the answer
// needs CORS headers (it does for any origin but serve's own).
func (g *guard) originAllowed(origin, host string) (ok, cors bool) {
	o := strings.ToLower(origin)
	if o == g.scheme+"://"+strings.ToLower(host) {
		return true, false
	}
	if g.origins[o] {
		return true, true
	}
	return g.anyOrigin && o != "null", true
}

func (g *guard) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !g.hostAllowed(r.Host) {
		h := hostOnly(r.Host)
		g.refuse(w, r, http.StatusMisdirectedRequest, a2a.ErrUnauthorized, fmt.Sprintf(
			"a2a serve: Host %q refused: this server answers only loopback names (localhost, 127.0.0.1, [::1]) "+
				"and the --public-url's host; to accept this one, start it with --allow-host %s", h, h))
		return
	}
	if origin := r.Header.Get("Origin"); origin != "" {
		ok, cors := g.originAllowed(origin, r.Host)
		if !ok {
			g.refuse(w, r, http.StatusForbidden, a2a.ErrUnauthorized, fmt.Sprintf(
				"a2a serve: cross-origin request from %s refused: browsers may call this server only from its own "+
					"origin; to allow this one, start it with --allow-origin %s", origin, origin))
			return
		}
		if cors {
			h := w.Header()
			h.Set("Access-Control-Allow-Origin", origin)
			h.Add("Vary", "Origin")
			if r.Method == http.MethodOptions && r.Header.Get("Access-Control-Request-Method") != "" {
				h.Set("Access-Control-Allow-Methods", "GET, POST, DELETE, OPTIONS")
				if req := r.Header.Get("Access-Control-Request-Headers"); req != "" {
					h.Set("Access-Control-Allow-Headers", req)
				}
				h.Set("Access-Control-Max-Age", "600")
				w.WriteHeader(http.StatusNoContent)
				return
			}
		}
	}
	if g.hasToken && !cardPath(r) && !healthPath(r) && !favicon(r) && !g.tokenOK(r.Header.Get("Authorization")) && !g.inspectorOK(r) {
		w.Header().Set("WWW-Authenticate", `Bearer realm="a2a serve"`)
		g.refuse(w, r, http.StatusUnauthorized, a2a.ErrUnauthenticated,
			"a2a serve: this server needs its token: send Authorization: Bearer <token> (a2a --auth \"Bearer $TOKEN\")")
		return
	}
	if g.hasToken {
		r.Header.Del("Authorization") // serve's own token goes no further: not upstream, not in a log
	}
	release, ok := g.readBody(w, r)
	if !ok {
		return
	}
	defer release()
	if g.writeTO > 0 {
		w = &deadlineWriter{ResponseWriter: w, rc: http.NewResponseController(w), d: g.writeTO}
	}
	g.next.ServeHTTP(w, r)
}

// inspectorOK reports a request to the inspector with the inspector's own credential.
func (g *guard) inspectorOK(r *http.Request) bool {
	return g.inspector != nil && wantsInspector(r) && g.inspector.Authorized(r)
}

// cardPath reports a request for the public agent card.
func cardPath(r *http.Request) bool {
	return (r.Method == http.MethodGet || r.Method == http.MethodHead) &&
		(r.URL.Path == a2asrv.WellKnownAgentCardPath || r.URL.Path == legacyCardPath)
}

// tokenOK compares a bearer credential with the token in constant time (of the token's hash: the length does not
// leak either).
func (g *guard) tokenOK(authz string) bool {
	scheme, cred, ok := strings.Cut(strings.TrimSpace(authz), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return false
	}
	sum := sha256.Sum256([]byte(strings.TrimSpace(cred)))
	return subtle.ConstantTimeCompare(sum[:], g.token[:]) == 1
}

// refuse answers a request the guard turns away, in the error shape of the binding it was sent to: a JSON-RPC
// error object on the JSON-RPC endpoint, google.rpc.Status elsewhere.
func (g *guard) refuse(w http.ResponseWriter, r *http.Request, status int, sentinel error, msg string) {
	info := errordetails.NewErrorInfo(a2a.ErrorReason(sentinel), a2a.ProtocolDomain, nil)
	var body []byte
	if g.jsonrpcCall(r) {
		code := map[error]int{a2a.ErrUnauthenticated: -31401, a2a.ErrUnauthorized: -31403}[sentinel]
		if code == 0 {
			code = -32600
		}
		body, _ = json.Marshal(map[string]any{"jsonrpc": "2.0", "id": nil, // a map of plain values cannot fail
			"error": map[string]any{"code": code, "message": msg, "data": []*errordetails.Typed{info}}})
	} else {
		body, _ = json.Marshal(map[string]any{"error": map[string]any{"code": status, // as above
			"status": grpcStatusName(sentinel), "message": msg, "details": []*errordetails.Typed{info}}})
	}
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Content-Length", strconv.Itoa(len(body)+1))
	h.Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	_, _ = w.Write(append(body, '\n')) // the client may be gone: nothing else to do
}

func (g *guard) jsonrpcCall(r *http.Request) bool {
	p := strings.TrimSuffix(r.URL.Path, "/")
	return p == JSONRPCPath || (g.rpcRoot && p == "" && r.Method == http.MethodPost)
}

func grpcStatusName(sentinel error) string {
	switch sentinel {
	case a2a.ErrUnauthenticated:
		return "UNAUTHENTICATED"
	case a2a.ErrUnauthorized:
		return "PERMISSION_DENIED"
	}
	return "INVALID_ARGUMENT"
}

// Guard puts the guard in front of another HTTP server of this binary (a2a mcp --http): cfg's AllowHosts,
// AllowOrigins, PublicURL, Token and MaxRequestBytes apply as they do to serve, with serve's limits and timeouts;
// loopback says the listener is on loopback only (the Host check).
func Guard(cfg Config, next http.Handler, loopback bool) http.Handler {
	if cfg.MaxRequestBytes == 0 {
		cfg.MaxRequestBytes = defaultMaxRequestBytes
	}
	cfg.readTimeout, cfg.writeTimeout = defaultReadTimeout, defaultWriteTimeout
	return newGuard(&cfg, next, loopback)
}

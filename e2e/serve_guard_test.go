package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/a2acli/a2a/internal/testagent"
)

// TestServeRefusesOtherOrigins: a request a web page on another origin sends (simple or preflighted, every
// content type, every endpoint) is refused with 403 and no CORS header, and the --exec command never runs;
// the same call without Origin (curl, SDKs, the TCK) runs it.
func TestServeRefusesOtherOrigins(t *testing.T) {
	t.Parallel()
	cmd, ran := execMarker(t)
	s := startServe(t, "--exec", cmd, "--transport", "rest,jsonrpc")
	page := fmt.Sprintf("http://127.0.0.1:%d", freePort(t))
	for _, origin := range []string{page, "http://localhost:1", "null", "https://evil.example"} {
		for _, c := range []struct{ path, body string }{{"/message:send", restSend}, {"/jsonrpc", rpcSend}, {"/", rpcSend}} {
			for _, ct := range []string{"application/json", "text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", ""} {
				hdr := map[string]string{"Origin": origin}
				if ct != "" {
					hdr["Content-Type"] = ct
				}
				what := fmt.Sprintf("POST %s from %s as %q", c.path, origin, ct)
				wantGuarded(t, what, rawCall(t, "POST", s.url+c.path, hdr, c.body), 403,
					"cross-origin request from "+origin+" refused", "--allow-origin "+origin)
			}
			// The preflight a browser sends before a JSON call: refused, so the browser never sends the call.
			r := rawCall(t, "OPTIONS", s.url+c.path, map[string]string{"Origin": origin,
				"Access-Control-Request-Method": "POST", "Access-Control-Request-Headers": "content-type"}, "")
			wantGuarded(t, "preflight "+c.path+" from "+origin, r, 403, "--allow-origin "+origin)
		}
		r := rawCall(t, "GET", s.url+"/tasks", map[string]string{"Origin": origin}, "")
		wantGuarded(t, "GET /tasks from "+origin, r, 403, "--allow-origin")
	}
	if ran() {
		t.Fatal("the --exec command ran for a cross-origin request")
	}
	// Serve's own origin passes: a page it served itself may call it.
	r := rawCall(t, "POST", s.url+"/message:send", map[string]string{"Origin": s.url, "Content-Type": "application/json"}, restSend)
	if r.status != 200 || r.header.Get("Access-Control-Allow-Origin") != "" {
		t.Fatalf("same-origin call: status %d, CORS %q\n%s", r.status, r.header.Get("Access-Control-Allow-Origin"), r.body)
	}
	if !ran() {
		t.Fatal("the --exec command did not run for a same-origin call: the marker check proves nothing")
	}

	// --allow-origin: that origin gets its preflight answered and CORS headers; others are still refused.
	cmd2, ran2 := execMarker(t)
	allowed := startServe(t, "--exec", cmd2, "--allow-origin", page)
	r = rawCall(t, "OPTIONS", allowed.url+"/message:send", map[string]string{"Origin": page,
		"Access-Control-Request-Method": "POST", "Access-Control-Request-Headers": "content-type,authorization"}, "")
	if r.status != 204 || r.header.Get("Access-Control-Allow-Origin") != page ||
		!strings.Contains(r.header.Get("Access-Control-Allow-Methods"), "POST") ||
		r.header.Get("Access-Control-Allow-Headers") != "content-type,authorization" {
		t.Fatalf("preflight from an allowed origin: %d %v", r.status, r.header)
	}
	r = rawCall(t, "POST", allowed.url+"/message:send", map[string]string{"Origin": page, "Content-Type": "application/json"}, restSend)
	if r.status != 200 || r.header.Get("Access-Control-Allow-Origin") != page || !ran2() {
		t.Fatalf("call from an allowed origin: %d %v\n%s", r.status, r.header, r.body)
	}
	wantGuarded(t, "another origin next to --allow-origin", rawCall(t, "POST", allowed.url+"/message:send",
		map[string]string{"Origin": "http://127.0.0.1:1", "Content-Type": "application/json"}, restSend), 403, "--allow-origin http://127.0.0.1:1")
}

// TestServeRefusesOtherHosts: DNS rebinding. On a loopback listener a Host that is not a loopback name, the
// --public-url's host or an --allow-host one is refused (421) on every binding, gRPC's :authority included.
func TestServeRefusesOtherHosts(t *testing.T) {
	t.Parallel()
	cmd, ran := execMarker(t)
	s := startServe(t, "--exec", cmd, "--transport", "rest,jsonrpc,grpc")
	port := s.url[strings.LastIndexByte(s.url, ':')+1:]
	for _, host := range []string{"evil.example", "evil.example:" + port, "127.0.0.1.nip.io:" + port, "0x7f.evil:" + port, "[::2]:" + port} {
		name := host
		if h, _, err := net.SplitHostPort(host); err == nil {
			name = strings.Trim(h, "[]")
		}
		for _, c := range []struct{ method, path, body string }{
			{"POST", "/message:send", restSend}, {"POST", "/jsonrpc", rpcSend}, {"POST", "/", rpcSend},
			{"GET", "/tasks", ""}, {"GET", "/.well-known/agent-card.json", ""},
		} {
			hdr := map[string]string{"Host": host}
			if c.body != "" {
				hdr["Content-Type"] = "application/json"
			}
			wantGuarded(t, c.method+" "+c.path+" with Host "+host, rawCall(t, c.method, s.url+c.path, hdr, c.body), 421,
				fmt.Sprintf("Host %q refused", name), "--allow-host "+name)
		}
	}
	if ran() {
		t.Fatal("the --exec command ran for a request with a foreign Host")
	}
	for _, host := range []string{"localhost:" + port, "127.0.0.1:" + port, "127.7.7.7:" + port, "[::1]:" + port, "agent.localhost:" + port, "LOCALHOST"} {
		r := rawCall(t, "GET", s.url+"/tasks", map[string]string{"Host": host}, "")
		if r.status != 200 {
			t.Fatalf("GET /tasks with Host %s: %d\n%s", host, r.status, r.body)
		}
	}
	// gRPC: the authority is the Host.
	conn, err := grpc.NewClient(strings.TrimPrefix(s.url, "http://"), grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithAuthority("evil.example:"+port))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	err = conn.Invoke(ctx, "/lf.a2a.v1.A2AService/GetTask", &emptyMsg{}, &emptyMsg{}, grpc.ForceCodec(rawCodec{}))
	if status.Code(err) != codes.PermissionDenied || !strings.Contains(err.Error(), "--allow-host evil.example") {
		t.Fatalf("gRPC call with authority evil.example: %v, want PermissionDenied naming --allow-host", err)
	}

	// --allow-host and --public-url add names; the card advertises the public URL.
	cmd2, ran2 := execMarker(t)
	ok := startServe(t, "--exec", cmd2, "--allow-host", "box.lan", "--public-url", "https://agent.example:8443/a2a")
	for _, host := range []string{"box.lan:" + port, "agent.example"} {
		if r := rawCall(t, "GET", ok.url+"/tasks", map[string]string{"Host": host}, ""); r.status != 200 {
			t.Fatalf("GET /tasks with allowed Host %s: %d\n%s", host, r.status, r.body)
		}
	}
	r := rawCall(t, "POST", ok.url+"/message:send", map[string]string{"Host": "box.lan", "Content-Type": "application/json"}, restSend)
	if r.status != 200 || !ran2() {
		t.Fatalf("call with --allow-host name: %d\n%s", r.status, r.body)
	}
	card := rawCall(t, "GET", ok.url+"/.well-known/agent-card.json", map[string]string{"Origin": "https://agent.example:8443"}, "")
	if card.status != 200 || !strings.Contains(card.body, `"url":"https://agent.example:8443/a2a"`) {
		t.Fatalf("card with --public-url from the public origin: %d\n%s", card.status, card.body)
	}
}

// TestServeProxyRefusesBeforeUpstream: a cross-origin or rebound request to `serve --proxy --auth` is refused
// before the proxy adds the operator's credentials: the upstream never sees it.
func TestServeProxyRefusesBeforeUpstream(t *testing.T) {
	t.Parallel()
	up := testagent.Start(t, testagent.Options{Transport: a2a.TransportProtocolHTTPJSON, RequireAuth: "Bearer OPERATOR"})
	p := startServe(t, "--proxy", up.URL, "--auth", "Bearer OPERATOR")
	page := fmt.Sprintf("http://127.0.0.1:%d", freePort(t))
	for _, ct := range []string{"text/plain", "application/json", "application/x-www-form-urlencoded", ""} {
		hdr := map[string]string{"Origin": page}
		if ct != "" {
			hdr["Content-Type"] = ct
		}
		wantGuarded(t, "proxy call from "+page+" as "+ct, rawCall(t, "POST", p.url+"/message:send", hdr, restSend), 403, "--allow-origin "+page)
		wantGuarded(t, "proxy call with Host evil.example as "+ct, rawCall(t, "POST", p.url+"/message:send",
			map[string]string{"Host": "evil.example", "Content-Type": "application/json"}, restSend), 421, "--allow-host evil.example")
	}
	wantGuarded(t, "proxy GET /tasks from "+page, rawCall(t, "GET", p.url+"/tasks", map[string]string{"Origin": page}, ""), 403)
	if got := up.Requests(); len(got) != 0 {
		t.Fatalf("the upstream saw %d refused request(s), first with Authorization %q", len(got), got[0].Get("Authorization"))
	}
	// The same call without Origin reaches it, with the operator's credentials: the recorder works.
	r := rawCall(t, "POST", p.url+"/message:send", map[string]string{"Content-Type": "application/json"}, restSend)
	if r.status != 200 {
		t.Fatalf("proxy call without Origin: %d\n%s", r.status, r.body)
	}
	if got := up.Requests(); len(got) != 1 || got[0].Get("Authorization") != "Bearer OPERATOR" {
		t.Fatalf("upstream requests after one allowed call: %v", got)
	}
}

// TestServeToken: beyond loopback, --exec and --proxy need a token (usage error otherwise); the token is checked
// on every call of every binding, the card stays public and declares it, and it never reaches a log.
func TestServeToken(t *testing.T) {
	t.Setenv("A2ACLI_SERVE_TOKEN", "") // until the case that sets it
	for _, args := range [][]string{
		{"serve", "--port", "0", "--host", "0.0.0.0", "--exec", "cat"},
		{"serve", "--port", "0", "--host", "::", "--proxy", "http://127.0.0.1:1"},
	} {
		r := run(t, "", args...)
		wantCode(t, r, 2)
		wantContains(t, "serve without a token", r.stderr, "reachable from other machines", "--token", "A2ACLI_SERVE_TOKEN", "--no-token")
	}
	r := run(t, "", "serve", "--port", "0", "--token", "a", "--no-token", "--echo")
	wantCode(t, r, 2)
	r = run(t, "", "serve", "--port", "0", "--token-file", filepath.Join(t.TempDir(), "none"), "--echo")
	wantCode(t, r, 2)
	wantContains(t, "missing --token-file", r.stderr, "--token-file")

	// --no-token means it, and says so.
	open := startServe(t, "--host", "0.0.0.0", "--no-token", "--exec", "cat", "--quiet")
	wantContains(t, "start-up lines", open.Log(), "listening on http://0.0.0.0:", "warning: 0.0.0.0:", "without a token")

	const token = "s3cret-t0ken"
	tokenFile := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(tokenFile, []byte(token+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd, ran := execMarker(t)
	s := startServe(t, "--host", "0.0.0.0", "--token-file", tokenFile, "--exec", cmd, "--transport", "rest,jsonrpc,grpc", "-v")
	wantContains(t, "start-up lines", s.Log(), "listening on http://0.0.0.0:", "reachable from other machines")
	port := s.url[strings.LastIndexByte(s.url, ':')+1:]
	for _, authz := range []string{"", "Bearer wrong", "Basic " + token, "Bearer " + token + "x", token} {
		hdr := map[string]string{"Content-Type": "application/json"}
		if authz != "" {
			hdr["Authorization"] = authz
		}
		for _, c := range []struct{ path, body string }{{"/message:send", restSend}, {"/jsonrpc", rpcSend}} {
			r := rawCall(t, "POST", s.url+c.path, hdr, c.body)
			wantGuarded(t, fmt.Sprintf("POST %s with Authorization %q", c.path, authz), r, 401, "needs its token")
			if r.header.Get("WWW-Authenticate") == "" {
				t.Fatalf("401 without WWW-Authenticate")
			}
			if c.path == "/jsonrpc" && !strings.Contains(r.body, `"code":-31401`) {
				t.Fatalf("JSON-RPC 401 is not a JSON-RPC error: %s", r.body)
			}
		}
		wantGuarded(t, "GET /tasks with "+authz, rawCall(t, "GET", s.url+"/tasks", hdr, ""), 401, "needs its token")
	}
	if ran() {
		t.Fatal("the --exec command ran without the token")
	}
	// The card is public, names the host the client used (never 0.0.0.0) and declares the bearer scheme.
	card := rawCall(t, "GET", s.url+"/.well-known/agent-card.json", map[string]string{"Host": "box.lan:" + port}, "")
	var c struct {
		SupportedInterfaces  []struct{ URL string }
		SecuritySchemes      map[string]map[string]any
		SecurityRequirements []map[string]any
	}
	if card.status != 200 || json.Unmarshal([]byte(card.body), &c) != nil {
		t.Fatalf("card without the token: %d\n%s", card.status, card.body)
	}
	if c.SupportedInterfaces[0].URL != "http://box.lan:"+port || strings.Contains(card.body, "0.0.0.0") {
		t.Fatalf("card interfaces for Host box.lan: %+v", c.SupportedInterfaces)
	}
	if _, ok := c.SecuritySchemes["bearer"]["httpAuthSecurityScheme"]; !ok || len(c.SecurityRequirements) != 1 {
		t.Fatalf("card does not declare the bearer token: %s", card.body)
	}
	// Our client and a2a-go's, on every binding, with the token.
	loop := "http://127.0.0.1:" + port
	for _, tr := range []string{"rest", "jsonrpc", "grpc"} {
		r := run(t, "", "send", loop, "hello "+tr, "--transport", tr, "--auth", "Bearer "+token, "-o", "json")
		wantCode(t, r, 0)
		r = run(t, "", "send", loop, "hello", "--transport", tr, "--auth", "Bearer nope")
		wantCode(t, r, 4)
	}
	if !ran() {
		t.Fatal("the --exec command did not run with the token")
	}
	conn, err := grpc.NewClient("127.0.0.1:"+port, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	err = conn.Invoke(ctx, "/lf.a2a.v1.A2AService/GetTask", &emptyMsg{}, &emptyMsg{}, grpc.ForceCodec(rawCodec{}))
	if status.Code(err) != codes.Unauthenticated {
		t.Fatalf("gRPC call without the token: %v, want Unauthenticated", err)
	}
	ctx = metadata.AppendToOutgoingContext(ctx, "authorization", "Bearer "+token)
	err = conn.Invoke(ctx, "/lf.a2a.v1.A2AService/GetTask", &emptyMsg{}, &emptyMsg{}, grpc.ForceCodec(rawCodec{}))
	if c := status.Code(err); c == codes.Unauthenticated || c == codes.PermissionDenied {
		t.Fatalf("gRPC call with the token: %v", err)
	}
	if strings.Contains(s.Log(), token) {
		t.Fatalf("the token reached serve's log:\n%s", s.Log())
	}

	// The environment variable works as well.
	t.Setenv("A2ACLI_SERVE_TOKEN", token)
	env := startServe(t, "--host", "0.0.0.0", "--exec", "cat", "--quiet")
	u, _ := url.Parse(env.url)
	r = run(t, "", "send", "http://127.0.0.1:"+u.Port(), "hi", "--auth", "Bearer "+token)
	wantCode(t, r, 0)
	wantGuarded(t, "env token, no credential", rawCall(t, "GET", env.url+"/tasks", nil, ""), 401)
}

// emptyMsg and rawCodec let a test call a gRPC method with an empty message, whatever its type.
type emptyMsg struct{}

type rawCodec struct{}

func (rawCodec) Marshal(v any) ([]byte, error) {
	if b, ok := v.(*bigMsg); ok {
		return make([]byte, b.n), nil
	}
	return nil, nil
}

func (rawCodec) Unmarshal([]byte, any) error { return nil }
func (rawCodec) Name() string                { return "proto" }

package e2e

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/a2acli/a2a/internal/testagent/a3sagent"
)

// The proxy reaches its upstream as the client does (client.Upstream): one builder of connections for its byte path,
// its decoding path and the A3S dial.

// TestProxyCACertUpstream: serve --proxy https://… --cacert ca.pem forwards calls on both of its paths. The byte
// path used to set TLS only for --insecure: the card was fetched, every call failed with "x509: unknown authority".
func TestProxyCACertUpstream(t *testing.T) {
	t.Parallel()
	up, ca := startTLSServe(t, "--quiet")
	proxy := startServe(t, "--proxy", up.url, "--cacert", ca.pem, "--transport", "jsonrpc,rest", "--quiet")
	for _, tr := range []string{"jsonrpc", "rest"} {
		r := run(t, "", "send", "--transport", tr, proxy.url, "through TLS")
		wantCode(t, r, 0)
		wantContains(t, tr, r.stdout, "State: completed", "through TLS")
	}
	// Without the CA the upstream is not trusted, on the byte path too.
	bare := startServe(t, "--proxy", up.url, "--transport", "jsonrpc", "--quiet")
	r := run(t, "", "send", bare.url, "untrusted", "-o", "json")
	wantCode(t, r, 1)
	wantContains(t, "error", r.stdout, "certificate")
}

// TestProxyClientCertUpstream: an upstream that requires a client certificate (mutual TLS) is reached with the run's
// --cert/--key on both of the proxy's paths (the byte path behind the JSON-RPC front, the decoding path behind the
// REST front), as the client reaches it; without them no forwarded call gets through.
func TestProxyClientCertUpstream(t *testing.T) {
	t.Parallel()
	ca := newTestCA(t)
	serverCert, _, _ := ca.issue(t, "upstream", []net.IP{net.ParseIP("127.0.0.1")}, nil, time.Now().Add(time.Hour), x509.ExtKeyUsageServerAuth)
	_, clientCert, clientKey := ca.issue(t, "proxy", nil, nil, time.Now().Add(time.Hour), x509.ExtKeyUsageClientAuth)
	pool := x509.NewCertPool()
	pool.AddCert(ca.cert)
	up := &fakeAgent{redirect: map[string]string{}}
	up.Server = httptest.NewUnstartedServer(http.HandlerFunc(up.serve))
	up.TLS = &tls.Config{Certificates: []tls.Certificate{serverCert}, ClientCAs: pool, ClientAuth: tls.RequireAndVerifyClientCert}
	up.Config.ErrorLog = log.New(io.Discard, "", 0) // the handshakes refused without a certificate are the point
	up.StartTLS()
	t.Cleanup(up.Close)
	up.set(func(a *fakeAgent) { a.iface = up.URL + "/rpc" })

	proxy := startServe(t, "--proxy", up.URL, "--cacert", ca.pem, "--cert", clientCert, "--key", clientKey,
		"--transport", "jsonrpc,rest", "--quiet")
	for _, tr := range []string{"jsonrpc", "rest"} {
		before := len(authOn(up.requests(), "/rpc"))
		r := run(t, "", "send", "--transport", tr, "--blocking", proxy.url, "through mTLS")
		wantCode(t, r, 0)
		wantContains(t, tr, r.stdout, "State: completed")
		if got := len(authOn(up.requests(), "/rpc")); got <= before {
			t.Fatalf("%s: the upstream saw no call", tr)
		}
	}

	// Without a client certificate the upstream refuses the handshake: nothing is forwarded, on either path.
	bare := startServe(t, "--proxy", up.URL, "--cacert", ca.pem, "--transport", "jsonrpc,rest", "--quiet")
	calls := len(authOn(up.requests(), "/rpc"))
	for _, tr := range []string{"jsonrpc", "rest"} {
		r := run(t, "", "send", "--transport", tr, "--blocking", bare.url, "no certificate")
		if r.code == 0 {
			t.Fatalf("%s: a send through a proxy without --cert succeeded\n%s", tr, r)
		}
	}
	if got := len(authOn(up.requests(), "/rpc")); got != calls {
		t.Fatalf("the upstream served %d calls from a proxy without a client certificate", got-calls)
	}
}

// TestProxyAuthStaysOnUpstreamOrigin: the upstream's card names an interface on another origin; the proxy's --auth
// does not go there, on the byte path (JSON-RPC front) or the decoding path (REST front), and serve warns as the
// client does. The byte path used to send it.
func TestProxyAuthStaysOnUpstreamOrigin(t *testing.T) {
	t.Parallel()
	elsewhere := startFake(t)
	named := startFake(t)
	named.set(func(a *fakeAgent) { a.iface = elsewhere.URL + "/rpc" })
	proxy := startServe(t, "--proxy", named.URL, "--auth", "Bearer upstream-s3cret", "--transport", "jsonrpc,rest")
	for _, tr := range []string{"jsonrpc", "rest"} {
		r := run(t, "", "send", "--transport", tr, "--blocking", proxy.url, "hi")
		wantCode(t, r, 0)
	}
	got := authOn(elsewhere.requests(), "/rpc")
	if len(got) < 2 {
		t.Fatalf("the other origin got %d calls, want one per front", len(got))
	}
	for _, a := range got {
		if a != "" {
			t.Fatalf("the other origin got Authorization %q", a)
		}
	}
	// The public card is fetched bare: credentials go per request (the a2a-cli specification, §12.1).
	if card := authOn(named.requests(), "/.well-known/agent-card.json"); len(card) == 0 || card[0] != "" {
		t.Fatalf("the named upstream's card fetch got Authorization %q, want none", card)
	}
	wantContains(t, "serve's stderr", proxy.Log(), withheldNote+elsewhere.URL)
}

// TestProxyUpstreamDownCardName: with the upstream down, the proxy's card is named after it. proxy.Config.Upstream
// was never set, so the card said "a2a serve".
func TestProxyUpstreamDownCardName(t *testing.T) {
	t.Parallel()
	upstream := "http://127.0.0.1:" + strconv.Itoa(refusingPort(t))
	proxy := startServe(t, "--proxy", upstream, "--quiet")
	r := run(t, "", "discover", proxy.url, "-o", "json")
	wantCode(t, r, 0)
	var card struct {
		Name string `json:"name"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &card); err != nil {
		t.Fatal(err)
	}
	if card.Name != "proxy for "+upstream {
		t.Fatalf("card name %q, want %q", card.Name, "proxy for "+upstream)
	}
}

// TestA3SCACert: serve --a3s https://… dials the agent with the client's TLS, so --cacert trusts its certificate
// (the bridge used to know only --insecure).
func TestA3SCACert(t *testing.T) {
	t.Parallel()
	ca := newTestCA(t)
	cert, _, _ := ca.issue(t, "a3s", []net.IP{net.ParseIP("127.0.0.1")}, nil, time.Now().Add(time.Hour), x509.ExtKeyUsageServerAuth)
	agent := a3sagent.Start(t, a3sagent.Options{Shape: a3sagent.A3S,
		TLS: &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}})
	srv := startServe(t, "--a3s", "https://"+agent.Addr, "--cacert", ca.pem, "--quiet")
	r := run(t, "", "send", srv.url, "-o", "raw", "over tls")
	wantCode(t, r, 0)
	if r.stdout != "echo: over tls" {
		t.Fatalf("raw output %q, want the agent's echo\n%s", r.stdout, r)
	}
}

// TestA3SClientCert: serve --a3s https://… dials an agent that requires a client certificate (mutual TLS) with the
// run's --cert/--key, as the client would; without them the agent refuses the handshake and no turn runs.
func TestA3SClientCert(t *testing.T) {
	t.Parallel()
	ca := newTestCA(t)
	cert, _, _ := ca.issue(t, "a3s", []net.IP{net.ParseIP("127.0.0.1")}, nil, time.Now().Add(time.Hour), x509.ExtKeyUsageServerAuth)
	_, clientCert, clientKey := ca.issue(t, "serve", nil, nil, time.Now().Add(time.Hour), x509.ExtKeyUsageClientAuth)
	pool := x509.NewCertPool()
	pool.AddCert(ca.cert)
	agent := a3sagent.Start(t, a3sagent.Options{Shape: a3sagent.A3S, TLS: &tls.Config{Certificates: []tls.Certificate{cert},
		ClientCAs: pool, ClientAuth: tls.RequireAndVerifyClientCert, MinVersion: tls.VersionTLS12}})

	srv := startServe(t, "--a3s", "https://"+agent.Addr, "--cacert", ca.pem, "--cert", clientCert, "--key", clientKey, "--quiet")
	r := run(t, "", "send", srv.url, "-o", "raw", "over mutual tls")
	wantCode(t, r, 0)
	if r.stdout != "echo: over mutual tls" {
		t.Fatalf("raw output %q, want the agent's echo\n%s", r.stdout, r)
	}

	bare := startServe(t, "--a3s", "https://"+agent.Addr, "--cacert", ca.pem, "--quiet")
	r = run(t, "", "send", bare.url, "-o", "raw", "no certificate")
	if r.code == 0 || strings.Contains(r.stdout, "echo: no certificate") {
		t.Fatalf("a turn ran through serve --a3s without a client certificate\n%s", r)
	}
}

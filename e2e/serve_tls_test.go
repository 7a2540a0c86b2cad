package e2e

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"math/big"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2aclient"
	"github.com/a2aproject/a2a-go/v2/a2aclient/agentcard"
	"github.com/a2aproject/a2a-go/v2/a2agrpc/v1"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
)

// startTLSServe starts serve --echo on every transport over TLS with a certificate for 127.0.0.1 signed by a CA
// made in the test; it returns the server and the CA.
func startTLSServe(t *testing.T, args ...string) (*server, *testCA) {
	t.Helper()
	ca := newTestCA(t)
	_, cert, key := ca.issue(t, "serve", []net.IP{net.ParseIP("127.0.0.1")}, []string{"localhost"},
		time.Now().Add(time.Hour), x509.ExtKeyUsageServerAuth)
	s := startServe(t, append([]string{"--echo", "--transport", "rest,jsonrpc,grpc", "--tls-cert", cert, "--tls-key", key}, args...)...)
	if !strings.HasPrefix(s.url, "https://") {
		t.Fatalf("listening on %s, want an https:// URL", s.url)
	}
	return s, ca
}

// TestServeTLS: serve --tls-cert/--tls-key speaks TLS on every transport of its one port, and its card says https://;
// our client (with --cacert) and a2a-go's reach it on each binding.
func TestServeTLS(t *testing.T) {
	t.Parallel()
	s, ca := startTLSServe(t)
	pool := x509.NewCertPool()
	pool.AddCert(ca.cert)
	// Like http.DefaultTransport, this offers h2 and http/1.1: serve must pick http/1.1 for it (gRPC gets h2).
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.TLSClientConfig = &tls.Config{RootCAs: pool}
	hc := &http.Client{Transport: tr, Timeout: 10 * time.Second}
	t.Cleanup(tr.CloseIdleConnections)

	resp, err := hc.Get(s.url + "/.well-known/agent-card.json")
	if err != nil {
		t.Fatal(err)
	}
	var card a2a.AgentCard
	err = json.NewDecoder(resp.Body).Decode(&card)
	resp.Body.Close()
	if err != nil {
		t.Fatal(err)
	}
	if resp.Proto != "HTTP/1.1" {
		t.Errorf("card answered over %s, want HTTP/1.1 for a client offering both", resp.Proto)
	}
	host := strings.TrimPrefix(s.url, "https://")
	for _, iface := range card.SupportedInterfaces {
		if iface.URL != host && !strings.HasPrefix(iface.URL, "https://") {
			t.Errorf("card interface %s at %q, want https:// (or the bare %s for gRPC)", iface.ProtocolBinding, iface.URL, host)
		}
	}

	for _, transport := range []string{"rest", "jsonrpc", "grpc"} {
		t.Run("a2a "+transport, func(t *testing.T) {
			// By name, as a user types it: the card lists 127.0.0.1, gRPC's interface as a bare host:port.
			u := strings.Replace(s.url, "127.0.0.1", "localhost", 1)
			r := run(t, "", "send", u, "--cacert", ca.pem, "--transport", transport, "-o", "json", "hello "+transport)
			wantCode(t, r, 0)
			task := sendTask(t, r)
			if task.Status.State != a2a.TaskStateCompleted {
				t.Fatalf("state %s, want completed\n%s", task.Status.State, r)
			}
			wantContains(t, "stdout", r.stdout, "hello "+transport)
		})
	}

	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	resolved, err := agentcard.NewResolver(hc).Resolve(ctx, s.url)
	if err != nil {
		t.Fatalf("a2a-go Resolve(%s) = %v", s.url, err)
	}
	creds := grpc.WithTransportCredentials(credentials.NewTLS(&tls.Config{RootCAs: pool}))
	for _, binding := range []a2a.TransportProtocol{a2a.TransportProtocolHTTPJSON, a2a.TransportProtocolJSONRPC, a2a.TransportProtocolGRPC} {
		c, err := a2aclient.NewFromCard(ctx, resolved, a2aclient.WithJSONRPCTransport(hc), a2aclient.WithRESTTransport(hc),
			a2agrpc.WithGRPCTransport(creds),
			a2aclient.WithConfig(a2aclient.Config{PreferredTransports: []a2a.TransportProtocol{binding}}))
		if err != nil {
			t.Fatalf("a2a-go NewFromCard(%s) = %v", binding, err)
		}
		res, err := c.SendMessage(ctx, &a2a.SendMessageRequest{Message: a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("from a2a-go"))})
		c.Destroy()
		if err != nil {
			t.Fatalf("a2a-go SendMessage over %s = %v", binding, err)
		}
		task, ok := res.(*a2a.Task)
		if !ok || task.Status.State != a2a.TaskStateCompleted {
			t.Fatalf("a2a-go SendMessage over %s = %#v, want a completed task", binding, res)
		}
	}
	// One log line per call: a2a's sends stream (the agent streams), a2a-go's are SendMessage.
	if strings.Count(s.Log(), " SendStreamingMessage task=") != 3 || strings.Count(s.Log(), " SendMessage task=") != 3 {
		t.Errorf("serve log has not one line per call:\n%s", s.Log())
	}
}

// TestServeTLSMixUps, against our own TLS serve: plain http:// to its TLS port, https:// to a plain serve and a
// certificate the client does not trust each exit 3 with the hint that names the fix.
func TestServeTLSMixUps(t *testing.T) {
	t.Parallel()
	s, ca := startTLSServe(t)
	plain := startServe(t, "--echo", "--transport", "rest,jsonrpc,grpc")
	tests := []struct {
		name string
		args []string
		hint string
	}{
		{"http to TLS", []string{strings.Replace(s.url, "https://", "http://", 1)}, "use an https:// URL"},
		{"bare host:port to TLS", []string{strings.TrimPrefix(s.url, "https://")}, "use an https:// URL"},
		{"https to plain", []string{strings.Replace(plain.url, "http://", "https://", 1), "--cacert", ca.pem}, "use an http:// URL"},
		{"untrusted certificate", []string{s.url}, "--cacert"},
		{"grpc over https to plain", []string{strings.Replace(plain.url, "http://", "https://", 1), "--cacert", ca.pem, "--transport", "grpc"}, "use an http:// URL"},
	}
	t.Run("clients", func(t *testing.T) {
		for _, tc := range tests {
			t.Run(tc.name, func(t *testing.T) {
				t.Parallel()
				r := run(t, "", append([]string{"send"}, append(tc.args, "hi")...)...)
				wantCode(t, r, 3)
				wantContains(t, "stderr", r.stderr, "hint: ", tc.hint)
			})
		}
	})
	// The TLS serve logs the handshakes it refused, with the reason.
	eventually(t, 10*time.Second, "refused handshakes in the log", func() bool {
		return strings.Contains(s.Log(), `status=handshake reason="plain HTTP sent to the TLS port"`) &&
			strings.Contains(s.Log(), `status=handshake reason="TLS handshake: remote error: tls: bad certificate"`)
	})
}

// writeSelfSigned writes a self-signed certificate for localhost and 127.0.0.1 and its key, as the README's
// openssl line makes them.
func writeSelfSigned(t *testing.T, certPath, keyPath string) {
	t.Helper()
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "localhost"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		DNSNames: []string{"localhost"}, IPAddresses: []net.IP{net.ParseIP("127.0.0.1")},
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, key := makeCert(t, tmpl, nil, nil)
	writeKeyPair(t, certPath, keyPath, der, key)
}

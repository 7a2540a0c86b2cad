package e2e

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"io"
	"log"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// testCA signs certificates for the TLS tests, made here with crypto/x509.
type testCA struct {
	cert *x509.Certificate
	key  *ecdsa.PrivateKey
	pem  string // path of the CA certificate
	dir  string
}

func newTestCA(t *testing.T) *testCA {
	t.Helper()
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "a2a test CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
	}
	der, key := makeCert(t, tmpl, nil, nil)
	cert, _ := x509.ParseCertificate(der)
	dir := t.TempDir()
	ca := &testCA{cert: cert, key: key, dir: dir, pem: filepath.Join(dir, "ca.pem")}
	writePEM(t, ca.pem, "CERTIFICATE", der)
	return ca
}

// makeCert makes a P-256 key and a certificate from tmpl for it, signed by parent's key (nil: self-signed), and
// returns the certificate's DER and the key.
func makeCert(t *testing.T, tmpl, parent *x509.Certificate, parentKey *ecdsa.PrivateKey) ([]byte, *ecdsa.PrivateKey) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	if parent == nil {
		parent, parentKey = tmpl, key
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, parent, &key.PublicKey, parentKey)
	if err != nil {
		t.Fatal(err)
	}
	return der, key
}

// writeKeyPair writes a certificate and its key as PEM files.
func writeKeyPair(t *testing.T, certPath, keyPath string, der []byte, key *ecdsa.PrivateKey) {
	t.Helper()
	kder, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	writePEM(t, certPath, "CERTIFICATE", der)
	writePEM(t, keyPath, "PRIVATE KEY", kder)
}

func writePEM(t *testing.T, path, typ string, der []byte) {
	t.Helper()
	if err := os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
}

// issue signs a leaf certificate for the given IPs and names, valid from notBefore to notAfter; it returns the
// pair and the paths of its PEM files.
func (ca *testCA) issue(t *testing.T, name string, ips []net.IP, dns []string, notAfter time.Time, usage x509.ExtKeyUsage) (tls.Certificate, string, string) {
	t.Helper()
	serial, _ := rand.Int(rand.Reader, big.NewInt(1<<62))
	tmpl := &x509.Certificate{
		SerialNumber: serial, Subject: pkix.Name{CommonName: name},
		NotBefore: notAfter.Add(-2 * time.Hour), NotAfter: notAfter,
		IPAddresses: ips, DNSNames: dns,
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{usage},
	}
	der, key := makeCert(t, tmpl, ca.cert, ca.key)
	certPath, keyPath := filepath.Join(ca.dir, name+".pem"), filepath.Join(ca.dir, name+"-key.pem")
	writeKeyPair(t, certPath, keyPath, der, key)
	pair, err := tls.LoadX509KeyPair(certPath, keyPath)
	if err != nil {
		t.Fatal(err)
	}
	return pair, certPath, keyPath
}

// cardHandler serves a minimal agent card for any path: a plain net/http agent.
var cardHandler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	w.Header().Set("Content-Type", "application/json")
	w.Write([]byte(`{"name":"tls","description":"d","version":"1","supportedInterfaces":[{"url":"` + scheme + "://" + r.Host +
		`","protocolBinding":"JSONRPC","protocolVersion":"1.0"}],"capabilities":{},"defaultInputModes":["text/plain"],` +
		`"defaultOutputModes":["text/plain"],"skills":[]}`))
})

func startTLSAgent(t *testing.T, cert tls.Certificate, clientCAs *x509.CertPool) string {
	t.Helper()
	srv := httptest.NewUnstartedServer(cardHandler)
	srv.TLS = &tls.Config{Certificates: []tls.Certificate{cert}}
	if clientCAs != nil {
		srv.TLS.ClientCAs = clientCAs
		srv.TLS.ClientAuth = tls.RequireAndVerifyClientCert
	}
	srv.Config.ErrorLog = log.New(io.Discard, "", 0) // the handshake errors are the point of the test
	srv.StartTLS()
	t.Cleanup(srv.Close)
	return srv.URL
}

// TestClientTLS: TLS on the client: --cacert, mutual TLS, and TLS mix-ups and certificate errors as exit 3 with a hint
// that names the cause and the flag.
func TestClientTLS(t *testing.T) {
	t.Parallel()
	ca := newTestCA(t)
	loop := []net.IP{net.ParseIP("127.0.0.1")}
	good, _, _ := ca.issue(t, "good", loop, nil, time.Now().Add(time.Hour), x509.ExtKeyUsageServerAuth)
	wrongHost, _, _ := ca.issue(t, "wronghost", nil, []string{"agent.invalid"}, time.Now().Add(time.Hour), x509.ExtKeyUsageServerAuth)
	expired, _, _ := ca.issue(t, "expired", loop, nil, time.Now().Add(-time.Hour), x509.ExtKeyUsageServerAuth)
	_, clientCert, clientKey := ca.issue(t, "client", nil, nil, time.Now().Add(time.Hour), x509.ExtKeyUsageClientAuth)
	pool := x509.NewCertPool()
	pool.AddCert(ca.cert)

	goodURL := startTLSAgent(t, good, nil)
	wrongURL := startTLSAgent(t, wrongHost, nil)
	expiredURL := startTLSAgent(t, expired, nil)
	mtlsURL := startTLSAgent(t, good, pool)
	plain := httptest.NewServer(cardHandler)
	t.Cleanup(plain.Close)

	tests := []struct {
		name string
		env  []string
		args []string
		code int
		hint string
	}{
		{"unknown authority", nil, []string{goodURL}, 3, "--cacert"},
		{"--cacert", nil, []string{goodURL, "--cacert", ca.pem}, 0, ""},
		{"A2ACLI_CACERT", []string{"A2ACLI_CACERT=" + ca.pem}, []string{goodURL}, 0, ""},
		{"hostname mismatch", nil, []string{wrongURL, "--cacert", ca.pem}, 3, `not valid for "127.0.0.1"`},
		{"expired", nil, []string{expiredURL, "--cacert", ca.pem}, 3, "expired"},
		{"https to a plain port", nil, []string{strings.Replace(plain.URL, "http://", "https://", 1)}, 3, "use an http:// URL"},
		{"http to a TLS port", nil, []string{strings.Replace(goodURL, "https://", "http://", 1)}, 3, "use an https:// URL"},
		{"mTLS without a client certificate", nil, []string{mtlsURL, "--cacert", ca.pem}, 3, "--cert"},
		{"mTLS", nil, []string{mtlsURL, "--cacert", ca.pem, "--cert", clientCert, "--key", clientKey}, 0, ""},
		{"--cert without --key", nil, []string{mtlsURL, "--cert", clientCert}, 2, "--help"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := runEnv(t, "", tc.env, "", append([]string{"discover"}, tc.args...)...)
			wantCode(t, r, tc.code)
			if tc.code == 0 {
				wantContains(t, "stdout", r.stdout, "Name: tls")
				return
			}
			wantContains(t, "stderr", r.stderr, "hint: ", tc.hint)
			if tc.code == 3 && strings.Contains(r.stderr, "is the agent running") {
				t.Fatalf("TLS problem hinted as a dead agent:\n%s", r)
			}
		})
	}
}

// TestInsecureWarns: --insecure never turns verification off silently: a warning on stderr, a louder one when
// credentials are given (the a2a-cli specification, §12.1); without it, an unknown authority fails (exit 3).
func TestInsecureWarns(t *testing.T) {
	t.Parallel()
	ca := newTestCA(t)
	good, _, _ := ca.issue(t, "good", []net.IP{net.ParseIP("127.0.0.1")}, nil, time.Now().Add(time.Hour), x509.ExtKeyUsageServerAuth)
	u := startTLSAgent(t, good, nil)
	r := run(t, "", "discover", u)
	wantCode(t, r, 3)
	r = run(t, "", "discover", u, "--insecure")
	wantCode(t, r, 0)
	wantContains(t, "stderr", r.stderr, "warning: --insecure: TLS certificates are not verified\n")
	for _, creds := range [][]string{{"--bearer", "s3cret"}, {"--auth", "Bearer s3cret"}, {"--api-key", "s3cret"}} {
		r = run(t, "", append([]string{"discover", u, "--insecure"}, creds...)...)
		wantCode(t, r, 0)
		wantContains(t, "stderr", r.stderr, "warning: --insecure: TLS certificates are not verified; the credentials given go to a peer whose identity is not checked")
		if strings.Contains(r.stderr, "s3cret") {
			t.Fatalf("the warning shows the credential\n%s", r)
		}
	}
}

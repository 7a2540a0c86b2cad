package a3s

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"math/big"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/a2acli/a2a/internal/testagent/a3sagent"
)

// selfSigned returns a certificate for 127.0.0.1 and a pool that trusts it.
func selfSigned(t *testing.T) (tls.Certificate, *x509.CertPool) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)}, KeyUsage: x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}, BasicConstraintsValid: true, IsCA: true}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	leaf, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AddCert(leaf)
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key, Leaf: leaf}, pool
}

// https:// dials TLS; a bare HOST:PORT dials plaintext, which a TLS agent refuses.
func TestBridgeTLS(t *testing.T) {
	t.Parallel()
	cert, pool := selfSigned(t)
	agent := a3sagent.Start(t, a3sagent.Options{TLS: &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}})
	b, err := New(Config{Addr: "https://" + agent.Addr, TLS: &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = b.Close(context.Background()) })
	r, state, status := turn(t, b, newInfo(), textMsg("over tls"))
	if state != a2a.TaskStateCompleted || r.text() != "echo: over tls" {
		t.Errorf("over TLS: %v %q %q", state, status, r.text())
	}
	plain := newBridge(t, agent.Addr, Auto)
	if err := plain.Check(context.Background(), textMsg("hi")); err == nil || !strings.Contains(err.Error(), "HealthCheck") {
		t.Errorf("plaintext to a TLS agent: Check = %v, want a HealthCheck failure", err)
	}
}

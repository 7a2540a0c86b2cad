package cardsig

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// A jku is followed over https on the card's own origin only, and a key set past MaxJWKSBytes is refused.
func TestVerifyJKU(t *testing.T) {
	t.Parallel()
	priv, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	s, err := NewSigner(priv)
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc(JWKSPath, func(w http.ResponseWriter, _ *http.Request) { w.Write(s.JWKS()) })
	mux.HandleFunc("/big.json", func(w http.ResponseWriter, _ *http.Request) { w.Write([]byte(strings.Repeat(" ", MaxJWKSBytes+1))) })
	srv := httptest.NewTLSServer(mux)
	t.Cleanup(srv.Close)
	card := []byte(`{"name":"a","supportedInterfaces":[{"url":"https://x/a2a","protocolBinding":"JSONRPC"}]}`)
	cases := []struct {
		name, jku, cardURL string
		want               Status
		reason             string
	}{
		{"same origin", srv.URL + JWKSPath, srv.URL + "/.well-known/agent-card.json", Verified, ""},
		{"other origin", srv.URL + JWKSPath, "https://elsewhere.example/.well-known/agent-card.json", Unverifiable, "not on the card's origin"},
		{"plain http", strings.Replace(srv.URL, "https:", "http:", 1) + JWKSPath, "http://" + strings.TrimPrefix(srv.URL, "https://"), Unverifiable, "not https"},
		{"card file", srv.URL + JWKSPath, "", Unverifiable, "from a file"},
		{"too large", srv.URL + "/big.json", srv.URL + "/.well-known/agent-card.json", Unverifiable, "larger than"},
	}
	for _, c := range cases {
		signed, err := s.Sign(card, c.jku)
		if err != nil {
			t.Fatal(err)
		}
		r := Verify(context.Background(), signed, &Keys{HTTP: srv.Client(), CardURL: c.cardURL})
		if r.Status != c.want || !strings.Contains(r.Reason, c.reason) {
			t.Errorf("%s: Verify = %+v, want %s (%q)", c.name, r, c.want, c.reason)
		}
		if c.want == Verified && (r.KeyID != s.KeyID() || r.KeySource != "jku "+c.jku) {
			t.Errorf("%s: verified by %q from %q, want %q from jku", c.name, r.KeyID, r.KeySource, s.KeyID())
		}
	}
}

// Malformed signatures are invalid, not errors.
func TestVerifyMalformed(t *testing.T) {
	t.Parallel()
	for _, card := range []string{
		`{"name":"a","signatures":[{"protected":"!!","signature":"x"}]}`,
		`{"name":"a","signatures":[{"protected":"eyJhbGciOiJub25lIn0","signature":""}]}`,
		`{"name":"a","signatures":"x"}`,
	} {
		if r := Verify(context.Background(), []byte(card), nil); r.Status != Invalid {
			t.Errorf("Verify(%s) = %+v, want invalid", card, r)
		}
	}
}

// --trust-keys takes a key set over https, or plain http from loopback only.
func TestTrustKeysURL(t *testing.T) {
	t.Parallel()
	if _, err := NewKeys(context.Background(), http.DefaultClient, "", []string{"http://keys.example/jwks.json"}); err == nil || !strings.Contains(err.Error(), "https only") {
		t.Errorf("http off loopback: %v, want refused", err)
	}
	priv, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	s, _ := NewSigner(priv)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.Write(s.JWKS()) }))
	t.Cleanup(srv.Close)
	k, err := NewKeys(context.Background(), srv.Client(), "", []string{srv.URL + JWKSPath})
	if err != nil {
		t.Fatal(err)
	}
	signed, _ := s.Sign([]byte(`{"name":"a"}`), "")
	if r := Verify(context.Background(), signed, k); r.Status != Verified || r.KeySource != "trust-keys "+srv.URL+JWKSPath {
		t.Errorf("loopback JWKS URL: %+v", r)
	}
}

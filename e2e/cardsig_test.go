package e2e

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/a2acli/a2a/internal/testagent"
	"github.com/a2acli/a2a/internal/testskip"
)

// signTools skips without openssl and python3's cryptography, the signer and verifier that are not our code.
func signTools(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("openssl"); err != nil {
		testskip.Missing(t, "openssl", "signed cards are checked against openssl-made keys")
	}
	if err := exec.Command("python3", "-c", "import cryptography").Run(); err != nil {
		testskip.Missing(t, "python3-cryptography", "the independent card signer needs python3's cryptography")
	}
}

// jwsTool runs internal/cardsig/testdata/jws.py, the independent signer and verifier, with stdin.
func jwsTool(t *testing.T, stdin []byte, args ...string) (string, error) {
	t.Helper()
	cmd := exec.Command("python3", append([]string{filepath.Join("..", "internal", "cardsig", "testdata", "jws.py")}, args...)...)
	cmd.Stdin = bytes.NewReader(stdin)
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	return string(out), err
}

// opensslKey makes a private key (genpkey args) and its public key with openssl; it returns both paths.
func opensslKey(t *testing.T, dir, name string, args ...string) (string, string) {
	t.Helper()
	priv, pub := filepath.Join(dir, name+".pem"), filepath.Join(dir, name+".pub.pem")
	for _, a := range [][]string{append(append([]string{"genpkey"}, args...), "-out", priv), {"pkey", "-in", priv, "-pubout", "-out", pub}} {
		if out, err := exec.Command("openssl", a...).CombinedOutput(); err != nil {
			t.Fatalf("openssl %v: %v\n%s", a, err, out)
		}
	}
	return priv, pub
}

// serve --sign-card signs its card and publishes the key set its jku names: discover --verify follows the jku over
// https, the independent verifier accepts the served bytes, and a call under --verify goes through; an unsigned
// agent under --verify is refused with exit 8 before any call.
func TestServeSignCardVerified(t *testing.T) {
	t.Parallel()
	signTools(t)
	dir := t.TempDir()
	ca := newTestCA(t)
	_, certPath, keyPath := ca.issue(t, "agent", []net.IP{net.IPv4(127, 0, 0, 1)}, nil, time.Now().Add(time.Hour), x509.ExtKeyUsageServerAuth)
	priv, pub := opensslKey(t, dir, "ed", "-algorithm", "ED25519")
	srv := startServe(t, "--echo", "--sign-card", priv, "--tls-cert", certPath, "--tls-key", keyPath)

	r := run(t, "", "discover", srv.url, "--cacert", ca.pem, "--verify")
	wantCode(t, r, 0)
	wantContains(t, "discover --verify", r.stdout, "Signature: verified (EdDSA, kid ", "key from jku "+srv.url+"/.well-known/jwks.json)")

	pool := x509.NewCertPool()
	pool.AddCert(ca.cert)
	hc := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	resp, err := hc.Get(srv.url + "/.well-known/agent-card.json")
	if err != nil {
		t.Fatal(err)
	}
	served, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if out, err := jwsTool(t, served, "verify", pub); err != nil || !strings.HasPrefix(out, "verified ") {
		t.Fatalf("the independent verifier refused the served card (%v): %s\n%s", err, out, served)
	}

	r = run(t, "", "send", srv.url, "--cacert", ca.pem, "--verify", "-o", "raw", "signed hello")
	wantCode(t, r, 0)
	wantContains(t, "send --verify", r.stdout, "signed hello")

	plain := startServe(t, "--echo")
	r = run(t, "", "send", plain.url, "--verify", "-o", "json", "unsigned hello")
	wantCode(t, r, 8)
	wantContains(t, "send --verify to an unsigned agent", r.stdout, `"code":"A2ANC_ERR_CARD_SIGNATURE"`, "signature absent")
	if strings.Contains(plain.Log(), "unsigned hello") || strings.Contains(plain.Log(), "SendMessage") {
		t.Errorf("the refused card's agent was called:\n%s", plain.Log())
	}
}

// A card signed by python's cryptography with an openssl RSA key verifies with --trust-keys; a tampered copy is
// invalid (exit 8 under --verify); without a key it is unverifiable, and a jku is not followed for a card file.
func TestIndependentlySignedCardFile(t *testing.T) {
	t.Parallel()
	signTools(t)
	dir := t.TempDir()
	priv, pub := opensslKey(t, dir, "rsa", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048")
	card, err := os.ReadFile(filepath.Join("..", "internal", "cardsig", "testdata", "card.json"))
	if err != nil {
		t.Fatal(err)
	}
	signed, err := jwsTool(t, card, "sign", priv, "rsa-1", "https://agent.example/.well-known/jwks.json")
	if err != nil {
		t.Fatal(err)
	}
	good := filepath.Join(dir, "signed.json")
	bad := filepath.Join(dir, "tampered.json")
	os.WriteFile(good, []byte(signed), 0o600)
	os.WriteFile(bad, []byte(strings.Replace(signed, "says it back", "steals your keys", 1)), 0o600)

	r := run(t, "", "discover", good, "--trust-keys", pub, "--verify")
	wantCode(t, r, 0)
	wantContains(t, "signed card", r.stdout, "Signature: verified (RS256, kid rsa-1, key from trust-keys "+pub+" (pinned key))")

	// The key as a JWKS file, and as one JWK, written by the independent tool: the signature's kid finds it; a key
	// set whose only key has another kid verifies nothing.
	set, err := jwsTool(t, nil, "jwks", pub, "rsa-1")
	if err != nil {
		t.Fatal(err)
	}
	jwks, jwk, otherKid := filepath.Join(dir, "jwks.json"), filepath.Join(dir, "key.jwk"), filepath.Join(dir, "other-kid.json")
	var doc struct{ Keys []json.RawMessage }
	if err := json.Unmarshal([]byte(set), &doc); err != nil || len(doc.Keys) != 1 {
		t.Fatalf("jws.py jwks: %v\n%s", err, set)
	}
	os.WriteFile(jwks, []byte(set), 0o600)
	os.WriteFile(jwk, doc.Keys[0], 0o600)
	os.WriteFile(otherKid, []byte(strings.Replace(set, `"rsa-1"`, `"rsa-2"`, 1)), 0o600)
	for _, keys := range []string{jwks, jwk} {
		r := run(t, "", "discover", good, "--trust-keys", keys, "--verify")
		wantCode(t, r, 0)
		wantContains(t, "signed card, key from "+keys, r.stdout, "Signature: verified (RS256, kid rsa-1, key from trust-keys "+keys+")")
	}
	r = run(t, "", "discover", good, "--trust-keys", otherKid, "--verify")
	wantCode(t, r, 8)
	wantContains(t, "key set without the signature's kid", r.stderr, "signature unverifiable")

	r = run(t, "", "discover", bad, "--trust-keys", pub)
	wantCode(t, r, 0)
	wantContains(t, "tampered card", r.stdout, "Signature: invalid: the signature does not match the card")
	r = run(t, "", "discover", bad, "--trust-keys", pub, "--verify")
	wantCode(t, r, 8)
	wantContains(t, "tampered card under --verify", r.stderr, "signature invalid", "hint: ")

	r = run(t, "", "discover", good, "--checks", "--jq", ".signatureCheck.status + \" \" + .signatureCheck.reason")
	wantCode(t, r, 0)
	wantContains(t, "no key", r.stdout, "unverifiable jku https://agent.example/.well-known/jwks.json not followed: a card read from a file")
}

// serve --proxy rewrites a signed upstream card: it warns and drops the signatures that no longer hold, or re-signs
// the card with --sign-card's key.
func TestProxySignedUpstreamCard(t *testing.T) {
	t.Parallel()
	signTools(t)
	dir := t.TempDir()
	up, _ := opensslKey(t, dir, "up", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256")
	mine, minePub := opensslKey(t, dir, "mine", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256")
	upstream := startServe(t, "--echo", "--sign-card", up)

	bare := startServe(t, "--proxy", upstream.url)
	r := run(t, "", "discover", bare.url)
	wantCode(t, r, 0)
	wantContains(t, "proxied card", r.stdout, "Signature: absent")
	// serve writes the warning before it answers; the test reads serve's stderr through a pipe, so it waits for it.
	eventually(t, 10*time.Second, "the proxy's warning about the signed upstream card", func() bool {
		return strings.Contains(bare.Log(), "the upstream card is signed; the proxy rewrites it, so its signatures no longer hold")
	})

	resigned := startServe(t, "--proxy", upstream.url, "--sign-card", mine)
	r = run(t, "", "discover", resigned.url, "--trust-keys", minePub, "--verify")
	wantCode(t, r, 0)
	wantContains(t, "re-signed card", r.stdout, "Signature: verified (ES256")
	eventually(t, 10*time.Second, "the proxy's note that it re-signs the upstream card", func() bool {
		return strings.Contains(resigned.Log(), "re-signed with --sign-card's key")
	})
}

// A card printed with -o json is an AgentCard and nothing more: saved to a file, it validates and (signed) still
// verifies; what a2a found out about it goes to stderr, or, with --checks, into a document around the card. Against
// the a2a-go SDK's agents (v1.0 and v0.3 cards) and our own signed card.
func TestDiscoverJSONIsACard(t *testing.T) {
	t.Parallel()
	signTools(t)
	dir := t.TempDir()
	priv, pub := opensslKey(t, dir, "card", "-algorithm", "ED25519")
	signed := startServe(t, "--echo", "--sign-card", priv)
	agents := map[string]string{
		"a2a-go v1.0": testagent.Start(t, testagent.Options{}).URL,
		"a2a-go v0.3": testagent.Start(t, testagent.Options{V03: true}).URL,
		"signed":      signed.url,
	}
	for name, url := range agents {
		file := filepath.Join(dir, strings.ReplaceAll(name, " ", "-")+".json")
		r := run(t, "", "discover", url, "-o", "json")
		wantCode(t, r, 0)
		var card map[string]json.RawMessage
		if err := json.Unmarshal([]byte(r.stdout), &card); err != nil {
			t.Fatalf("%s: -o json is not one JSON object: %v\n%s", name, err, r.stdout)
		}
		for _, m := range []string{"signatureCheck", "validation", "card"} {
			if _, ok := card[m]; ok {
				t.Errorf("%s: the card printed with -o json has a member %q, which no AgentCard has", name, m)
			}
		}
		if name == "signed" {
			wantContains(t, name+" stderr", r.stderr, "Signature: unverifiable")
		} else if strings.TrimSpace(r.stderr) != "" {
			t.Errorf("%s: an unsigned card's -o json has nothing to say on stderr: %q", name, r.stderr)
		}
		if err := os.WriteFile(file, []byte(r.stdout), 0o600); err != nil {
			t.Fatal(err)
		}
		for _, verb := range [][]string{{"discover"}, {"card", "get"}} {
			r = run(t, "", append(verb, file, "--validate")...)
			wantCode(t, r, 0)
			wantContains(t, name+" saved card validated", r.stdout, "Validation: v1.0, 0 errors")
			r = run(t, "", append(verb, file, "--validate", "-o", "json")...)
			wantCode(t, r, 0)
			if strings.Contains(r.stdout, `"validation"`) {
				t.Errorf("%s: %v --validate -o json put the report in the card: %s", name, verb, r.stdout)
			}
			wantContains(t, name+" findings on stderr", r.stderr, "Validation: v1.0, 0 errors")
		}

		r = run(t, "", "discover", url, "--checks", "--validate", "-o", "json")
		wantCode(t, r, 0)
		var doc struct {
			Card           map[string]any `json:"card"`
			SignatureCheck struct{ Status string }
			Validation     struct{ Valid bool }
		}
		if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil || doc.Card["name"] == nil || doc.SignatureCheck.Status == "" || !doc.Validation.Valid {
			t.Errorf("%s: --checks document %+v (%v): %s", name, doc, err, r.stdout)
		}
		if strings.TrimSpace(r.stderr) != "" {
			t.Errorf("%s: with --checks the checks are on stdout, not stderr: %q", name, r.stderr)
		}
	}

	// The saved signed card still verifies with the key, and a tampered copy does not.
	file := filepath.Join(dir, "signed.json")
	r := run(t, "", "discover", file, "--trust-keys", pub, "--verify", "--checks", "--jq", ".signatureCheck.status")
	wantCode(t, r, 0)
	if strings.TrimSpace(r.stdout) != "verified" {
		t.Errorf("saved signed card: %s", r)
	}
	b, _ := os.ReadFile(file)
	os.WriteFile(file, bytes.Replace(b, []byte(`"name":"`), []byte(`"name":"x`), 1), 0o600)
	r = run(t, "", "discover", file, "--trust-keys", pub, "--verify")
	wantCode(t, r, 8)
}

// Before any call a signed card's signatures are classified, not only under --verify: an invalid one (here, the
// signature checked against a key that did not make it) is a warning, and the call goes on; -v says what they
// amount to otherwise. An unsigned card costs nothing and says nothing.
func TestCallChecksSignedCard(t *testing.T) {
	t.Parallel()
	signTools(t)
	dir := t.TempDir()
	priv, pub := opensslKey(t, dir, "card", "-algorithm", "ED25519")
	_, other := opensslKey(t, dir, "other", "-algorithm", "ED25519")
	signed := startServe(t, "--echo", "--sign-card", priv)

	r := run(t, "", "send", signed.url, "--trust-keys", other, "-o", "raw", "hi")
	wantCode(t, r, 0)
	wantContains(t, "invalid signature", r.stderr, "warning: the agent card's signature is invalid: ")
	wantContains(t, "the call went on", r.stdout, "hi")

	r = run(t, "", "send", signed.url, "--trust-keys", pub, "-o", "raw", "-v", "hi")
	wantCode(t, r, 0)
	wantContains(t, "verified", r.stderr, "card signature: verified")
	if strings.Contains(r.stderr, "warning:") {
		t.Errorf("a verified card gets no warning:\n%s", r.stderr)
	}

	plain := startServe(t, "--echo")
	r = run(t, "", "send", plain.url, "-o", "raw", "-v", "hi")
	wantCode(t, r, 0)
	if strings.Contains(r.stderr, "card signature") {
		t.Errorf("an unsigned card is not classified before a call:\n%s", r.stderr)
	}
}

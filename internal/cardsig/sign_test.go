package cardsig

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/a2acli/a2a/internal/testskip"
)

// tools skips the test without openssl or python3's cryptography: the independent signer and verifier.
func tools(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("openssl"); err != nil {
		testskip.Missing(t, "openssl", "the independent signer needs openssl")
	}
	if err := exec.Command("python3", "-c", "import cryptography").Run(); err != nil {
		testskip.Missing(t, "python3-cryptography", "the independent signer needs python3 and its cryptography package")
	}
}

func run(t *testing.T, stdin []byte, name string, args ...string) []byte {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Stdin = bytes.NewReader(stdin)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s %v: %v\n%s%s", name, args, err, out, stderr.Bytes())
	}
	return out
}

// keyPair makes a private key with openssl and returns the paths of it and of its public key.
func keyPair(t *testing.T, dir, kind string) (priv, pub string) {
	t.Helper()
	priv, pub = filepath.Join(dir, kind+".pem"), filepath.Join(dir, kind+".pub.pem")
	args := map[string][]string{
		"rsa":      {"genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048"},
		"other-ec": {"genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256"},
		"ec":       {"genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256"},
		"ed25519":  {"genpkey", "-algorithm", "ED25519"},
	}[kind]
	run(t, nil, "openssl", append(args, "-out", priv)...)
	run(t, nil, "openssl", "pkey", "-in", priv, "-pubout", "-out", pub)
	return priv, pub
}

func mustKeys(t *testing.T, trust ...string) *Keys {
	t.Helper()
	k, err := NewKeys(context.Background(), nil, "", trust)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// tamper changes the card's name, leaving its signatures as they were.
func tamper(t *testing.T, card []byte) []byte {
	t.Helper()
	var doc map[string]any
	if err := json.Unmarshal(card, &doc); err != nil {
		t.Fatal(err)
	}
	doc["name"] = "Evil Agent"
	b, _ := json.Marshal(doc)
	return b
}

// A card signed by python's cryptography (keys from openssl) is verified; a tampered copy is invalid; without a key
// it is unverifiable; with another key it is invalid.
func TestVerifyIndependentlySignedCard(t *testing.T) {
	t.Parallel()
	tools(t)
	card, err := os.ReadFile("testdata/card.json")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	_, otherPub := keyPair(t, dir, "other-ec")
	for _, kind := range []string{"rsa", "ec", "ed25519"} {
		priv, pub := keyPair(t, dir, kind)
		signed := run(t, card, "python3", "testdata/jws.py", "sign", priv, "key-"+kind)
		r := Verify(context.Background(), signed, mustKeys(t, pub))
		if r.Status != Verified || r.KeyID != "key-"+kind || !strings.Contains(r.KeySource, pub) {
			t.Errorf("%s: Verify = %+v, want verified by key-%s from %s", kind, r, kind, pub)
		}
		if r := Verify(context.Background(), tamper(t, signed), mustKeys(t, pub)); r.Status != Invalid {
			t.Errorf("%s tampered: Verify = %+v, want invalid", kind, r)
		}
		if r := Verify(context.Background(), signed, mustKeys(t)); r.Status != Unverifiable {
			t.Errorf("%s without keys: Verify = %+v, want unverifiable", kind, r)
		}
		if r := Verify(context.Background(), signed, mustKeys(t, otherPub)); r.Status != Invalid {
			t.Errorf("%s with another key: Verify = %+v, want invalid", kind, r)
		}
	}
	if r := Verify(context.Background(), card, mustKeys(t)); r.Status != Absent {
		t.Errorf("unsigned: Verify = %+v, want absent", r)
	}
}

// What Signer signs, the independent verifier accepts: python's cryptography for every key type, and openssl dgst
// -verify on the signing input for RS256.
func TestSignerVerifiedIndependently(t *testing.T) {
	t.Parallel()
	tools(t)
	card, err := os.ReadFile("testdata/card.json")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, kind := range []string{"rsa", "ec", "ed25519"} {
		priv, pub := keyPair(t, dir, kind)
		s, err := LoadSigner(priv)
		if err != nil {
			t.Fatal(err)
		}
		signed, err := s.Sign(card, "https://agent.example"+JWKSPath)
		if err != nil {
			t.Fatal(err)
		}
		out := run(t, signed, "python3", "testdata/jws.py", "verify", pub)
		if !strings.HasPrefix(string(out), "verified "+s.KeyID()) {
			t.Errorf("%s: independent verifier says %s", kind, out)
		}
		if r := Verify(context.Background(), signed, mustKeys(t, pub)); r.Status != Verified {
			t.Errorf("%s: our Verify = %+v", kind, r)
		}
		if kind == "rsa" {
			sig := filepath.Join(dir, "sig.bin")
			input := filepath.Join(dir, "input")
			if err := os.WriteFile(input, run(t, signed, "python3", "testdata/jws.py", "input", sig), 0o600); err != nil {
				t.Fatal(err)
			}
			out := run(t, nil, "openssl", "dgst", "-sha256", "-verify", pub, "-signature", sig, input)
			if strings.TrimSpace(string(out)) != "Verified OK" {
				t.Errorf("openssl dgst -verify: %s", out)
			}
		}
	}
}

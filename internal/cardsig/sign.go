package cardsig

import (
	"bytes"
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rsa"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"os"
	"strings"

	jose "github.com/go-jose/go-jose/v4"
)

// JWKSPath is where `serve --sign-card` publishes its public key set, the path its jku names.
const JWKSPath = "/.well-known/jwks.json"

// Signer signs cards with one private key: ES256 (or ES384, ES512) for an EC key, RS256 for RSA, EdDSA for Ed25519.
type Signer struct {
	key crypto.Signer
	alg jose.SignatureAlgorithm
	kid string
}

// LoadSigner reads a PEM private key (PKCS #8, SEC 1 EC or PKCS #1 RSA).
func LoadSigner(path string) (*Signer, error) {
	body, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	b, _ := pem.Decode(body)
	if b == nil {
		return nil, fmt.Errorf("%s: no PEM block", path)
	}
	var key any
	switch b.Type {
	case "PRIVATE KEY":
		key, err = x509.ParsePKCS8PrivateKey(b.Bytes)
	case "EC PRIVATE KEY":
		key, err = x509.ParseECPrivateKey(b.Bytes)
	case "RSA PRIVATE KEY":
		key, err = x509.ParsePKCS1PrivateKey(b.Bytes)
	default:
		return nil, fmt.Errorf("%s: PEM block %q is not a private key", path, b.Type)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return NewSigner(key)
}

// NewSigner chooses the algorithm from the key's type.
func NewSigner(key any) (*Signer, error) {
	s := &Signer{}
	switch k := key.(type) {
	case *ecdsa.PrivateKey:
		switch k.Curve {
		case elliptic.P256():
			s.alg = jose.ES256
		case elliptic.P384():
			s.alg = jose.ES384
		case elliptic.P521():
			s.alg = jose.ES512
		default:
			return nil, errors.New("unsupported EC curve")
		}
		s.key = k
	case *rsa.PrivateKey:
		if k.N.BitLen() < 2048 {
			return nil, errors.New("RSA key shorter than 2048 bits")
		}
		s.alg, s.key = jose.RS256, k
	case ed25519.PrivateKey:
		s.alg, s.key = jose.EdDSA, k
	default:
		return nil, fmt.Errorf("unsupported key type %T (want EC, RSA or Ed25519)", key)
	}
	kid, err := Thumbprint(s.key.Public())
	if err != nil {
		return nil, err
	}
	s.kid = kid
	return s, nil
}

// Algorithm and KeyID say how the signer signs.
func (s *Signer) Algorithm() string { return string(s.alg) }
func (s *Signer) KeyID() string     { return s.kid }

// JWKS is the signer's public key set, as published at JWKSPath.
func (s *Signer) JWKS() []byte {
	set := jose.JSONWebKeySet{Keys: []jose.JSONWebKey{{Key: s.key.Public(), KeyID: s.kid, Algorithm: string(s.alg), Use: "sig"}}}
	b, _ := json.Marshal(set) // a public key of a type NewSigner accepted always marshals
	return b
}

// Sign returns card with its signatures replaced by one signature of ours: the JCS form of the card without
// "signatures", signed with a protected header {alg, typ: JOSE, kid, jku}. jku may be "" (no key set URL).
func (s *Signer) Sign(card []byte, jku string) ([]byte, error) {
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(card, &doc); err != nil {
		return nil, fmt.Errorf("sign card: %w", err)
	}
	delete(doc, "signatures")
	unsigned, err := json.Marshal(doc)
	if err != nil {
		return nil, err
	}
	payload, err := Canonicalize(unsigned)
	if err != nil {
		return nil, fmt.Errorf("sign card: %w", err)
	}
	opts := (&jose.SignerOptions{}).WithType("JOSE").WithHeader("kid", s.kid)
	if jku != "" {
		opts = opts.WithHeader("jku", jku)
	}
	js, err := jose.NewSigner(jose.SigningKey{Algorithm: s.alg, Key: s.key}, opts)
	if err != nil {
		return nil, fmt.Errorf("sign card: %w", err)
	}
	obj, err := js.Sign(payload)
	if err != nil {
		return nil, fmt.Errorf("sign card: %w", err)
	}
	compact, err := obj.DetachedCompactSerialize()
	if err != nil {
		return nil, err
	}
	prot, sig, _ := strings.Cut(compact, "..")
	sigs, _ := json.Marshal([]signature{{Protected: prot, Signature: sig}})
	doc["signatures"] = sigs
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(doc); err != nil {
		return nil, err
	}
	return bytes.TrimRight(b.Bytes(), "\n"), nil
}

func base64URL(b []byte) string { return base64.RawURLEncoding.EncodeToString(b) }

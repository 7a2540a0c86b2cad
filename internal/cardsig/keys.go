package cardsig

import (
	"context"
	"crypto"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"

	jose "github.com/go-jose/go-jose/v4"
)

// MaxJWKSBytes bounds a key set read from a jku, a URL or a file.
const MaxJWKSBytes = 64 << 10

// Keys finds the public keys that may verify a card's signature: the trusted ones first (--trust-keys), then the
// key set the protected header's jku names, fetched only over https, only from the origin the card came from, and
// at most MaxJWKSBytes of it.
type Keys struct {
	trusted []pubKey
	// HTTP fetches jku key sets (nil: jku is not followed).
	HTTP *http.Client
	// CardURL is where the card came from; a jku on another origin is not followed ("" for a card file: none is).
	CardURL string
	fetched map[string][]pubKey
}

type pubKey struct {
	kid, source string
	key         any
}

// NewKeys returns the key finder of one card fetch, trusting the keys of every source in trust (see LoadTrusted).
func NewKeys(ctx context.Context, hc *http.Client, cardURL string, trust []string) (*Keys, error) {
	k := &Keys{HTTP: hc, CardURL: cardURL}
	for _, src := range trust {
		keys, err := loadTrusted(ctx, hc, src)
		if err != nil {
			return nil, err
		}
		k.trusted = append(k.trusted, keys...)
	}
	return k, nil
}

func (k *Keys) find(ctx context.Context, h header) ([]pubKey, error) {
	if k == nil {
		return nil, nil
	}
	var out []pubKey
	for _, t := range k.trusted {
		if t.kid == "" || h.Kid == "" || t.kid == h.Kid {
			out = append(out, t)
		}
	}
	if len(out) > 0 || h.JKU == "" {
		return out, nil
	}
	set, err := k.jku(ctx, h.JKU)
	if err != nil {
		return nil, err
	}
	for _, t := range set {
		if h.Kid == "" || t.kid == h.Kid {
			out = append(out, t)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("the key set at jku %s has no key %q", h.JKU, h.Kid)
	}
	return out, nil
}

// JKUAllowed says why a jku may not be followed for a card fetched from cardURL ("" when it may).
func JKUAllowed(jku, cardURL string) error {
	u, err := url.Parse(jku)
	if err != nil || u.Host == "" {
		return fmt.Errorf("jku %q is not an absolute URL", jku)
	}
	if u.Scheme != "https" {
		return fmt.Errorf("jku %s not followed: not https", jku)
	}
	c, err := url.Parse(cardURL)
	if cardURL == "" || err != nil || c.Host == "" {
		return fmt.Errorf("jku %s not followed: a card read from a file has no origin to check it against (pass --trust-keys)", jku)
	}
	if c.Scheme != "https" || !strings.EqualFold(c.Host, u.Host) {
		return fmt.Errorf("jku %s not followed: not on the card's origin %s://%s", jku, c.Scheme, c.Host)
	}
	return nil
}

func (k *Keys) jku(ctx context.Context, jku string) ([]pubKey, error) {
	if keys, ok := k.fetched[jku]; ok {
		return keys, nil
	}
	if err := JKUAllowed(jku, k.CardURL); err != nil {
		return nil, err
	}
	if k.HTTP == nil {
		return nil, fmt.Errorf("jku %s not followed", jku)
	}
	body, err := fetch(ctx, k.HTTP, jku)
	if err != nil {
		return nil, fmt.Errorf("jku: %w", err)
	}
	keys, err := parseKeys(body, "jku "+jku)
	if err != nil {
		return nil, fmt.Errorf("jku %s: %w", jku, err)
	}
	if k.fetched == nil {
		k.fetched = map[string][]pubKey{}
	}
	k.fetched[jku] = keys
	return keys, nil
}

func fetch(ctx context.Context, hc *http.Client, u string) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/jwk-set+json, application/json")
	resp, err := hc.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET %s: HTTP %d", u, resp.StatusCode)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, MaxJWKSBytes+1))
	if err != nil {
		return nil, err
	}
	if len(body) > MaxJWKSBytes {
		return nil, fmt.Errorf("GET %s: key set larger than %d bytes", u, MaxJWKSBytes)
	}
	return body, nil
}

func loopbackHost(h string) bool {
	ip := net.ParseIP(h)
	return h == "localhost" || ip != nil && ip.IsLoopback()
}

// loadTrusted reads one --trust-keys source: an https URL (http on loopback) or a file, holding a JWKS, one JWK, a PEM public key or a
// PEM certificate (a pinned key).
func loadTrusted(ctx context.Context, hc *http.Client, src string) ([]pubKey, error) {
	var body []byte
	var err error
	if strings.HasPrefix(src, "https://") || strings.HasPrefix(src, "http://") {
		if u, err := url.Parse(src); err != nil || u.Scheme == "http" && !loopbackHost(u.Hostname()) {
			return nil, fmt.Errorf("trust keys %s: a key set is trusted over https only (or from a loopback address)", src)
		}
		if hc == nil {
			return nil, fmt.Errorf("trust keys %s: no HTTP client", src)
		}
		body, err = fetch(ctx, hc, src)
	} else {
		body, err = readFile(src)
	}
	if err != nil {
		return nil, fmt.Errorf("trust keys: %w", err)
	}
	keys, err := parseKeys(body, "trust-keys "+src)
	if err != nil {
		return nil, fmt.Errorf("trust keys %s: %w", src, err)
	}
	return keys, nil
}

func readFile(name string) ([]byte, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	body, err := io.ReadAll(io.LimitReader(f, MaxJWKSBytes+1))
	if err == nil && len(body) > MaxJWKSBytes {
		err = fmt.Errorf("%s: larger than %d bytes", name, MaxJWKSBytes)
	}
	return body, err
}

// parseKeys reads a JWKS, a single JWK, or PEM public keys and certificates. Private keys in a JWKS are refused:
// a trust store holds public keys only.
func parseKeys(body []byte, source string) ([]pubKey, error) {
	trimmed := strings.TrimSpace(string(body))
	if strings.HasPrefix(trimmed, "-----BEGIN") {
		return parsePEMKeys([]byte(trimmed), source)
	}
	var set jose.JSONWebKeySet
	if err := json.Unmarshal(body, &set); err != nil || len(set.Keys) == 0 {
		var one jose.JSONWebKey
		if err1 := json.Unmarshal(body, &one); err1 != nil || one.Key == nil {
			return nil, errors.New("neither a JWKS, a JWK nor a PEM public key")
		}
		set.Keys = []jose.JSONWebKey{one}
	}
	var out []pubKey
	for _, k := range set.Keys {
		if !k.IsPublic() {
			return nil, errors.New("the key set holds a private key")
		}
		if k.Use != "" && k.Use != "sig" {
			continue
		}
		out = append(out, pubKey{kid: k.KeyID, source: source, key: k.Key})
	}
	if len(out) == 0 {
		return nil, errors.New("no signing key in the key set")
	}
	return out, nil
}

func parsePEMKeys(body []byte, source string) ([]pubKey, error) {
	var out []pubKey
	for {
		var b *pem.Block
		b, body = pem.Decode(body)
		if b == nil {
			break
		}
		var key any
		var err error
		switch b.Type {
		case "PUBLIC KEY":
			key, err = x509.ParsePKIXPublicKey(b.Bytes)
		case "CERTIFICATE":
			var c *x509.Certificate
			if c, err = x509.ParseCertificate(b.Bytes); err == nil {
				key = c.PublicKey
			}
		default:
			return nil, fmt.Errorf("PEM block %q: want a PUBLIC KEY or a CERTIFICATE", b.Type)
		}
		if err != nil {
			return nil, err
		}
		// A pinned key has no kid: it matches whatever kid a signature names (pinning means this key, not a name).
		out = append(out, pubKey{source: source + " (pinned key)", key: key})
	}
	if len(out) == 0 {
		return nil, errors.New("no PEM block")
	}
	return out, nil
}

// Thumbprint is a key's RFC 7638 thumbprint, base64url: the kid `serve --sign-card` gives its key.
func Thumbprint(pub any) (string, error) {
	jwk := jose.JSONWebKey{Key: pub}
	tp, err := jwk.Thumbprint(crypto.SHA256)
	if err != nil {
		return "", err
	}
	return base64URL(tp), nil
}

package cardsig

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"

	jose "github.com/go-jose/go-jose/v4"
)

// Status is what a card's signatures amount to.
type Status string

const (
	Verified     Status = "verified"     // one signature checks out with a key we have
	Unverifiable Status = "unverifiable" // signed, but no key to check it with
	Invalid      Status = "invalid"      // a key was found and the signature does not match, or it is malformed
	Absent       Status = "absent"       // no signatures
)

// Result is the classification of one card. KeyID and KeySource say who vouched for a verified card; Reason says
// why any other signed card is not verified.
type Result struct {
	Status     Status `json:"status"`
	KeyID      string `json:"kid,omitempty"`
	Algorithm  string `json:"alg,omitempty"`
	KeySource  string `json:"keySource,omitempty"`
	Reason     string `json:"reason,omitempty"`
	Signatures int    `json:"signatures"`
}

// Algorithms are the JWS algorithms a signature may use; "none" and the HMAC family never verify a card.
var Algorithms = []jose.SignatureAlgorithm{
	jose.ES256, jose.ES384, jose.ES512, jose.RS256, jose.RS384, jose.RS512, jose.PS256, jose.PS384, jose.PS512,
	jose.EdDSA,
}

// signature is one AgentCardSignature as it arrived.
type signature struct {
	Protected string         `json:"protected"`
	Signature string         `json:"signature"`
	Header    map[string]any `json:"header,omitempty"`
}

// header is the part of a protected header we read.
type header struct {
	Alg string `json:"alg"`
	Kid string `json:"kid"`
	JKU string `json:"jku"`
}

// Verify classifies the signatures of a card given as its bytes. keys finds the keys for a signature (see Keys).
func Verify(ctx context.Context, card []byte, keys *Keys) Result {
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(card, &doc); err != nil {
		return Result{Status: Invalid, Reason: "the card is not a JSON object"}
	}
	raw, ok := doc["signatures"]
	if !ok || bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
		return Result{Status: Absent}
	}
	var sigs []signature
	if err := json.Unmarshal(raw, &sigs); err != nil {
		return Result{Status: Invalid, Reason: "signatures is not a list of JWS objects"}
	}
	if len(sigs) == 0 {
		return Result{Status: Absent}
	}
	payloads, err := Payloads(card)
	if err != nil {
		return Result{Status: Invalid, Reason: err.Error(), Signatures: len(sigs)}
	}
	var best *Result
	for _, s := range sigs {
		r := verifyOne(ctx, s, payloads, keys)
		r.Signatures = len(sigs)
		if r.Status == Verified {
			return r
		}
		if best == nil || best.Status == Unverifiable && r.Status == Invalid {
			best = &r
		}
	}
	return *best
}

func verifyOne(ctx context.Context, s signature, payloads [][]byte, keys *Keys) Result {
	hb, err := base64.RawURLEncoding.DecodeString(s.Protected)
	var h header
	if err == nil {
		err = json.Unmarshal(hb, &h)
	}
	if err != nil {
		return Result{Status: Invalid, Reason: "the protected header is not base64url JSON"}
	}
	if h.Kid == "" {
		if k, ok := s.Header["kid"].(string); ok {
			h.Kid = k // the unprotected header may carry the key id; jku counts only when protected
		}
	}
	r := Result{KeyID: h.Kid, Algorithm: h.Alg}
	if !knownAlg(h.Alg) {
		r.Status, r.Reason = Invalid, fmt.Sprintf("algorithm %q is not one a card may be signed with", h.Alg)
		return r
	}
	compact := s.Protected + ".." + s.Signature
	jws, err := jose.ParseDetached(compact, payloads[0], Algorithms)
	if err != nil {
		r.Status, r.Reason = Invalid, "malformed JWS: "+err.Error()
		return r
	}
	cands, lookErr := keys.find(ctx, h)
	if len(cands) == 0 {
		r.Status = Unverifiable
		r.Reason = "no key with this kid: pass --trust-keys (a JWKS file or URL, or a PEM public key)"
		if lookErr != nil {
			r.Reason = lookErr.Error()
		}
		return r
	}
	for _, k := range cands {
		for _, p := range payloads {
			if err := jws.DetachedVerify(p, k.key); err == nil {
				r.Status, r.KeySource = Verified, k.source
				if r.KeyID == "" {
					r.KeyID = k.kid
				}
				return r
			}
		}
	}
	r.Status, r.Reason = Invalid, "the signature does not match the card (tampered, or signed by another key)"
	return r
}

func knownAlg(alg string) bool {
	for _, a := range Algorithms {
		if string(a) == alg {
			return true
		}
	}
	return false
}

// Payloads are the canonical forms a signature of card may cover, in the order tried: the card as it arrived
// without "signatures" (what `serve --sign-card` signs), and the same with null, "", [] and {} members removed
// (§8.4.1's default-value removal, as the a2a-python SDK's signer applies it).
func Payloads(card []byte) ([][]byte, error) {
	var doc map[string]any
	dec := json.NewDecoder(bytes.NewReader(card))
	dec.UseNumber()
	if err := dec.Decode(&doc); err != nil {
		return nil, errors.New("the card is not a JSON object")
	}
	delete(doc, "signatures")
	first, err := canonicalValue(doc)
	if err != nil {
		return nil, err
	}
	second, err := canonicalValue(stripEmpty(doc))
	if err != nil {
		return nil, err
	}
	if bytes.Equal(first, second) {
		return [][]byte{first}, nil
	}
	return [][]byte{first, second}, nil
}

func canonicalValue(v any) ([]byte, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return Canonicalize(b)
}

// stripEmpty removes null, "", [] and {} members, depth first (a member left empty by the removal goes too).
func stripEmpty(v any) any {
	switch t := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, e := range t {
			e = stripEmpty(e)
			if !isEmpty(e) {
				out[k] = e
			}
		}
		return out
	case []any:
		out := make([]any, 0, len(t))
		for _, e := range t {
			out = append(out, stripEmpty(e))
		}
		return out
	}
	return v
}

func isEmpty(v any) bool {
	switch t := v.(type) {
	case nil:
		return true
	case string:
		return t == ""
	case []any:
		return len(t) == 0
	case map[string]any:
		return len(t) == 0
	}
	return false
}

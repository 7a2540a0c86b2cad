package serve

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"sync"

	"github.com/a2acli/a2a/internal/cardsig"
	"github.com/a2aproject/a2a-go/v2/a2a"
)

// signedCard signs every card next serves (--sign-card): the card is built per request (its interfaces follow the
// host the client used), so it is signed per request, with a jku on the origin of its first interface, where
// jwksHandler publishes the public key.
func signedCard(next http.Handler, s *cardsig.Signer, log io.Writer) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec := &cardRecorder{header: http.Header{}, code: http.StatusOK}
		next.ServeHTTP(rec, r)
		body := rec.body.Bytes()
		for k, v := range rec.header {
			w.Header()[k] = v
		}
		if rec.code == http.StatusOK && len(body) > 0 { // not a HEAD's empty body, nor a 304
			signed, err := s.Sign(body, jkuOf(body))
			if err != nil {
				fmt.Fprintf(log, "serve: --sign-card: %v\n", err)
				http.Error(w, "card signing failed", http.StatusInternalServerError)
				return
			}
			body = signed
			w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		}
		w.WriteHeader(rec.code)
		w.Write(body) //nolint:errcheck // the client went away: nothing to do
	})
}

// cardRecorder keeps the card handler's answer for signedCard to sign (net/http/httptest's recorder would link a
// test package, and its init, into every run of a2a).
type cardRecorder struct {
	header http.Header
	code   int
	wrote  bool
	body   bytes.Buffer
}

func (r *cardRecorder) Header() http.Header { return r.header }

func (r *cardRecorder) WriteHeader(code int) {
	if !r.wrote {
		r.code, r.wrote = code, true
	}
}

func (r *cardRecorder) Write(b []byte) (int, error) {
	r.WriteHeader(http.StatusOK)
	return r.body.Write(b)
}

// jkuOf is the key set's URL on the origin of the card's first interface (v1.0) or its url (v0.3).
func jkuOf(card []byte) string {
	var c struct {
		URL        string `json:"url"`
		Interfaces []struct {
			URL string `json:"url"`
		} `json:"supportedInterfaces"`
	}
	if json.Unmarshal(card, &c) != nil {
		return ""
	}
	raw := c.URL
	if len(c.Interfaces) > 0 {
		raw = c.Interfaces[0].URL
	}
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return ""
	}
	return u.Scheme + "://" + u.Host + cardsig.JWKSPath
}

// jwksHandler publishes the signer's public key set.
func jwksHandler(s *cardsig.Signer) http.Handler {
	body := s.JWKS()
	return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/jwk-set+json")
		w.Header().Set("Cache-Control", "public, max-age=300")
		w.Write(body) //nolint:errcheck // the client went away: nothing to do
	})
}

// dropStaleSignatures removes the signatures of a card serve rewrote (a proxy's upstream card with our interfaces):
// they covered the upstream's card, not this one. It warns once; with --sign-card the card is signed anew.
type dropStaleSignatures struct {
	log    io.Writer
	signed bool
	once   sync.Once
}

func (d *dropStaleSignatures) apply(c *a2a.AgentCard) {
	if len(c.Signatures) == 0 {
		return
	}
	c.Signatures = nil
	d.once.Do(func() {
		if d.signed {
			fmt.Fprintln(d.log, "serve: warning: the upstream card is signed; the proxy rewrites it, so it serves it re-signed with --sign-card's key")
			return
		}
		fmt.Fprintln(d.log, "serve: warning: the upstream card is signed; the proxy rewrites it, so its signatures no longer hold and are dropped (pass --sign-card KEY.pem to sign the card it serves)")
	})
}

package client

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2acompat/a2av0"
)

const (
	wellKnownCard    = "/.well-known/agent-card.json"
	wellKnownCardV03 = "/.well-known/agent.json"
	maxCardBytes     = 4 << 20
)

// Ref is what the user's <url> argument turned out to be.
type Ref struct {
	Raw     string
	File    string // a local card file
	Base    *url.URL
	CardURL string // set when the argument names the card itself
	// Catalog is an RFC 9727 API catalog (a /.well-known/api-catalog URL) or an AI Catalog (…/ai-catalog.json),
	// #name choosing an entry, the card is looked up in first (catalog.go).
	Catalog string
}

// ParseRef reads the forms docs/CONTRACT.md, "Reaching an agent" allows: a base URL, a bare host:port, a card URL,
// or a local card file.
func ParseRef(raw string) (*Ref, error) {
	if raw == "" {
		return nil, Usagef("missing agent URL")
	}
	ref := &Ref{Raw: raw}
	if strings.HasPrefix(raw, "file://") {
		ref.File = strings.TrimPrefix(raw, "file://")
		return ref, nil
	}
	if !strings.Contains(raw, "://") {
		if st, err := os.Stat(raw); err == nil && !st.IsDir() || looksLikePath(raw) {
			ref.File = expandHome(raw)
			return ref, nil
		}
		raw = "http://" + raw
	}
	u, err := url.Parse(raw)
	if err != nil || !validHost(u) {
		return nil, Usagef("invalid agent URL %q: want http(s)://host[:port][/path], host:port or a card file", ref.Raw)
	}
	switch u.Scheme {
	case "http", "https", "grpc", "grpcs":
	default:
		return nil, Usagef("invalid agent URL %q: unsupported scheme %q", ref.Raw, u.Scheme)
	}
	if isCatalog(u.Path) { // catalog.go
		ref.Catalog = u.String()
		base := *u
		base.Path, base.Fragment, base.RawQuery = "", "", ""
		ref.Base = &base
		return ref, nil
	}
	if strings.HasSuffix(u.Path, ".json") {
		ref.CardURL = u.String()
		base := *u
		base.Path = strings.TrimSuffix(strings.TrimSuffix(u.Path, wellKnownCard), wellKnownCardV03)
		if strings.HasSuffix(base.Path, ".json") {
			base.Path = ""
		}
		ref.Base = &base
		return ref, nil
	}
	u.Path = strings.TrimSuffix(u.Path, "/")
	ref.Base = u
	return ref, nil
}

// looksLikePath reports whether an argument with no scheme names a card file rather than a host: it starts with ./,
// ../, / or ~, or it ends in .json and no host comes before its first slash (a bare name.json, or dir/name.json where
// dir has no dot, no port and is not localhost: example.com/card.json and localhost:8080/card.json stay URLs). An
// existing file is a file whatever its name; this rule decides for one that does not exist, so that the error says
// the file is missing instead of "lookup .: no such host".
func looksLikePath(raw string) bool {
	for _, p := range []string{"./", "../", "/", "~"} {
		if strings.HasPrefix(raw, p) {
			return true
		}
	}
	if raw == "." || raw == ".." {
		return true
	}
	if !strings.HasSuffix(raw, ".json") {
		return false
	}
	first, _, nested := strings.Cut(raw, "/")
	return !nested || !strings.ContainsAny(first, ".:") && first != "localhost"
}

// expandHome replaces a leading ~/ with the user's home directory, as a shell would have done had the argument not
// been quoted.
func expandHome(p string) string {
	if rest, ok := strings.CutPrefix(p, "~/"); ok {
		if home, err := os.UserHomeDir(); err == nil {
			return filepath.Join(home, rest)
		}
	}
	return p
}

// validHost reports whether u names a host and, if any, a numeric port (url.Parse alone accepts "http://::::").
func validHost(u *url.URL) bool {
	host := u.Hostname()
	if host == "" || strings.Contains(host, ":") && !strings.HasPrefix(u.Host, "[") {
		return false
	}
	if p := u.Port(); p != "" {
		n, err := strconv.Atoi(p)
		return err == nil && n > 0 && n < 65536
	}
	return !strings.HasSuffix(u.Host, ":")
}

// cardCandidates lists the URLs to try for the card, in order.
func (r *Ref) cardCandidates() []string {
	if r.CardURL != "" {
		return []string{r.CardURL}
	}
	b := *r.Base
	if b.Scheme == "grpc" {
		b.Scheme = "http"
	} else if b.Scheme == "grpcs" {
		b.Scheme = "https"
	}
	base := strings.TrimSuffix(b.String(), "/")
	out := []string{base + wellKnownCard, base + wellKnownCardV03}
	if b.Path != "" {
		root := b.Scheme + "://" + b.Host
		out = append(out, root+wellKnownCard, root+wellKnownCardV03)
	}
	return out
}

// fetchCard GETs the card from the first candidate that answers 200. A 404 everywhere is a cardError with notFound.
// It returns the card's bytes too, as they arrived: a signature covers those, not what a2a-go made of them.
func fetchCard(ctx context.Context, hc *http.Client, ref *Ref, headers http.Header, cache *cardCache) (*a2a.AgentCard, []byte, string, error) {
	if ref.File != "" {
		body, err := readCardFile(ref.File)
		if err != nil {
			return nil, nil, ref.File, err
		}
		card, err := ParseCard(body)
		if err != nil {
			return nil, nil, ref.File, &CardError{URL: ref.File, Err: err, Body: body}
		}
		return card, body, ref.File, nil
	}
	if ref.Catalog != "" {
		cc, err := fromCatalog(ctx, hc, ref.Catalog, headers) // catalog.go
		if err != nil {
			return nil, nil, ref.Catalog, err
		}
		if cc.inline != nil {
			card, err := ParseCard(cc.inline)
			if err != nil {
				return nil, nil, ref.Catalog, &CardError{URL: ref.Catalog, Err: fmt.Errorf("the card embedded in the AI Catalog: %w", err), Body: cc.inline}
			}
			return card, cc.inline, ref.Catalog, nil
		}
		card, body, err := getCard(ctx, hc, cc.url, headers, cache)
		return card, body, cc.url, err
	}
	var lastErr error
	for _, u := range ref.cardCandidates() {
		card, body, err := getCard(ctx, hc, u, headers, cache)
		if err == nil {
			return card, body, u, nil
		}
		var ce *CardError
		if errors.As(err, &ce) && ce.NotFound {
			lastErr = err
			continue
		}
		return nil, nil, u, err
	}
	return nil, nil, "", lastErr
}

// readCardFile reads a local card file, at most maxCardBytes of it.
func readCardFile(name string) ([]byte, error) {
	f, err := os.Open(name)
	if err != nil {
		ce := &CardError{URL: name, File: true, NotFound: errors.Is(err, os.ErrNotExist), Err: err}
		if ce.NotFound {
			ce.Err = errors.New("no such file")
			ce.Hint = "name an existing card file, or the agent by its URL (http://host:port, or host:port)"
		}
		return nil, ce
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.IsDir() {
		return nil, &CardError{URL: name, File: true, Err: errors.New("a directory, not a card file")}
	}
	body, err := io.ReadAll(io.LimitReader(f, maxCardBytes+1))
	switch {
	case err != nil:
		return nil, &CardError{URL: name, File: true, Err: err}
	case len(body) > maxCardBytes:
		return nil, &CardError{URL: name, File: true, Err: fmt.Errorf("card larger than %d bytes", maxCardBytes)}
	}
	return body, nil
}

func getCard(ctx context.Context, hc *http.Client, u string, headers http.Header, cache *cardCache) (*a2a.AgentCard, []byte, error) {
	if !cache.usable(headers) {
		cache = nil
	}
	var cached *cachedCard
	if cache != nil {
		cached = cache.load(u, headers)
	}
	if cached != nil {
		if left, ok := cache.useWithoutAsking(cached, u); ok {
			if card, err := ParseCard(cached.Body); err == nil {
				cache.log.Printf("card: %s from the cache (fresh for %s more)", u, left.Round(time.Second))
				return card, cached.Body, nil
			}
		}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, nil, fmt.Errorf("card request: %w", err)
	}
	for k, v := range headers {
		req.Header[k] = v
	}
	req.Header.Set("Accept", "application/json")
	if cached != nil {
		cached.conditional(req)
	}
	resp, err := hc.Do(req)
	if err != nil {
		if re := asResolveError(err); re != nil {
			return nil, nil, re
		}
		return nil, nil, fmt.Errorf("fetch agent card: %w", err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxCardBytes+1))
	if err != nil {
		return nil, nil, fmt.Errorf("read agent card: %w", err)
	}
	if resp.StatusCode == http.StatusNotModified && cached != nil {
		if card, err := ParseCard(cached.Body); err == nil {
			cache.log.Printf("card: %s not modified: from the cache", u)
			cache.renew(u, headers, cached, resp.Header.Clone())
			return card, cached.Body, nil
		}
	}
	switch {
	case resp.StatusCode == http.StatusNotFound || resp.StatusCode == http.StatusMethodNotAllowed:
		return nil, nil, &CardError{URL: u, NotFound: true, Err: fmt.Errorf("HTTP %s", resp.Status),
			Hint: "is this an A2A agent? pass --transport to treat the URL as the endpoint"}
	case tlsMismatch(u, resp, body) != nil:
		return nil, nil, tlsMismatch(u, resp, body)
	case resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden:
		return nil, nil, &CardError{URL: u, Unauthorized: true, Err: fmt.Errorf("HTTP %s", resp.Status),
			Hint: "the agent's card is behind authentication: pass --bearer, --api-key or --auth"}
	case resp.StatusCode != http.StatusOK:
		return nil, nil, &CardError{URL: u, Err: fmt.Errorf("HTTP %s", resp.Status)}
	case len(body) > maxCardBytes:
		return nil, nil, &CardError{URL: u, Err: fmt.Errorf("card larger than %d bytes", maxCardBytes)}
	}
	card, err := ParseCard(body)
	if err != nil {
		ce := &CardError{URL: u, Err: err, Body: body}
		if looksLikeHTML(body) || strings.Contains(resp.Header.Get("Content-Type"), "html") {
			ce.Err = errors.New("got an HTML page, not JSON")
			ce.Hint = "this URL serves a web page: point a2a at the agent's base URL or its card"
		}
		return nil, nil, ce
	}
	if cache != nil {
		cache.store(u, headers, resp.Header, body)
	}
	return card, body, nil
}

func looksLikeHTML(b []byte) bool {
	t := bytes.TrimSpace(b)
	return len(t) > 0 && t[0] == '<'
}

// ParseCard reads a v1.0 card or a v0.3 card (including one without preferredTransport, meaning JSON-RPC at url).
// A card with the key supportedInterfaces is v1.0, else one with url is v0.3. A scan of a valid card's top-level
// keys (members, wiresend.go: no allocation, no reflection) tells a v1.0 card, which one Unmarshal then reads; what
// the scan cannot tell (a key with an escape) and what that Unmarshal refuses are read as two passes always did (a
// probe of the keys, then the card of that version), for the same card or the same error.
func ParseCard(body []byte) (*a2a.AgentCard, error) {
	if scannedV1(body) {
		var card a2a.AgentCard
		if json.Unmarshal(body, &card) == nil {
			return v1Card(&card)
		}
	}
	return parseCardSlow(body)
}

// scannedV1 reports whether body is valid JSON, an object whose top-level keys have no escape and include
// supportedInterfaces, spelled exactly.
func scannedV1(body []byte) bool {
	if !json.Valid(body) {
		return false
	}
	v1 := false
	return members(body, skipSpace(body, 0), func(key []byte, _ int) bool {
		v1 = v1 || string(key) == "supportedInterfaces"
		return true
	}) && v1
}

var errNotACard = errors.New("neither supportedInterfaces (v1.0) nor url (v0.3): not an agent card")

// v1Card completes a v1.0 card: an interface without a protocol version speaks this one.
func v1Card(card *a2a.AgentCard) (*a2a.AgentCard, error) {
	for _, iface := range card.SupportedInterfaces {
		if iface != nil && iface.ProtocolVersion == "" {
			iface.ProtocolVersion = a2a.Version
		}
	}
	return validCard(card)
}

// parseCardSlow tells the card's version by its keys first, then reads it.
func parseCardSlow(body []byte) (*a2a.AgentCard, error) {
	var probe map[string]json.RawMessage
	if err := json.Unmarshal(body, &probe); err != nil {
		return nil, fmt.Errorf("not a JSON object: %w", err)
	}
	if _, ok := probe["supportedInterfaces"]; ok {
		var card a2a.AgentCard
		if err := json.Unmarshal(body, &card); err != nil {
			return nil, fmt.Errorf("parse v1.0 card: %w", err)
		}
		return v1Card(&card)
	}
	var legacy struct {
		URL                string `json:"url"`
		PreferredTransport string `json:"preferredTransport"`
		ProtocolVersion    string `json:"protocolVersion"`
	}
	if err := json.Unmarshal(body, &legacy); err != nil {
		return nil, fmt.Errorf("parse v0.3 card: %w", err)
	}
	if legacy.URL == "" {
		return nil, errNotACard
	}
	return parseV03(body, legacy.URL, legacy.PreferredTransport)
}

// parseV03 reads a v0.3 card whose url and preferredTransport are given.
func parseV03(body []byte, cardURL, preferredTransport string) (*a2a.AgentCard, error) {
	card, err := a2av0.NewAgentCardParser()(body)
	if err != nil {
		return nil, fmt.Errorf("parse v0.3 card: %w", err)
	}
	if len(card.SupportedInterfaces) == 0 {
		// v0.3: no preferredTransport means JSON-RPC at url.
		binding := a2a.TransportProtocol(preferredTransport)
		if binding == "" {
			binding = a2a.TransportProtocolJSONRPC
		}
		card.SupportedInterfaces = []*a2a.AgentInterface{{URL: cardURL, ProtocolBinding: binding}}
	}
	for _, iface := range card.SupportedInterfaces {
		if iface != nil && (iface.ProtocolVersion == "" || strings.HasPrefix(string(iface.ProtocolVersion), "0.")) {
			iface.ProtocolVersion = a2av0.Version
		}
	}
	return validCard(card)
}

func validCard(card *a2a.AgentCard) (*a2a.AgentCard, error) {
	var ifaces []*a2a.AgentInterface
	for _, iface := range card.SupportedInterfaces {
		if iface != nil && iface.URL != "" {
			ifaces = append(ifaces, iface)
		}
	}
	if len(ifaces) == 0 {
		return nil, errors.New("the card lists no interface with a URL")
	}
	card.SupportedInterfaces = ifaces
	return card, nil
}

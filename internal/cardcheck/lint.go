package cardcheck

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"sort"
	"strings"

	"github.com/a2acli/a2a/internal/cardsig"
)

// knownBindings are the protocol bindings A2A defines (v1.0 names; v0.3 spells them the same).
var knownBindings = map[string]bool{"JSONRPC": true, "HTTP+JSON": true, "GRPC": true}

// v1Required are the members the v1.0 specification marks REQUIRED (the generated schema cannot say so).
var v1Required = []string{"name", "description", "version", "supportedInterfaces", "capabilities",
	"defaultInputModes", "defaultOutputModes", "skills"}

func lint(ctx context.Context, r *Report, doc map[string]any, o Options) {
	if r.Version == "1.0" {
		for _, k := range v1Required {
			if _, ok := doc[k]; !ok {
				r.add("/"+k, Error, "required member %s is missing", k)
			}
		}
		ifaces, _ := doc["supportedInterfaces"].([]any)
		if len(ifaces) == 0 {
			r.add("/supportedInterfaces", Error, "no interface: a client cannot reach this agent")
		}
		for i, it := range ifaces {
			m, _ := it.(map[string]any)
			p := fmt.Sprintf("/supportedInterfaces/%d", i)
			lintIfaceURL(r, p+"/url", m["url"], m["protocolBinding"])
			lintBinding(r, p+"/protocolBinding", m["protocolBinding"])
		}
	} else {
		lintURL(r, "/url", doc["url"])
		if b, ok := doc["preferredTransport"]; ok {
			lintBinding(r, "/preferredTransport", b)
		}
		extra, _ := doc["additionalInterfaces"].([]any)
		for i, it := range extra {
			m, _ := it.(map[string]any)
			p := fmt.Sprintf("/additionalInterfaces/%d", i)
			lintIfaceURL(r, p+"/url", m["url"], m["transport"])
			lintBinding(r, p+"/transport", m["transport"])
		}
	}
	lintSecurity(r, doc)
	lintJKU(ctx, r, doc, o)
}

// grpcTarget matches host:port, the gRPC dial target many agents (a2a-go's and a2a-python's among them) list
// for a GRPC interface instead of a URL.
func grpcTarget(s string) bool {
	host, port, err := net.SplitHostPort(s)
	return err == nil && host != "" && port != "" && !strings.Contains(s, "/")
}

// lintIfaceURL is lintURL, except that a GRPC interface's host:port is a warning: clients dial it, but the
// specification asks for an absolute URL.
func lintIfaceURL(r *Report, path string, v, binding any) {
	if s, _ := v.(string); binding == "GRPC" && grpcTarget(s) {
		r.add(path, Warning, "%q is a gRPC target, not the absolute URL the specification asks for (e.g. https://%s)", s, s)
		return
	}
	lintURL(r, path, v)
}

func lintURL(r *Report, path string, v any) {
	s, _ := v.(string)
	u, err := url.Parse(s)
	switch {
	case s == "":
		r.add(path, Error, "missing URL")
	case err != nil || !u.IsAbs() || u.Host == "":
		r.add(path, Error, "%q is not an absolute URL", s)
	case u.Scheme != "http" && u.Scheme != "https" && u.Scheme != "grpc" && u.Scheme != "grpcs":
		r.add(path, Warning, "unusual scheme %q (want https, http or grpc)", u.Scheme)
	case u.Scheme == "http" && !loopback(u.Hostname()):
		r.add(path, Warning, "%s is plain http: credentials and tasks travel unencrypted", s)
	}
}

func loopback(host string) bool {
	return host == "localhost" || strings.HasPrefix(host, "127.") || host == "::1"
}

func lintBinding(r *Report, path string, v any) {
	s, _ := v.(string)
	if !knownBindings[s] {
		r.add(path, Warning, "unknown protocol binding %q (known: JSONRPC, HTTP+JSON, GRPC): clients will skip it", s)
	}
}

// lintSecurity checks that every security requirement names a declared scheme.
func lintSecurity(r *Report, doc map[string]any) {
	declared, _ := doc["securitySchemes"].(map[string]any)
	key, inner := "securityRequirements", true
	if _, ok := doc["security"]; ok {
		key, inner = "security", false // v0.3: a list of {scheme: [scopes]}
	}
	reqs, _ := doc[key].([]any)
	for i, req := range reqs {
		m, _ := req.(map[string]any)
		if inner {
			m, _ = m["schemes"].(map[string]any)
		}
		names := make([]string, 0, len(m))
		for n := range m {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			if _, ok := declared[n]; !ok {
				r.add(fmt.Sprintf("/%s/%d", key, i), Error, "requirement names scheme %q, which securitySchemes does not declare", n)
			}
		}
	}
}

// lintJKU checks that each signature's jku may be followed (https, the card's origin) and answers with a key set.
func lintJKU(ctx context.Context, r *Report, doc map[string]any, o Options) {
	sigs, _ := doc["signatures"].([]any)
	for i, s := range sigs {
		m, _ := s.(map[string]any)
		p := fmt.Sprintf("/signatures/%d/protected", i)
		prot, _ := m["protected"].(string)
		raw, err := base64.RawURLEncoding.DecodeString(prot)
		var h struct {
			JKU string `json:"jku"`
		}
		if err != nil || json.Unmarshal(raw, &h) != nil {
			r.add(p, Error, "the protected header is not base64url JSON")
			continue
		}
		if h.JKU == "" {
			continue
		}
		if err := cardsig.JKUAllowed(h.JKU, o.CardURL); err != nil {
			r.add(p, Warning, "%v", err)
			continue
		}
		if o.HTTP == nil {
			continue
		}
		if err := reachable(ctx, o.HTTP, h.JKU); err != nil {
			r.add(p, Warning, "jku %s unreachable: %v", h.JKU, err)
		}
	}
}

func reachable(ctx context.Context, hc *http.Client, u string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return err
	}
	resp, err := hc.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("HTTP %d", resp.StatusCode)
	}
	var set struct {
		Keys []json.RawMessage `json:"keys"`
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, cardsig.MaxJWKSBytes)).Decode(&set); err != nil || len(set.Keys) == 0 {
		return fmt.Errorf("not a JWKS with keys")
	}
	return nil
}

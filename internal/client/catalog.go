package client

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"path"
	"slices"
	"sort"
	"strings"
)

// wellKnownCatalog is RFC 9727's API catalog path; aiCatalogFile ends an AI Catalog's (ai-catalog.io), usually
// /.well-known/ai-catalog.json.
const (
	wellKnownCatalog = "/.well-known/api-catalog"
	aiCatalogFile    = "ai-catalog.json"
)

// isCatalog reports whether a URL path names a catalog rather than an agent card.
func isCatalog(p string) bool {
	return strings.HasSuffix(p, wellKnownCatalog) || path.Base(p) == aiCatalogFile
}

// catalogCard is what a catalog resolved to: the URL of an agent card, or, for an AI Catalog entry that embeds
// the card (data), the card itself.
type catalogCard struct {
	url    string
	inline []byte
}

// fromCatalog resolves an agent reference that names a catalog (the a2a-cli specification, §10.1: catalog
// resolution wherever --agent-card takes a reference) to an agent card it lists. An RFC 9727 API catalog: the
// links of its linkset whose target is an agent card (…/agent-card.json, …/agent.json). An AI Catalog
// (application/ai-catalog+json): its entries of type application/a2a-agent-card+json, by url or embedded as data
// (nested catalogs are not followed). A catalog listing several needs #name, matched against each entry's anchor,
// link and title (API catalog) or identifier, displayName and url (AI Catalog).
func fromCatalog(ctx context.Context, hc *http.Client, catalog string, headers http.Header) (catalogCard, error) {
	u, err := url.Parse(catalog)
	if err != nil {
		return catalogCard{}, Usagef("invalid catalog URL %q", catalog)
	}
	want := u.Fragment
	u.Fragment = ""
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return catalogCard{}, fmt.Errorf("catalog request: %w", err)
	}
	for k, v := range headers {
		req.Header[k] = v
	}
	req.Header.Set("Accept", "application/linkset+json, application/ai-catalog+json, application/json")
	resp, err := hc.Do(req)
	if err != nil {
		if re := asResolveError(err); re != nil {
			return catalogCard{}, re
		}
		return catalogCard{}, fmt.Errorf("fetch API catalog: %w", err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxCardBytes+1))
	if err != nil {
		return catalogCard{}, fmt.Errorf("read API catalog: %w", err)
	}
	switch {
	case resp.StatusCode == http.StatusNotFound:
		return catalogCard{}, &CardError{URL: u.String(), NotFound: true, Err: fmt.Errorf("HTTP %s", resp.Status), Hint: "no API catalog at this URL"}
	case resp.StatusCode != http.StatusOK:
		return catalogCard{}, &CardError{URL: u.String(), Err: fmt.Errorf("API catalog: HTTP %s", resp.Status)}
	case len(body) > maxCardBytes:
		return catalogCard{}, &CardError{URL: u.String(), Err: fmt.Errorf("API catalog larger than %d bytes", maxCardBytes)}
	}
	var doc struct {
		Linkset     []map[string]json.RawMessage `json:"linkset"`
		SpecVersion string                       `json:"specVersion"`
		Entries     []struct {
			Identifier  string          `json:"identifier"`
			DisplayName string          `json:"displayName"`
			Type        string          `json:"type"`
			URL         string          `json:"url"`
			Data        json.RawMessage `json:"data"`
		} `json:"entries"`
	}
	if err := json.Unmarshal(body, &doc); err != nil {
		return catalogCard{}, &CardError{URL: u.String(), Err: fmt.Errorf("not an RFC 9727 linkset or an AI Catalog: %v", err)}
	}
	if doc.Linkset == nil && doc.SpecVersion == "" {
		return catalogCard{}, &CardError{URL: u.String(), Err: fmt.Errorf("neither an RFC 9727 linkset nor an AI Catalog (no linkset, no specVersion)")}
	}
	type entry struct {
		href, label string
		inline      []byte
	}
	var found []entry
	for _, e := range doc.Entries {
		mt, _, _ := strings.Cut(e.Type, ";")
		if t := strings.TrimSpace(strings.ToLower(mt)); t != "application/a2a-agent-card+json" && t != "application/agent-card+json" {
			continue
		}
		label := e.Identifier + " " + e.DisplayName
		if len(e.Data) > 0 && string(e.Data) != "null" {
			found = append(found, entry{e.Identifier, label, e.Data})
			continue
		}
		target, err := u.Parse(e.URL)
		if err != nil || (target.Scheme != "http" && target.Scheme != "https") {
			continue
		}
		found = append(found, entry{target.String(), label, nil})
	}
	seen := map[string]bool{}
	for _, ctxObj := range doc.Linkset {
		var anchor string
		if a, ok := ctxObj["anchor"]; ok {
			_ = json.Unmarshal(a, &anchor)
		}
		for rel, raw := range ctxObj {
			if rel == "anchor" {
				continue
			}
			var links []struct {
				Href  string `json:"href"`
				Title string `json:"title"`
			}
			if json.Unmarshal(raw, &links) != nil {
				continue
			}
			for _, l := range links {
				target, err := u.Parse(l.Href)
				if err != nil || (target.Scheme != "http" && target.Scheme != "https") {
					continue
				}
				if base := path.Base(target.Path); base != "agent-card.json" && base != "agent.json" {
					continue
				}
				if !seen[target.String()] {
					seen[target.String()] = true
					found = append(found, entry{target.String(), anchor + " " + l.Title, nil})
				}
			}
		}
	}
	sort.Slice(found, func(i, j int) bool { return found[i].href < found[j].href })
	kind := "API catalog"
	if doc.SpecVersion != "" {
		kind = "AI Catalog"
	}
	var match []entry
	for _, e := range found {
		if want == "" || strings.Contains(e.href, want) || strings.Contains(e.label, want) {
			match = append(match, e)
		}
	}
	if len(match) > 1 {
		// #name that is one entry's whole identifier, name or URL picks it, whatever else contains it.
		var exact []entry
		for _, e := range match {
			if e.href == want || slices.Contains(strings.Fields(e.label), want) || strings.TrimSpace(e.label) == want {
				exact = append(exact, e)
			}
		}
		if len(exact) > 0 {
			match = exact
		}
	}
	names := func(es []entry) string { return strings.Join(hrefs(es, func(e entry) string { return e.href }), ", ") }
	switch {
	case len(match) == 1:
		return catalogCard{url: match[0].href, inline: match[0].inline}, nil
	case len(found) == 0:
		return catalogCard{}, &CardError{URL: u.String(), NotFound: true, Err: fmt.Errorf("the %s lists no agent card", kind)}
	case len(match) == 0:
		return catalogCard{}, Usagef("no agent %q in the %s %s (it lists %s)", want, kind, u, names(found))
	}
	return catalogCard{}, WithHint(Usagef("the %s %s lists %d agent cards: %s", kind, u, len(match), names(match)),
		"choose one with #name after the catalog's URL")
}

func hrefs[T any](xs []T, f func(T) string) []string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = f(x)
	}
	return out
}

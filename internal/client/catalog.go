package client

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"path"
	"sort"
	"strings"
)

// wellKnownCatalog is RFC 9727's API catalog path.
const wellKnownCatalog = "/.well-known/api-catalog"

// fromCatalog resolves an agent reference that names an RFC 9727 API catalog (the a2a-cli specification, §10.1:
// catalog resolution wherever --agent-card takes a reference) to the URL of an agent card it lists: the links of
// its linkset whose target is an agent card (…/agent-card.json, …/agent.json). A catalog listing several needs
// #name, matched against each entry's anchor, link and title.
func fromCatalog(ctx context.Context, hc *http.Client, catalog string, headers http.Header) (string, error) {
	u, err := url.Parse(catalog)
	if err != nil {
		return "", Usagef("invalid catalog URL %q", catalog)
	}
	want := u.Fragment
	u.Fragment = ""
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return "", fmt.Errorf("catalog request: %w", err)
	}
	for k, v := range headers {
		req.Header[k] = v
	}
	req.Header.Set("Accept", "application/linkset+json, application/json")
	resp, err := hc.Do(req)
	if err != nil {
		if re := asResolveError(err); re != nil {
			return "", re
		}
		return "", fmt.Errorf("fetch API catalog: %w", err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxCardBytes+1))
	if err != nil {
		return "", fmt.Errorf("read API catalog: %w", err)
	}
	switch {
	case resp.StatusCode == http.StatusNotFound:
		return "", &CardError{URL: u.String(), NotFound: true, Err: fmt.Errorf("HTTP %s", resp.Status), Hint: "no API catalog at this URL"}
	case resp.StatusCode != http.StatusOK:
		return "", &CardError{URL: u.String(), Err: fmt.Errorf("API catalog: HTTP %s", resp.Status)}
	case len(body) > maxCardBytes:
		return "", &CardError{URL: u.String(), Err: fmt.Errorf("API catalog larger than %d bytes", maxCardBytes)}
	}
	var doc struct {
		Linkset []map[string]json.RawMessage `json:"linkset"`
	}
	if err := json.Unmarshal(body, &doc); err != nil {
		return "", &CardError{URL: u.String(), Err: fmt.Errorf("not an RFC 9727 linkset: %v", err)}
	}
	type entry struct{ href, label string }
	var found []entry
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
					found = append(found, entry{target.String(), anchor + " " + l.Title})
				}
			}
		}
	}
	sort.Slice(found, func(i, j int) bool { return found[i].href < found[j].href })
	var match []string
	for _, e := range found {
		if want == "" || strings.Contains(e.href, want) || strings.Contains(e.label, want) {
			match = append(match, e.href)
		}
	}
	switch {
	case len(match) == 1:
		return match[0], nil
	case len(found) == 0:
		return "", &CardError{URL: u.String(), NotFound: true, Err: fmt.Errorf("the API catalog lists no agent card")}
	case len(match) == 0:
		return "", Usagef("no agent %q in the API catalog %s (it lists %s)", want, u, strings.Join(hrefs(found, func(e entry) string { return e.href }), ", "))
	}
	return "", WithHint(Usagef("the API catalog %s lists %d agent cards: %s", u, len(match), strings.Join(match, ", ")),
		"choose one with #name after the catalog's URL")
}

func hrefs[T any](xs []T, f func(T) string) []string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = f(x)
	}
	return out
}

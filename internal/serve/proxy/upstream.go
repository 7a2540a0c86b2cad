package proxy

import (
	"net/url"
	"strings"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/a2acli/a2a/internal/serve"
)

// fastRoutes are where the fast path sends requests: the upstream interface of each HTTP binding
// and version the upstream serves, and the origin of its first HTTP interface for other paths.
type fastRoutes struct {
	targets map[Binding]*url.URL
	origin  *url.URL
}

func newFastRoutes(card *a2a.AgentCard) *fastRoutes {
	r := &fastRoutes{targets: map[Binding]*url.URL{}}
	if card == nil {
		return r
	}
	for _, iface := range card.SupportedInterfaces {
		if iface == nil || (iface.ProtocolBinding != a2a.TransportProtocolJSONRPC && iface.ProtocolBinding != a2a.TransportProtocolHTTPJSON) {
			continue
		}
		u, err := url.Parse(iface.URL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			continue
		}
		if r.origin == nil {
			r.origin = &url.URL{Scheme: u.Scheme, Host: u.Host}
		}
		k := Binding{iface.ProtocolBinding, serve.MajorMinor(string(iface.ProtocolVersion))}
		if _, dup := r.targets[k]; !dup && iface.Tenant == "" && k.Version != "" {
			r.targets[k] = u
		}
	}
	return r
}

// target is the upstream URL of a request, or nil when it cannot take the fast path: the front's
// JSON-RPC endpoint maps to the upstream JSON-RPC URL, REST paths go under the upstream REST base
// URL, other paths to the upstream origin.
func (rt *fastRoutes) target(fr Route, in *url.URL) *url.URL {
	if fr.Kind == Other {
		if rt.origin == nil {
			return nil
		}
		u := *rt.origin
		u.Path, u.RawPath, u.RawQuery = in.Path, in.RawPath, in.RawQuery
		return &u
	}
	base := rt.targets[fr.Binding]
	if base == nil {
		return nil
	}
	u := *base
	if fr.Binding.Protocol == a2a.TransportProtocolHTTPJSON {
		u.Path = strings.TrimSuffix(base.Path, "/") + in.Path
		u.RawPath = ""
		if in.RawPath != "" {
			u.RawPath = strings.TrimSuffix(base.EscapedPath(), "/") + in.RawPath
		}
		u.RawQuery = in.RawQuery
	}
	return &u
}

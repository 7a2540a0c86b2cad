package client

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"sync"

	"google.golang.org/grpc"
	"google.golang.org/grpc/metadata"

	"github.com/a2acli/a2a/internal/redact"
	"github.com/a2acli/a2a/internal/termsafe"
)

// Credentials stay on the origin the user named: the scheme, host and port of the <url> argument (for a local card
// file, of the interface a2a picks from it, since the user named no origin). localhost, 127.0.0.1 and [::1] with the
// same scheme and port are one origin: serve's card names 127.0.0.1 when the user typed localhost. A request anywhere else - an interface
// a card puts on another host or port, a redirect - travels without them, on every binding. A credential is --auth
// and every service parameter whose name marks one (the names -v redacts: Authorization, X-Api-Key, Cookie, …);
// other service parameters travel everywhere. --auth-all-origins turns the rule off, as curl's --location-trusted.
//
// Withholding is announced with one warning line per origin on stderr even without -v: the user passed credentials
// on purpose, and the agent's "401" that follows would be a puzzle without it.

// credGuard decides, per request, whether credentials may go to its target.
type credGuard struct {
	all bool      // --auth-all-origins
	w   io.Writer // stderr, for the warning
	log *Log

	mu       sync.Mutex
	named    string // the origin the user named; "" until resolve knows it, and then nothing gets credentials
	withheld []string
}

func newCredGuard(all bool, w io.Writer, log *Log) *credGuard {
	return &credGuard{all: all, w: w, log: log}
}

// name sets the origin credentials may go to.
func (g *credGuard) name(origin string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.named = origin
}

// allows reports whether credentials may travel to origin.
func (g *credGuard) allows(origin string) bool {
	if g == nil || g.all {
		return true
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	return origin != "" && sameOrigin(origin, g.named)
}

// sameOrigin reports whether two origins ("scheme://host:port", as originOf writes them) are one for credentials:
// equal, or the same scheme and port on two names of the loopback host (localhost, 127.0.0.1, [::1]), which a user
// types and a card writes interchangeably.
func sameOrigin(a, b string) bool {
	if a == b {
		return true
	}
	ua, errA := url.Parse(a)
	ub, errB := url.Parse(b)
	return errA == nil && errB == nil && ua.Scheme == ub.Scheme && ua.Port() == ub.Port() &&
		loopbackName(ua.Hostname()) && loopbackName(ub.Hostname())
}

// loopbackName reports whether host is one of the loopback host's usual names.
func loopbackName(host string) bool {
	switch strings.ToLower(host) {
	case "localhost", "127.0.0.1", "::1":
		return true
	}
	return false
}

// withhold records that the credentials called names were not sent to origin: a -v line each time, a warning the
// first time for that origin.
func (g *credGuard) withhold(origin string, names []string) {
	g.mu.Lock()
	named := g.named
	first := true
	for _, o := range g.withheld {
		if o == origin {
			first = false
		}
	}
	if first {
		g.withheld = append(g.withheld, origin)
	}
	g.mu.Unlock()
	if named == "" {
		named = "none yet"
	}
	g.log.Printf("credentials withheld from %s (%s): not the origin you named (%s)", origin, strings.Join(names, ", "), named)
	if first {
		fmt.Fprintf(g.w, "warning: not sending credentials to %s: it is not the origin you named (%s); --auth-all-origins sends them anyway\n",
			termsafe.Sanitize(origin), termsafe.Sanitize(named))
	}
}

// WithheldFrom lists the origins credentials were kept from, in order.
func (g *credGuard) WithheldFrom() []string {
	if g == nil {
		return nil
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	return append([]string(nil), g.withheld...)
}

// strip returns req without its credential headers when they may not go to req's origin, else req itself. The
// caller's request is never changed (a RoundTripper must not).
func (g *credGuard) strip(req *http.Request) *http.Request {
	names := credentialNames(req.Header)
	if len(names) == 0 {
		return req
	}
	origin := originOf(req.URL)
	if g.allows(origin) {
		return req
	}
	out := req.Clone(req.Context())
	for _, n := range names {
		out.Header.Del(n)
	}
	g.withhold(origin, names)
	return out
}

// credentialNames lists the header names in h that carry a credential, sorted.
func credentialNames(h map[string][]string) []string {
	var names []string
	for k := range h {
		if redact.Sensitive(k) {
			names = append(names, k)
		}
	}
	sort.Strings(names)
	return names
}

// grpcInterceptors keep credential metadata off a gRPC connection to origin when it is not the named one.
func (g *credGuard) grpcInterceptors(origin string) (grpc.UnaryClientInterceptor, grpc.StreamClientInterceptor) {
	unary := func(ctx context.Context, method string, req, reply any, cc *grpc.ClientConn, invoker grpc.UnaryInvoker, opts ...grpc.CallOption) error {
		return invoker(g.stripMetadata(ctx, origin), method, req, reply, cc, opts...)
	}
	stream := func(ctx context.Context, desc *grpc.StreamDesc, cc *grpc.ClientConn, method string, streamer grpc.Streamer, opts ...grpc.CallOption) (grpc.ClientStream, error) {
		return streamer(g.stripMetadata(ctx, origin), desc, cc, method, opts...)
	}
	return unary, stream
}

func (g *credGuard) stripMetadata(ctx context.Context, origin string) context.Context {
	md, ok := metadata.FromOutgoingContext(ctx)
	if !ok {
		return ctx
	}
	names := credentialNames(md)
	if len(names) == 0 || g.allows(origin) {
		return ctx
	}
	md = md.Copy()
	for _, n := range names {
		delete(md, n)
	}
	g.withhold(origin, names)
	return metadata.NewOutgoingContext(ctx, md)
}

// originOf is the origin of u as "scheme://host:port", with the default port filled in and grpc(s) counted as
// http(s) (the same server, spoken to in gRPC). A URL without a host has no origin: "".
func originOf(u *url.URL) string {
	if u == nil || u.Host == "" {
		return ""
	}
	scheme := strings.ToLower(u.Scheme)
	switch scheme {
	case "grpc", "":
		scheme = "http"
	case "grpcs":
		scheme = "https"
	}
	port := u.Port()
	if port == "" {
		port = "80"
		if scheme == "https" {
			port = "443"
		}
	}
	return scheme + "://" + net.JoinHostPort(strings.ToLower(u.Hostname()), port)
}

// refOrigin is the origin the user named with the <url> argument, "" for a card file.
func refOrigin(ref *Ref) string {
	if ref.CardURL != "" {
		if u, err := url.Parse(ref.CardURL); err == nil {
			return originOf(u)
		}
	}
	return originOf(ref.Base)
}

// ifaceOrigin is the origin of an interface URL, gRPC's bare host:port included.
func ifaceOrigin(iface string) string {
	u, err := url.Parse(iface)
	if err != nil || u.Host == "" {
		target, useTLS := grpcTarget(iface)
		scheme := "http"
		if useTLS {
			scheme = "https"
		}
		u = &url.URL{Scheme: scheme, Host: target}
	}
	return originOf(u)
}

package serve

import (
	"context"
	"maps"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/a2acli/a2a/internal/serve/traffic"
)

// isLoopback reports whether a listener's address is reachable from this machine only.
func isLoopback(addr net.Addr) bool {
	tcp, ok := addr.(*net.TCPAddr)
	return ok && tcp.IP.IsLoopback()
}

// published reports whether serve is published beyond this machine under a name that is not loopback: a
// --public-url or an --allow-host naming another host means a reverse proxy or a tunnel brings other machines'
// calls to a loopback listener.
func published(cfg *Config) bool {
	for _, h := range cfg.AllowHosts {
		if !loopbackName(h) {
			return true
		}
	}
	u, err := url.Parse(cfg.PublicURL)
	return err == nil && u.Hostname() != "" && !loopbackName(u.Hostname())
}

// warnExposed says, once at start-up, that the server can be reached from other machines.
func warnExposed(log *traffic.Log, cfg *Config, bound string, exposed bool) {
	if !exposed {
		return
	}
	if cfg.Token == "" {
		log.Printf("warning: %s is reachable from other machines and takes calls without a token: anyone who reaches it can call this agent\n", bound)
		return
	}
	log.Printf("warning: %s is reachable from other machines: every call but the agent card needs the token\n", bound)
}

// boundAddress is the address listened on as the operator named it (0.0.0.0 stays 0.0.0.0), with the real port.
func boundAddress(cfg *Config, addr net.Addr) string {
	tcp, ok := addr.(*net.TCPAddr)
	if !ok {
		return addr.String()
	}
	return net.JoinHostPort(strings.Trim(cfg.Host, "[]"), strconv.Itoa(tcp.Port))
}

// tokenScheme names the bearer scheme in the card.
const tokenScheme a2a.SecuritySchemeName = "bearer"

// withSecurity declares the token in the card: an HTTP bearer scheme, required for every call.
func withSecurity(base func(context.Context) (*a2a.AgentCard, error), token string) func(context.Context) (*a2a.AgentCard, error) {
	if token == "" {
		return base
	}
	return func(ctx context.Context) (*a2a.AgentCard, error) {
		c, err := base(ctx)
		if err != nil {
			return nil, err
		}
		out := *c
		out.SecuritySchemes = maps.Clone(c.SecuritySchemes)
		if out.SecuritySchemes == nil {
			out.SecuritySchemes = a2a.NamedSecuritySchemes{}
		}
		out.SecuritySchemes[tokenScheme] = a2a.HTTPAuthSecurityScheme{Scheme: "Bearer",
			Description: "the token a2a serve was started with (--token)"}
		out.SecurityRequirements = append(a2a.SecurityRequirementsOptions{{tokenScheme: {}}}, c.SecurityRequirements...)
		return &out, nil
	}
}

// requestHostKey carries the Host a card request came with, down to the card producer: request
// input only, never a result back up.
type requestHostKey struct{}

// withRequestHost hands the card producer the Host the client used.
func withRequestHost(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), requestHostKey{}, r.Host)))
	})
}

// cardInterfaces returns what the card lists: at --public-url when given; on an unspecified address (0.0.0.0, ::),
// at the host the client used, which is one it can reach; else at the address listened on.
func cardInterfaces(cfg *Config, hostport string, ver versions, exposed bool) func(context.Context) []*a2a.AgentInterface {
	static := interfaces(hostport, cfg.Transports, ver.v1, ver.v03)
	if u, err := url.Parse(cfg.PublicURL); err == nil && u.Host != "" {
		static = rebase(static, hostport, u)
		return func(context.Context) []*a2a.AgentInterface { return static }
	}
	ip := net.ParseIP(cfg.Host)
	if !exposed || ip == nil || !ip.IsUnspecified() {
		return func(context.Context) []*a2a.AgentInterface { return static }
	}
	_, port, _ := net.SplitHostPort(hostport) // hostport is ours: it splits
	return func(ctx context.Context) []*a2a.AgentInterface {
		host, _ := ctx.Value(requestHostKey{}).(string)
		if ip := net.ParseIP(strings.Trim(hostOnly(host), "[]")); !plainHost(host) || (ip != nil && ip.IsUnspecified()) {
			return static // a client that dialled 0.0.0.0 itself gets the loopback address
		}
		if _, _, err := net.SplitHostPort(host); err != nil {
			host = net.JoinHostPort(strings.Trim(host, "[]"), port)
		}
		return interfaces(host, cfg.Transports, ver.v1, ver.v03)
	}
}

// plainHost reports a Host header that is just a name or address and an optional port.
func plainHost(h string) bool {
	if h == "" || strings.ContainsAny(h, "/@?#\\ %") {
		return false
	}
	u, err := url.Parse("http://" + h)
	return err == nil && u.Host == h
}

// rebase moves interfaces listed at hostport to the public URL u.
func rebase(ifaces []*a2a.AgentInterface, hostport string, u *url.URL) []*a2a.AgentInterface {
	base := strings.TrimSuffix(u.String(), "/")
	target := u.Host
	if u.Port() == "" {
		port := 80
		if u.Scheme == "https" {
			port = 443
		}
		target = net.JoinHostPort(u.Hostname(), strconv.Itoa(port))
	}
	out := make([]*a2a.AgentInterface, len(ifaces))
	for i, in := range ifaces {
		c := *in
		if rest, ok := strings.CutPrefix(c.URL, "http://"+hostport); ok {
			c.URL = base + rest
		} else if c.URL == hostport {
			c.URL = target
		}
		out[i] = &c
	}
	return out
}

package servecmd

import (
	"net"
	"net/url"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/a2acli/a2a/internal/serve"
)

// serveGuardOptions are serve's flags about who may call it and how much it takes.
type serveGuardOptions struct {
	publicURL    string
	allowOrigins []string
	allowHosts   []string
	token        string
	tokenFile    string
	noToken      bool
	maxReqBytes  int64
}

// tokenEnv names the environment variable that carries serve's token, so that it need not appear in ps.
const tokenEnv = "A2ACLI_SERVE_TOKEN"

func (g *serveGuardOptions) addFlags(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.StringVar(&g.publicURL, "public-url", "", "the URL clients reach this server at (behind a reverse proxy): the card advertises it, its host and origin are accepted")
	fl.StringArrayVar(&g.allowOrigins, "allow-origin", nil, "let web pages of this origin (scheme://host:port, or '*') call the server (repeatable)")
	fl.StringArrayVar(&g.allowHosts, "allow-host", nil, "accept this Host name on a loopback listener besides localhost and loopback addresses (repeatable)")
	fl.StringVar(&g.token, "token", "", "require 'Authorization: Bearer TOKEN' on every call but the card (also "+tokenEnv+")")
	fl.StringVar(&g.tokenFile, "token-file", "", "read the --token from this file")
	fl.BoolVar(&g.noToken, "no-token", false, "serve --exec or --proxy beyond loopback without a token: anyone who reaches the port can call it")
	fl.Int64Var(&g.maxReqBytes, "max-request-bytes", 4<<20, "refuse request bodies (and gRPC messages) larger than n bytes (0: no limit)")
	cmd.MarkFlagsMutuallyExclusive("token", "token-file", "no-token")
	_ = cmd.MarkFlagFilename("token-file") // cannot fail: the flag exists
}

// apply checks the flags and sets them in cfg. risky says whether the backend runs something on the caller's
// behalf (--exec, --proxy): such a server needs a token once it leaves loopback.
func (g *serveGuardOptions) apply(cfg *serve.Config, getenv func(string) string, risky bool, usage func(string, ...any) error) error {
	if g.maxReqBytes < 0 {
		return usage("invalid --max-request-bytes %d: want 0 or more", g.maxReqBytes)
	}
	cfg.MaxRequestBytes = g.maxReqBytes
	if g.maxReqBytes == 0 {
		cfg.MaxRequestBytes = -1 // serve.Config's "no bound"
	}
	if g.publicURL != "" {
		u, err := url.Parse(g.publicURL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return usage("invalid --public-url %q: want http(s)://host[:port][/path]", g.publicURL)
		}
		cfg.PublicURL = g.publicURL
	}
	for _, o := range g.allowOrigins {
		u, err := url.Parse(o)
		if o != "*" && (err != nil || u.Scheme == "" || u.Host == "" || strings.Trim(u.Path, "/") != "") {
			return usage("invalid --allow-origin %q: want scheme://host[:port] (as a browser sends it), or '*'", o)
		}
	}
	for _, h := range g.allowHosts {
		if h == "" || (strings.ContainsAny(h, "/:@ ") && net.ParseIP(h) == nil) {
			return usage("invalid --allow-host %q: want a host name or address, without a port", h)
		}
	}
	cfg.AllowOrigins, cfg.AllowHosts = g.allowOrigins, g.allowHosts
	token := g.token
	if g.tokenFile != "" {
		b, err := os.ReadFile(g.tokenFile)
		if err != nil {
			return usage("--token-file: %v", err)
		}
		token = strings.TrimSpace(string(b))
		if token == "" {
			return usage("--token-file %s is empty", g.tokenFile)
		}
	}
	if token == "" && !g.noToken {
		token = strings.TrimSpace(getenv(tokenEnv))
	}
	cfg.Token = token
	if token == "" && risky && !g.noToken && !loopbackHost(cfg.Host) {
		return usage("--host %s makes the server reachable from other machines: give it a --token (or %s, or "+
			"--token-file) that every caller must send, or say --no-token to run without one", cfg.Host, tokenEnv)
	}
	return nil
}

// loopbackHost reports a --host that binds loopback only.
func loopbackHost(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(strings.Trim(host, "[]"))
	return ip != nil && ip.IsLoopback()
}

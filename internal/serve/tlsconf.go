package serve

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"strings"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

// TLS on the one port every transport shares (Config.TLSCertFile, Config.TLSKeyFile):
//   - the splitter (hotpath/tls.go) accepts TCP, does the handshake itself (bounded by sniffTimeout), then routes by the protocol
//     ALPN agreed: "h2" goes to gRPC, "http/1.1" (or none) to the HTTP server. The server prefers http/1.1, so an
//     HTTP client that offers both (curl, Go's http.Transport) gets HTTP/1.1, which the fast path and the
//     detached streams speak; gRPC clients offer h2 alone and get it. Without gRPC, h2 is not offered at all;
//   - a client that speaks plain HTTP to the TLS port gets what net/http answers: 400 "Client sent an HTTP
//     request to an HTTPS server", which the CLI turns into its hint (use https://);
//   - the card lists https:// URLs (gRPC stays a bare host:port, the target gRPC clients dial; the client
//     takes it as TLS when the card came over https:// from that host and port).

// tlsConfig loads the certificate pair; nil when the server is plain.
func (cfg *Config) tlsConfig() (*tls.Config, error) {
	if cfg.TLSCertFile == "" && cfg.TLSKeyFile == "" {
		return nil, nil
	}
	if cfg.TLSCertFile == "" || cfg.TLSKeyFile == "" {
		return nil, errors.New("TLS needs both a certificate and a key file")
	}
	pair, err := tls.LoadX509KeyPair(cfg.TLSCertFile, cfg.TLSKeyFile)
	if err != nil {
		return nil, fmt.Errorf("load TLS certificate: %w", err)
	}
	c := &tls.Config{Certificates: []tls.Certificate{pair}, MinVersion: tls.VersionTLS12, NextProtos: []string{"http/1.1"}}
	for _, tr := range cfg.Transports {
		if tr == a2a.TransportProtocolGRPC {
			c.NextProtos = []string{"http/1.1", "h2"} // the server's order wins: h2 only for clients offering nothing else
		}
	}
	return c, nil
}

// scheme is the URL scheme clients reach the server with.
func (cfg *Config) scheme() string {
	if cfg.TLSCertFile != "" {
		return "https"
	}
	return "http"
}

// httpsInterfaces lists the interfaces at https:// URLs when the server speaks TLS and no --public-url says
// otherwise.
func httpsInterfaces(cfg *Config, list func(context.Context) []*a2a.AgentInterface) func(context.Context) []*a2a.AgentInterface {
	if cfg.scheme() != "https" || cfg.PublicURL != "" {
		return list
	}
	return func(ctx context.Context) []*a2a.AgentInterface {
		in := list(ctx)
		out := make([]*a2a.AgentInterface, len(in))
		for i, iface := range in {
			c := *iface
			if rest, ok := strings.CutPrefix(c.URL, "http://"); ok {
				c.URL = "https://" + rest
			}
			out[i] = &c
		}
		return out
	}
}

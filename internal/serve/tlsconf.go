package serve

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

// TLS on the one port every transport shares (Config.TLSCertFile, Config.TLSKeyFile):
//   - the splitter accepts TCP, does the handshake itself (bounded by sniffTimeout), then routes by the protocol
//     ALPN agreed: "h2" goes to gRPC, "http/1.1" (or none) to the HTTP server. The server prefers http/1.1, so an
//     HTTP client that offers both (curl, Go's http.Transport) gets HTTP/1.1, which the fast path and the
//     detached streams speak; gRPC clients offer h2 alone and get it. Without gRPC, h2 is not offered at all;
//   - a client that speaks plain HTTP to the TLS port gets what net/http answers: 400 "Client sent an HTTP
//     request to an HTTPS server", which the CLI turns into its hint (use https://);
//   - the card lists https:// URLs (v1.0 gRPC stays a bare host:port, as a2a-go dials it).

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

// handshake runs the TLS handshake of an accepted connection; ok is false when it failed and c is closed.
// h2 reports that the client agreed on HTTP/2 (gRPC). A failure is told to refused (nil => not told), but for a
// connection closed before it said anything (a TCP probe, a port scan).
func handshake(raw net.Conn, conf *tls.Config, refused func(client, reason string)) (c *tls.Conn, h2, ok bool) {
	c = tls.Server(raw, conf)
	ctx, cancel := context.WithTimeout(context.Background(), sniffTimeout)
	defer cancel()
	if err := c.HandshakeContext(ctx); err != nil {
		reason := "TLS handshake: " + err.Error()
		var re tls.RecordHeaderError
		if errors.As(err, &re) && re.Conn != nil && looksLikeHTTP(re.RecordHeader[:]) {
			// What net/http answers in this case, so that clients (ours included) recognise it.
			_ = re.Conn.SetWriteDeadline(time.Now().Add(time.Second)) // best effort: the answer is a courtesy
			_, _ = io.WriteString(re.Conn, "HTTP/1.0 400 Bad Request\r\n\r\nClient sent an HTTP request to an HTTPS server.\n")
			reason = "plain HTTP sent to the TLS port"
		}
		if refused != nil && !errors.Is(err, io.EOF) {
			refused(raw.RemoteAddr().String(), reason)
		}
		raw.Close()
		return nil, false, false
	}
	return c, c.ConnectionState().NegotiatedProtocol == "h2", true
}

// looksLikeHTTP reports whether the first bytes of a connection are a plain HTTP/1 request line.
func looksLikeHTTP(hdr []byte) bool {
	switch string(hdr) {
	case "GET /", "HEAD ", "POST ", "PUT /", "OPTIO", "DELET", "PATCH":
		return true
	}
	return false
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

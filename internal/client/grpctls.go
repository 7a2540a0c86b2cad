package client

import (
	"net"
	"net/url"
	"strings"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

// grpcOverTLS gives a gRPC interface listed as a bare host:port (as v1.0 cards do, and a2a-go dials) the
// https:// scheme when the card came over https:// from that same host (localhost and a loopback address count
// as the same) and port: the agent speaks TLS there (serve --tls-cert lists its gRPC interface so). Any other interface is returned as it is.
func grpcOverTLS(iface *a2a.AgentInterface, cardURL string) *a2a.AgentInterface {
	if iface == nil || iface.ProtocolBinding != a2a.TransportProtocolGRPC || strings.Contains(iface.URL, "://") {
		return iface
	}
	card, err := url.Parse(cardURL)
	if err != nil || card.Scheme != "https" {
		return iface
	}
	host, port, err := net.SplitHostPort(iface.URL)
	if err != nil {
		return iface
	}
	cardPort := card.Port()
	if cardPort == "" {
		cardPort = "443"
	}
	host = strings.Trim(host, "[]")
	same := strings.EqualFold(host, card.Hostname()) ||
		(loopbackAddr(net.JoinHostPort(host, port)) && loopbackAddr(net.JoinHostPort(card.Hostname(), port)))
	if !same || port != cardPort {
		return iface
	}
	c := *iface
	c.URL = "https://" + iface.URL
	return &c
}

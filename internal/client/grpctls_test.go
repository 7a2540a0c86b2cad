package client

import (
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

func TestGRPCOverTLS(t *testing.T) {
	t.Parallel()
	tests := []struct {
		iface, card, want string
	}{
		{"127.0.0.1:8443", "https://127.0.0.1:8443/.well-known/agent-card.json", "https://127.0.0.1:8443"},
		{"127.0.0.1:8443", "https://localhost:8443/.well-known/agent-card.json", "https://127.0.0.1:8443"}, // both loopback
		{"agent.example:443", "https://agent.example/.well-known/agent-card.json", "https://agent.example:443"},
		{"127.0.0.1:8443", "http://127.0.0.1:8443/.well-known/agent-card.json", "127.0.0.1:8443"},  // plain card
		{"127.0.0.1:9000", "https://127.0.0.1:8443/.well-known/agent-card.json", "127.0.0.1:9000"}, // another port
		{"other.example:8443", "https://agent.example:8443/x", "other.example:8443"},               // another host
		{"http://127.0.0.1:8443", "https://127.0.0.1:8443/x", "http://127.0.0.1:8443"},             // a scheme says it
		{"127.0.0.1:8443", "", "127.0.0.1:8443"},                                                   // no card
	}
	for _, tt := range tests {
		in := &a2a.AgentInterface{URL: tt.iface, ProtocolBinding: a2a.TransportProtocolGRPC}
		if got := grpcOverTLS(in, tt.card).URL; got != tt.want {
			t.Errorf("grpcOverTLS(%q, %q) = %q, want %q", tt.iface, tt.card, got, tt.want)
		}
		if in.URL != tt.iface {
			t.Errorf("grpcOverTLS changed the card's interface to %q", in.URL)
		}
	}
	rest := &a2a.AgentInterface{URL: "127.0.0.1:8443", ProtocolBinding: a2a.TransportProtocolHTTPJSON}
	if got := grpcOverTLS(rest, "https://127.0.0.1:8443/x"); got != rest {
		t.Errorf("grpcOverTLS changed a REST interface: %q", got.URL)
	}
}

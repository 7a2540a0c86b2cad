package serve

import (
	"context"
	"net"
	"net/http"
	"strconv"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2acompat/a2av0"
	"github.com/a2aproject/a2a-go/v2/a2asrv"
)

// Paths of the HTTP bindings. REST (v1.0) owns "/", the v0.3 REST binding lives under "/v1"
// (a2av0.RESTPathPrefix), JSON-RPC v1.0 at "/jsonrpc"; v0.3 JSON-RPC takes POST "/" (where v0.3
// clients expect it), otherwise POST "/" is JSON-RPC v1.0 too.
const (
	// JSONRPCPath is where the v1.0 JSON-RPC binding is served.
	JSONRPCPath       = "/jsonrpc"
	legacyCardPath    = "/.well-known/agent.json"
	defaultName       = "a2a serve"
	defaultDescriptor = "An A2A agent served by the a2a CLI"
)

// advertisedHost is the host clients should dial: never an unspecified address.
func advertisedHost(addr net.Addr) string {
	tcp, ok := addr.(*net.TCPAddr)
	if !ok {
		return addr.String()
	}
	ip := tcp.IP
	if ip == nil || ip.IsUnspecified() {
		ip = net.IPv4(127, 0, 0, 1)
	}
	return net.JoinHostPort(ip.String(), strconv.Itoa(tcp.Port))
}

// interfaces lists what is served on hostport: for each transport, the v1.0 interface unless
// only 0.3 is served, then the v0.3 interface when 0.3 or the compat card is on.
//
// gRPC is named by a bare host:port on both versions: the SDKs' clients (a2a-js 0.3, a2a-python 0.3,
// a2a-java 0.3, a2a-go's v0.3 and v1.0) hand the interface URL to their gRPC library as its target, and
// grpc-js, grpc-core and grpc-go resolve "http://host:port" as a DNS name that does not exist. The same
// SDKs' servers and tests write host:port. Only the v0.3 TCK wants an absolute URL there
// (conformance/known-failures.txt says which tests).
func interfaces(hostport string, transports []a2a.TransportProtocol, v1, v03 bool) []*a2a.AgentInterface {
	base := "http://" + hostport
	var out []*a2a.AgentInterface
	add := func(version a2a.ProtocolVersion) {
		for _, tr := range transports {
			url := base
			switch {
			case tr == a2a.TransportProtocolGRPC:
				url = hostport
			case tr == a2a.TransportProtocolJSONRPC && version == a2a.Version:
				url = base + JSONRPCPath
			}
			out = append(out, &a2a.AgentInterface{URL: url, ProtocolBinding: tr, ProtocolVersion: version})
		}
	}
	if v1 {
		add(a2a.Version)
	}
	if v03 {
		add(a2av0.Version)
	}
	return out
}

// BaseCard is the card published when the backend has none: --card or one built from the name.
func BaseCard(cfg *Config) *a2a.AgentCard {
	if cfg.Card != nil {
		c := *cfg.Card
		return &c
	}
	name, desc := cfg.Name, cfg.Description
	if name == "" {
		name = defaultName
	}
	if desc == "" {
		desc = defaultDescriptor
	}
	return &a2a.AgentCard{
		Name:               name,
		Description:        desc,
		Version:            "1.0.0",
		DefaultInputModes:  []string{"text/plain", "application/json", "application/octet-stream"},
		DefaultOutputModes: []string{"text/plain", "application/octet-stream"},
		Skills:             []a2a.AgentSkill{},
	}
}

// cardProducer substitutes our interfaces into the backend's card on every request, so a proxy
// card refreshed after the upstream came up is served at once.
func cardProducer(base func(context.Context) (*a2a.AgentCard, error), stale *dropStaleSignatures, ifaces func(context.Context) []*a2a.AgentInterface, streaming bool, push PushSupport) a2asrv.AgentCardProducer {
	return a2asrv.AgentCardProducerFn(func(ctx context.Context) (*a2a.AgentCard, error) {
		c, err := base(ctx)
		if err != nil {
			return nil, err
		}
		out := *c
		out.SupportedInterfaces = ifaces(ctx)
		if stale != nil {
			stale.apply(&out)
		}
		out.Capabilities.Streaming = out.Capabilities.Streaming || streaming
		if push != PushUpstream {
			out.Capabilities.PushNotifications = push == PushOn
		}
		return &out, nil
	})
}

// cardHandler serves the card, with the caching headers of conform.go; with union=true in the
// v0.3/v1.0 union format that both a v0.3 parser and a v1.0 parser read.
func cardHandler(p a2asrv.AgentCardProducer, union bool) http.Handler {
	if union {
		p = a2av0.NewAgentCardProducer(p)
	}
	return newCardCache(a2asrv.NewAgentCardHandler(p))
}

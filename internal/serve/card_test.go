package serve

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/a2acli/a2a/internal/serve/servetest"
	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2aclient"
	"github.com/a2aproject/a2a-go/v2/a2aclient/agentcard"
	"github.com/a2aproject/a2a-go/v2/a2acompat/a2av0"
	grpcv0 "github.com/a2aproject/a2a-go/v2/a2agrpc/v0"
	"github.com/google/go-cmp/cmp"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
)

func fetch(t *testing.T, url string) []byte {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s = %d, %v", url, resp.StatusCode, err)
	}
	return body
}

type ifaceRow struct {
	URL, Binding, Version string
}

func rows(ifaces []*a2a.AgentInterface) []ifaceRow {
	var out []ifaceRow
	for _, i := range ifaces {
		out = append(out, ifaceRow{i.URL, string(i.ProtocolBinding), string(i.ProtocolVersion)})
	}
	return out
}

func TestCardInterfaces(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name     string
		cfg      Config
		want     func(base, hp string) []ifaceRow
		wantName string
	}{
		{"default rest", Config{Name: "Echo Agent"}, func(b, hp string) []ifaceRow {
			return []ifaceRow{{b, "HTTP+JSON", "1.0"}}
		}, "Echo Agent"},
		{"all", Config{Transports: servetest.AllTransports}, func(b, hp string) []ifaceRow {
			return []ifaceRow{{b, "HTTP+JSON", "1.0"}, {b + "/jsonrpc", "JSONRPC", "1.0"}, {hp, "GRPC", "1.0"}}
		}, defaultName},
		{"0.3", Config{Transports: servetest.AllTransports, Protocol: "0.3"}, func(b, hp string) []ifaceRow {
			return []ifaceRow{{b, "HTTP+JSON", "0.3"}, {b, "JSONRPC", "0.3"}, {hp, "GRPC", "0.3"}} // gRPC: the target SDK clients dial
		}, defaultName},
		{"compat", Config{Transports: []a2a.TransportProtocol{a2a.TransportProtocolJSONRPC}, CardCompat: true}, func(b, hp string) []ifaceRow {
			return []ifaceRow{{b + "/jsonrpc", "JSONRPC", "1.0"}, {b, "JSONRPC", "0.3"}}
		}, defaultName},
		{"custom card", Config{Card: &a2a.AgentCard{Name: "Mine", SupportedInterfaces: []*a2a.AgentInterface{{URL: "http://elsewhere"}}}}, func(b, hp string) []ifaceRow {
			return []ifaceRow{{b, "HTTP+JSON", "1.0"}}
		}, "Mine"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tc.cfg.Quiet = true
			tc.cfg.Host = "0.0.0.0" // the card must still advertise a usable address
			srv := startServer(t, tc.cfg)
			hp := strings.TrimPrefix(srv.URL, "http://")
			if !strings.HasPrefix(hp, "127.0.0.1:") {
				t.Fatalf("url = %s, want 127.0.0.1", srv.URL)
			}
			for _, path := range []string{"", "/.well-known/agent.json"} {
				opts := []agentcard.ResolveOption{}
				if path != "" {
					opts = append(opts, agentcard.WithPath(path))
				}
				card, err := agentcard.DefaultResolver.Resolve(context.Background(), srv.URL, opts...)
				if err != nil {
					t.Fatalf("Resolve(%q) = %v", path, err)
				}
				if diff := cmp.Diff(tc.want(srv.URL, hp), rows(card.SupportedInterfaces)); diff != "" {
					t.Errorf("interfaces at %q (-want +got):\n%s", path, diff)
				}
				if card.Name != tc.wantName || !card.Capabilities.Streaming {
					t.Errorf("card name=%q streaming=%v, want %q true", card.Name, card.Capabilities.Streaming, tc.wantName)
				}
			}
		})
	}
}

// A v0.3 parser must find the v0.3 endpoint in the compat card via its url/preferredTransport.
func TestCompatCardBothParsers(t *testing.T) {
	t.Parallel()
	srv := startServer(t, Config{Transports: []a2a.TransportProtocol{a2a.TransportProtocolJSONRPC}, CardCompat: true, Quiet: true})
	body := fetch(t, srv.URL+"/.well-known/agent-card.json")
	v1, err := agentcard.DefaultCardParser(body)
	if err != nil {
		t.Fatalf("v1 parser: %v", err)
	}
	v0, err := a2av0.NewAgentCardParser()(body)
	if err != nil {
		t.Fatalf("v0.3 parser: %v", err)
	}
	want := []ifaceRow{{srv.URL + "/jsonrpc", "JSONRPC", "1.0"}, {srv.URL, "JSONRPC", "0.3"}}
	for name, card := range map[string]*a2a.AgentCard{"v1": v1, "v0.3": v0} {
		if diff := cmp.Diff(want, rows(card.SupportedInterfaces)); diff != "" {
			t.Errorf("%s parser interfaces (-want +got):\n%s", name, diff)
		}
	}
	for _, field := range []string{`"url": "` + srv.URL + `"`, `"preferredTransport": "JSONRPC"`, `"protocolVersion": "0.3"`} {
		if !strings.Contains(string(body), field) {
			t.Errorf("compat card lacks v0.3 field %s:\n%s", field, body)
		}
	}
	// Both protocol versions answer on the advertised endpoints.
	for _, opt := range []a2aclient.FactoryOption{nil, a2av0.WithJSONRPCTransport(a2av0.JSONRPCTransportConfig{})} {
		var opts []a2aclient.FactoryOption
		if opt != nil {
			opts = append(opts, opt, a2aclient.WithConfig(a2aclient.Config{}))
		}
		c := servetest.NewClient(t, srv.URL, a2a.TransportProtocolJSONRPC, opts...)
		if _, err := c.SendMessage(context.Background(), servetest.TextMessage("hi")); err != nil {
			t.Errorf("SendMessage() with compat card = %v", err)
		}
	}
}

func TestProtocol03Clients(t *testing.T) {
	t.Parallel()
	srv := startServer(t, Config{Transports: servetest.AllTransports, Protocol: "0.3", Quiet: true})
	cases := []struct {
		tr  a2a.TransportProtocol
		opt a2aclient.FactoryOption
	}{
		{a2a.TransportProtocolJSONRPC, a2av0.WithJSONRPCTransport(a2av0.JSONRPCTransportConfig{})},
		{a2a.TransportProtocolHTTPJSON, a2av0.WithRESTTransport(a2av0.RESTTransportConfig{})},
		// a2a-go's v0.3 gRPC client hands the card's URL to grpc-go as it is: the card must name a target it dials.
		{a2a.TransportProtocolGRPC, grpcv0.WithGRPCTransport(grpc.WithTransportCredentials(insecure.NewCredentials()))},
	}
	for _, tc := range cases {
		t.Run(string(tc.tr), func(t *testing.T) {
			t.Parallel()
			c := servetest.NewClient(t, srv.URL, tc.tr, tc.opt)
			res, err := c.SendMessage(context.Background(), servetest.TextMessage("old"))
			if err != nil {
				t.Fatalf("SendMessage() = %v", err)
			}
			if got := echoedTask(res); got != "old" {
				t.Errorf("SendMessage() = %#v, want a completed echo of %q", res, "old")
			}
			evs, err := servetest.Collect(t, c.SendStreamingMessage(context.Background(), servetest.TextMessage("s")))
			if got := echoedStream(evs); err != nil || got != "s" {
				t.Errorf("stream = %d events echoing %q, %v; want an echo of %q", len(evs), got, err, "s")
			}
		})
	}
}

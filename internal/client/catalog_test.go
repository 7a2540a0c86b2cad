package client

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// TestAPICatalogReference: an RFC 9727 API catalog URL is accepted wherever an agent reference is, resolved to the
// agent card it lists (#name picks one of several); a catalog with several and no name, or none, is refused clearly.
func TestAPICatalogReference(t *testing.T) {
	t.Parallel()
	mux := http.NewServeMux()
	srv := httptest.NewServer(mux)
	defer srv.Close()
	card := func(name string) string {
		return `{"name":"` + name + `","version":"1","supportedInterfaces":[{"url":"` + srv.URL + `/` + name + `","protocolBinding":"JSONRPC","protocolVersion":"1.0"}],` +
			`"capabilities":{},"defaultInputModes":["text/plain"],"defaultOutputModes":["text/plain"],"skills":[]}`
	}
	for _, name := range []string{"weather", "travel"} {
		mux.HandleFunc("/"+name+"/.well-known/agent-card.json", func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(card(name)))
		})
	}
	mux.HandleFunc("/.well-known/api-catalog", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/linkset+json")
		_, _ = w.Write([]byte(`{"linkset":[
			{"anchor":"` + srv.URL + `/weather","service-desc":[{"href":"/weather/.well-known/agent-card.json","type":"application/json"}]},
			{"anchor":"` + srv.URL + `/travel","item":[{"href":"` + srv.URL + `/travel/.well-known/agent-card.json","title":"Travel agent"}]},
			{"anchor":"` + srv.URL + `/api","service-desc":[{"href":"/api/openapi.json"}]}]}`))
	})
	mux.HandleFunc("/one/.well-known/api-catalog", func(w http.ResponseWriter, _ *http.Request) {
		_, _ = w.Write([]byte(`{"linkset":[{"anchor":"x","item":[{"href":"/weather/.well-known/agent-card.json"}]}]}`))
	})
	mux.HandleFunc("/none/.well-known/api-catalog", func(w http.ResponseWriter, _ *http.Request) {
		_, _ = w.Write([]byte(`{"linkset":[{"anchor":"x","service-desc":[{"href":"/api/openapi.json"}]}]}`))
	})
	d := NewDialer(&Options{Timeout: 5 * time.Second}, &Log{}, nil)
	for ref, want := range map[string]string{
		srv.URL + "/.well-known/api-catalog#weather":      "weather",
		srv.URL + "/.well-known/api-catalog#Travel agent": "travel",
		srv.URL + "/one/.well-known/api-catalog":          "weather",
	} {
		r, err := d.Resolve(context.Background(), ref)
		if err != nil || r.Card == nil || r.Card.Name != want {
			t.Errorf("%s: %+v, %v; want the %s card", ref, r, err, want)
		}
	}
	for ref, msg := range map[string]string{
		srv.URL + "/.well-known/api-catalog":         "lists 2 agent cards",
		srv.URL + "/.well-known/api-catalog#nothing": `no agent "nothing"`,
		srv.URL + "/none/.well-known/api-catalog":    "lists no agent card",
	} {
		_, err := d.Resolve(context.Background(), ref)
		if err == nil || !strings.Contains(err.Error(), msg) {
			t.Errorf("%s: %v, want an error saying %q", ref, err, msg)
		}
		var ue *UsageError
		var ce *CardError
		if !errors.As(err, &ue) && !errors.As(err, &ce) {
			t.Errorf("%s: %T, want a usage or card error", ref, err)
		}
	}
}

// TestAICatalogReference: an AI Catalog (ai-catalog.io: …/ai-catalog.json, application/ai-catalog+json) is accepted
// as an agent reference too: its A2A agent card entries, by url or embedded as data, #name matching the identifier
// or displayName; entries of other types are skipped, several need a name, none is refused.
func TestAICatalogReference(t *testing.T) {
	t.Parallel()
	mux := http.NewServeMux()
	srv := httptest.NewServer(mux)
	defer srv.Close()
	card := func(name string) string {
		return `{"name":"` + name + `","version":"1","supportedInterfaces":[{"url":"` + srv.URL + `/` + name + `","protocolBinding":"JSONRPC","protocolVersion":"1.0"}],` +
			`"capabilities":{},"defaultInputModes":["text/plain"],"defaultOutputModes":["text/plain"],"skills":[]}`
	}
	mux.HandleFunc("/agents/research", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/a2a-agent-card+json")
		_, _ = w.Write([]byte(card("research")))
	})
	mux.HandleFunc("/.well-known/ai-catalog.json", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/ai-catalog+json")
		_, _ = w.Write([]byte(`{"specVersion":"1.0","host":{"displayName":"Example"},"entries":[
			{"identifier":"urn:air:example.com:mcp:weather","type":"application/mcp-server-card+json","url":"/mcp/server-card"},
			{"identifier":"urn:air:example.com:a2a:research","type":"application/a2a-agent-card+json","url":"/agents/research"},
			{"identifier":"urn:air:example.com:a2a:travel","displayName":"Travel Desk","type":"application/a2a-agent-card+json","data":` + card("travel") + `}]}`))
	})
	mux.HandleFunc("/one/ai-catalog.json", func(w http.ResponseWriter, _ *http.Request) {
		_, _ = w.Write([]byte(`{"specVersion":"1.0","entries":[{"identifier":"r","type":"application/a2a-agent-card+json","url":"/agents/research"}]}`))
	})
	mux.HandleFunc("/two/ai-catalog.json", func(w http.ResponseWriter, _ *http.Request) {
		_, _ = w.Write([]byte(`{"specVersion":"1.0","entries":[{"identifier":"tr","type":"application/a2a-agent-card+json","data":` + card("research") + `},` +
			`{"identifier":"t","type":"application/a2a-agent-card+json","data":` + card("travel") + `}]}`))
	})
	mux.HandleFunc("/none/ai-catalog.json", func(w http.ResponseWriter, _ *http.Request) {
		_, _ = w.Write([]byte(`{"specVersion":"1.0","entries":[{"identifier":"s","type":"application/agent-skills+zip","url":"/s.zip"}]}`))
	})
	mux.HandleFunc("/bad/ai-catalog.json", func(w http.ResponseWriter, _ *http.Request) {
		_, _ = w.Write([]byte(`{"name":"not a catalog"}`))
	})
	d := NewDialer(&Options{Timeout: 5 * time.Second}, &Log{}, nil)
	for ref, want := range map[string]string{
		srv.URL + "/.well-known/ai-catalog.json#urn:air:example.com:a2a:research": "research",
		srv.URL + "/.well-known/ai-catalog.json#Travel Desk":                      "travel",
		srv.URL + "/one/ai-catalog.json":                                          "research",
		srv.URL + "/two/ai-catalog.json#t":                                        "travel", // exact beats contained
	} {
		r, err := d.Resolve(context.Background(), ref)
		if err != nil || r.Card == nil || r.Card.Name != want {
			t.Errorf("%s: %+v, %v; want the %s card", ref, r, err, want)
		}
	}
	for ref, msg := range map[string]string{
		srv.URL + "/.well-known/ai-catalog.json":         "lists 2 agent cards",
		srv.URL + "/.well-known/ai-catalog.json#nothing": `no agent "nothing" in the AI Catalog`,
		srv.URL + "/none/ai-catalog.json":                "the AI Catalog lists no agent card",
		srv.URL + "/bad/ai-catalog.json":                 "neither an RFC 9727 linkset nor an AI Catalog",
	} {
		_, err := d.Resolve(context.Background(), ref)
		if err == nil || !strings.Contains(err.Error(), msg) {
			t.Errorf("%s: %v, want an error saying %q", ref, err, msg)
		}
	}
}

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

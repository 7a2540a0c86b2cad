package testagent_test

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/a2acli/a2a/internal/testagent"
	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2aclient"
	"github.com/a2aproject/a2a-go/v2/a2aclient/agentcard"
	"github.com/a2aproject/a2a-go/v2/a2acompat/a2av0"
	"github.com/google/go-cmp/cmp"
)

func TestAuthAndHeaders(t *testing.T) {
	t.Parallel()
	for _, mode := range modes {
		t.Run(modeName(mode), func(t *testing.T) {
			t.Parallel()
			o := mode
			o.RequireAuth = "Bearer s3cret"
			o.ExtendedCard = &a2a.AgentCard{Name: "Extended Test Agent"}
			ag := testagent.Start(t, o)
			c := connect(t, ag, o)

			_, err := c.SendMessage(testCtx(t), request("hi"))
			// The JSON-RPC clients report any non-200 status as a plain error.
			jsonrpc401 := o.Transport == a2a.TransportProtocolJSONRPC &&
				err != nil && strings.Contains(err.Error(), "unexpected HTTP status: 401")
			if !errors.Is(err, a2a.ErrUnauthenticated) && !jsonrpc401 {
				t.Errorf("SendMessage without credentials: err = %v, want unauthenticated", err)
			}

			ctx := a2aclient.AttachServiceParams(testCtx(t), a2aclient.ServiceParams{
				"Authorization": {"Bearer s3cret"}, "X-Custom": {"yes"}})
			if _, err := c.SendMessage(ctx, request("hi")); err != nil {
				t.Fatalf("SendMessage with credentials: %v", err)
			}
			reqs := ag.Requests()
			if len(reqs) != 2 || reqs[1].Get("X-Custom") != "yes" || reqs[1].Get("Authorization") != o.RequireAuth {
				t.Errorf("Requests() = %v, want 2 with X-Custom and Authorization on the second", reqs)
			}
			calls := ag.Calls()
			if len(calls) != 1 || calls[0].Method != "SendMessage" || calls[0].Params.Get("X-Custom") != "yes" {
				t.Errorf("Calls() = %+v, want one SendMessage with X-Custom", calls)
			}

			if !ag.Card.Capabilities.ExtendedAgentCard {
				t.Errorf("Card.Capabilities.ExtendedAgentCard = false, want true")
			}
			ext, err := c.GetExtendedAgentCard(ctx, &a2a.GetExtendedAgentCardRequest{})
			if err != nil || ext.Name != "Extended Test Agent" {
				t.Errorf("GetExtendedAgentCard = %+v, %v; want the extended card", ext, err)
			}
		})
	}
}

func TestV1Card(t *testing.T) {
	t.Parallel()
	for _, mode := range modes[:3] {
		t.Run(modeName(mode), func(t *testing.T) {
			t.Parallel()
			ag := testagent.Start(t, testagent.Options{Transport: mode.Transport, Behavior: testagent.Chunks})
			card, err := agentcard.NewResolver(http.DefaultClient).Resolve(testCtx(t), ag.URL)
			if err != nil {
				t.Fatalf("Resolve(%q): %v", ag.URL, err)
			}
			want := []*a2a.AgentInterface{{URL: ag.Endpoint, ProtocolBinding: mode.Transport, ProtocolVersion: "1.0"}}
			if diff := cmp.Diff(want, card.SupportedInterfaces); diff != "" {
				t.Errorf("card interfaces mismatch (-want +got):\n%s", diff)
			}
			if card.Name != "Test Agent chunks" || !card.Capabilities.Streaming {
				t.Errorf("card = %q streaming %v, want %q streaming", card.Name, card.Capabilities.Streaming, "Test Agent chunks")
			}
			if mode.Transport == a2a.TransportProtocolGRPC && strings.Contains(ag.Endpoint, "://") {
				t.Errorf("gRPC Endpoint = %q, want host:port", ag.Endpoint)
			}
		})
	}
}

func TestV03Card(t *testing.T) {
	t.Parallel()
	for _, noPreferred := range []bool{false, true} {
		ag := testagent.Start(t, testagent.Options{V03: true, NoPreferredTransport: noPreferred})
		for _, path := range []string{"/.well-known/agent-card.json", "/.well-known/agent.json"} {
			body := get(t, ag.URL+path, http.StatusOK)
			var raw map[string]any
			if err := json.Unmarshal([]byte(body), &raw); err != nil {
				t.Fatalf("GET %s: %v in %s", path, err, body)
			}
			_, hasPreferred := raw["preferredTransport"]
			_, hasInterfaces := raw["supportedInterfaces"]
			if raw["url"] != ag.URL || raw["protocolVersion"] != "0.3.0" || hasPreferred == noPreferred || hasInterfaces {
				t.Errorf("GET %s (noPreferred %v) = %s, want v0.3 shape", path, noPreferred, body)
			}
		}
		card, err := a2av0.NewAgentCardParser()([]byte(get(t, ag.CardURL, http.StatusOK)))
		if err != nil {
			t.Fatalf("v0.3 parser: %v", err)
		}
		// Observed: without preferredTransport the a2av0 parser yields ZERO
		// interfaces (it needs both url and preferredTransport), so
		// a2aclient.NewFromCard fails; the CLI must assume JSON-RPC at url.
		want := []*a2a.AgentInterface{{URL: ag.URL, ProtocolBinding: "JSONRPC", ProtocolVersion: "0.3.0"}}
		if noPreferred {
			want = []*a2a.AgentInterface{}
		}
		if diff := cmp.Diff(want, card.SupportedInterfaces); diff != "" {
			t.Errorf("parsed interfaces (noPreferred %v) mismatch (-want +got):\n%s", noPreferred, diff)
		}
	}
}

func TestStartRaw(t *testing.T) {
	t.Parallel()
	url := testagent.StartRaw(t, http.StatusNotFound, "text/html", "<html>nope</html>")
	if got := get(t, url+"/.well-known/agent-card.json", http.StatusNotFound); got != "<html>nope</html>" {
		t.Errorf("raw body = %q, want %q", got, "<html>nope</html>")
	}
	_, err := agentcard.NewResolver(http.DefaultClient).Resolve(testCtx(t), url)
	var notOK *agentcard.ErrStatusNotOK
	if !errors.As(err, &notOK) || notOK.StatusCode != http.StatusNotFound {
		t.Errorf("Resolve(raw 404) err = %v, want ErrStatusNotOK 404", err)
	}
}

func get(t *testing.T, url string, wantStatus int) string {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer func() { _ = resp.Body.Close() }()
	body, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != wantStatus {
		t.Fatalf("GET %s = %d, %v; want %d", url, resp.StatusCode, err, wantStatus)
	}
	return string(body)
}

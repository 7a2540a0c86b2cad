package client

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/google/go-cmp/cmp"
)

func TestRequiredExtensions(t *testing.T) {
	t.Parallel()
	d := NewDialer(&Options{}, &Log{}, nil)
	card := &a2a.AgentCard{Capabilities: a2a.AgentCapabilities{Extensions: []a2a.AgentExtension{
		{URI: "urn:a", Required: true}, {URI: "urn:b"}, {URI: "urn:c", Required: true},
	}}}
	params := map[string][]string{a2a.SvcParamExtensions: {"urn:c,urn:x"}}
	d.requiredExtensions(card, params)
	if diff := cmp.Diff([]string{"urn:c,urn:x,urn:a"}, params[a2a.SvcParamExtensions]); diff != "" {
		t.Errorf("A2A-Extensions (-want +got):\n%s", diff)
	}
}

// TestConnTrackerSeesServerClose checks the basis of the connection rule handling: after a response is read to its
// end the connection stays open (idle), and it counts as closed once the server closes it.
func TestConnTrackerSeesServerClose(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, "ok") }))
	defer srv.Close()
	d := NewDialer(&Options{}, &Log{}, nil)
	hc := d.HTTPClient()
	if d.HTTPClient() != hc {
		t.Fatal("httpClient() built a second client: the process must use one keep-alive pool")
	}
	resp, err := hc.Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if n := d.Conns().Open(); n != 1 {
		t.Fatalf("open connections after a read-to-EOF response = %d, want 1 (kept alive)", n)
	}
	srv.CloseClientConnections()
	if !d.Conns().WaitClosed(context.Background(), 10*time.Second) {
		t.Fatalf("connection still open after the server closed it (open=%d)", d.Conns().Open())
	}
}

// TestCardFetchWithoutCredentials: the public card is fetched without --bearer or --api-key (the a2a-cli
// specification, §12.1: credentials go per request, by the scheme the agent declares); a card behind
// authentication (401) is asked for again with them, and without any the failure is an authentication one.
func TestCardFetchWithoutCredentials(t *testing.T) {
	t.Parallel()
	const card = `{"name":"x","version":"1","supportedInterfaces":[{"url":"http://127.0.0.1:9","protocolBinding":"JSONRPC","protocolVersion":"1.0"}],"capabilities":{},"defaultInputModes":[],"defaultOutputModes":[],"skills":[]}`
	for _, protected := range []bool{false, true} {
		var mu sync.Mutex
		var seen []string
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			seen = append(seen, r.Header.Get("Authorization")+"|"+r.Header.Get("X-Api-Key"))
			mu.Unlock()
			if protected && r.Header.Get("Authorization") == "" {
				w.WriteHeader(http.StatusUnauthorized)
				return
			}
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(card))
		}))
		d := NewDialer(&Options{Bearer: "tok", APIKey: "key", Timeout: 5 * time.Second}, &Log{}, nil)
		r, err := d.Resolve(context.Background(), srv.URL)
		if err != nil || r.Card == nil {
			t.Fatalf("protected=%v: Resolve: %v", protected, err)
		}
		mu.Lock()
		want := []string{"|"}
		if protected {
			want = append(want, "Bearer tok|key")
		}
		if !slices.Equal(seen, want) {
			t.Errorf("protected=%v: card requests carried %q, want %q", protected, seen, want)
		}
		mu.Unlock()
		if protected {
			_, err := NewDialer(&Options{Timeout: 5 * time.Second}, &Log{}, nil).Resolve(context.Background(), srv.URL)
			if !cardUnauthorized(err) {
				t.Errorf("protected card, no credentials: %v, want a 401", err)
			}
		}
		srv.Close()
	}
}

// TestAPIKeyWhereTheSchemeSays: --api-key goes where the card's apiKey scheme puts it (the a2a-cli specification,
// §12.1; A2A allows header, query or cookie): a query parameter on requests to the named origin only, never in the
// -v log; a cookie as the Cookie header.
func TestAPIKeyWhereTheSchemeSays(t *testing.T) {
	t.Parallel()
	for _, loc := range []string{"query", "cookie"} {
		var mu sync.Mutex
		var seen []*http.Request
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			seen = append(seen, r.Clone(context.Background()))
			mu.Unlock()
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(`{"name":"x","version":"1","supportedInterfaces":[{"url":"http://127.0.0.1:9","protocolBinding":"JSONRPC","protocolVersion":"1.0"}],` +
				`"capabilities":{},"defaultInputModes":[],"defaultOutputModes":[],"skills":[],` +
				`"securitySchemes":{"k":{"apiKeySecurityScheme":{"location":"` + loc + `","name":"agent_key"}}}}`))
		}))
		var logBuf strings.Builder
		d := NewDialer(&Options{APIKey: "s3cret", Timeout: 5 * time.Second}, &Log{W: &logBuf, Enabled: true}, nil)
		r, err := d.Resolve(context.Background(), srv.URL)
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := r.params[defaultAPIKeyHeader]; ok {
			t.Errorf("%s: --api-key still in the %s header", loc, defaultAPIKeyHeader)
		}
		req, _ := http.NewRequest(http.MethodGet, srv.URL+"/call", nil)
		for k, v := range r.params {
			req.Header[k] = v
		}
		resp, err := d.httpClient().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		mu.Lock()
		last := seen[len(seen)-1]
		mu.Unlock()
		switch loc {
		case "query":
			if got := last.URL.Query().Get("agent_key"); got != "s3cret" {
				t.Errorf("query: the call carried agent_key=%q, want the key", got)
			}
			if seen[0].URL.RawQuery != "" {
				t.Errorf("query: the card's fetch carried %q, want nothing", seen[0].URL.RawQuery)
			}
		case "cookie":
			if c, err := last.Cookie("agent_key"); err != nil || c.Value != "s3cret" {
				t.Errorf("cookie: the call carried %v (%v), want the key", c, err)
			}
		}
		if strings.Contains(logBuf.String(), "s3cret") {
			t.Errorf("%s: the -v log shows the key:\n%s", loc, logBuf.String())
		}
		srv.Close()
	}
}

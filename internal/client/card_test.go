package client

import (
	"context"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/google/go-cmp/cmp"
)

func TestParseRef(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cardFile := filepath.Join(dir, "card.json")
	if err := os.WriteFile(cardFile, []byte(`{}`), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		in         string
		wantFile   string
		wantBase   string
		wantCard   string
		candidates []string
	}{
		{in: "http://h:1", wantBase: "http://h:1", candidates: []string{"http://h:1/.well-known/agent-card.json", "http://h:1/.well-known/agent.json"}},
		{in: "h:1", wantBase: "http://h:1", candidates: []string{"http://h:1/.well-known/agent-card.json", "http://h:1/.well-known/agent.json"}},
		{in: "localhost:8080/", wantBase: "http://localhost:8080"},
		{in: "https://a.example/agents/x", wantBase: "https://a.example/agents/x", candidates: []string{
			"https://a.example/agents/x/.well-known/agent-card.json", "https://a.example/agents/x/.well-known/agent.json",
			"https://a.example/.well-known/agent-card.json", "https://a.example/.well-known/agent.json"}},
		{in: "http://h:1/.well-known/agent-card.json", wantBase: "http://h:1", wantCard: "http://h:1/.well-known/agent-card.json",
			candidates: []string{"http://h:1/.well-known/agent-card.json"}},
		{in: "http://h:1/cards/me.json", wantBase: "http://h:1", wantCard: "http://h:1/cards/me.json"},
		{in: cardFile, wantFile: cardFile},
		{in: "file://" + cardFile, wantFile: cardFile},
		// Paths that do not exist are still files, so that the error says the file is missing.
		{in: "./card.json", wantFile: "./card.json"},
		{in: "../x", wantFile: "../x"},
		{in: "/no/such/card", wantFile: "/no/such/card"},
		{in: "card.json", wantFile: "card.json"},
		{in: "cards/card.json", wantFile: "cards/card.json"},
		// A host before the first slash keeps a .json argument a URL.
		{in: "example.com/card.json", wantBase: "http://example.com", wantCard: "http://example.com/card.json"},
		{in: "localhost:8080/.well-known/agent-card.json", wantBase: "http://localhost:8080", wantCard: "http://localhost:8080/.well-known/agent-card.json"},
		{in: "localhost/a.json", wantBase: "http://localhost", wantCard: "http://localhost/a.json"},
	}
	for _, tt := range tests {
		ref, err := ParseRef(tt.in)
		if err != nil {
			t.Errorf("parseRef(%q): %v", tt.in, err)
			continue
		}
		base := ""
		if ref.Base != nil {
			base = ref.Base.String()
		}
		got := []string{ref.File, base, ref.CardURL}
		if diff := cmp.Diff([]string{tt.wantFile, tt.wantBase, tt.wantCard}, got); diff != "" {
			t.Errorf("parseRef(%q) [file base card] mismatch (-want +got):\n%s", tt.in, diff)
		}
		if tt.candidates != nil {
			if diff := cmp.Diff(tt.candidates, ref.cardCandidates()); diff != "" {
				t.Errorf("parseRef(%q).cardCandidates() mismatch (-want +got):\n%s", tt.in, diff)
			}
		}
	}
}

// TestCardFileErrors: a card file that does not exist is reported as such (it was "lookup .: no such host"), with
// exit 3 and the card-not-found code; a directory and a file too large are read errors.
func TestCardFileErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	big := filepath.Join(dir, "big.json")
	if err := os.WriteFile(big, make([]byte, maxCardBytes+1), 0o644); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(dir, "card.json")
	tests := []struct {
		in, want string
		notFound bool
	}{
		{in: missing, want: "card file " + missing + " does not exist", notFound: true},
		{in: dir, want: "read card file " + dir + ": a directory, not a card file"},
		{in: big, want: "larger than"},
	}
	for _, tt := range tests {
		ref, err := ParseRef(tt.in)
		if err != nil {
			t.Fatalf("ParseRef(%q): %v", tt.in, err)
		}
		_, _, _, err = fetchCard(context.Background(), http.DefaultClient, ref, nil, nil)
		var ce *CardError
		if !errors.As(err, &ce) || ce.NotFound != tt.notFound || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("fetchCard(%q) = %v, want a CardError (not found %v) saying %q", tt.in, err, tt.notFound, tt.want)
		}
	}
}

// TestResolveError: a host that does not resolve (.invalid never does, RFC 2606) is a ResolveError naming the host,
// still unreachable (exit 3).
func TestResolveError(t *testing.T) {
	t.Parallel()
	ref, err := ParseRef("nosuch.invalid:8080")
	if err != nil {
		t.Fatal(err)
	}
	_, _, _, err = fetchCard(context.Background(), http.DefaultClient, ref, nil, nil)
	var re *ResolveError
	if !errors.As(err, &re) || re.Host != "nosuch.invalid" || !strings.Contains(err.Error(), "the host name nosuch.invalid ") || !IsUnreachable(err) {
		t.Errorf("fetchCard(nosuch.invalid) = %v, want a ResolveError naming the host", err)
	}
}

func TestParseRefErrors(t *testing.T) {
	t.Parallel()
	for _, in := range []string{"", "ftp://h/x", "http://", "::::", "http://h:99999", "http://h:x", "h:"} {
		_, err := ParseRef(in)
		var ue *UsageError
		if !errors.As(err, &ue) {
			t.Errorf("parseRef(%q) = %v, want a usage error", in, err)
		}
	}
}

func TestParseCard(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		body string
		want []a2a.AgentInterface
	}{
		{
			name: "v1.0",
			body: `{"name":"x","supportedInterfaces":[{"url":"http://h/rpc","protocolBinding":"JSONRPC","protocolVersion":"1.0"},{"url":"h:9","protocolBinding":"GRPC"}]}`,
			want: []a2a.AgentInterface{{URL: "http://h/rpc", ProtocolBinding: "JSONRPC", ProtocolVersion: "1.0"}, {URL: "h:9", ProtocolBinding: "GRPC", ProtocolVersion: "1.0"}},
		},
		{
			name: "v0.3 without preferredTransport means JSON-RPC at url",
			body: `{"name":"gemini","url":"http://localhost:41242/","protocolVersion":"0.3.0","capabilities":{"streaming":true},"defaultInputModes":["text"],"defaultOutputModes":["text"],"skills":[],"version":"0.25.2","description":"d"}`,
			want: []a2a.AgentInterface{{URL: "http://localhost:41242/", ProtocolBinding: "JSONRPC", ProtocolVersion: "0.3"}},
		},
		{
			name: "v0.3 with preferredTransport",
			body: `{"name":"r","url":"http://h/v1","preferredTransport":"HTTP+JSON","protocolVersion":"0.3.0","capabilities":{},"defaultInputModes":[],"defaultOutputModes":[],"skills":[],"version":"1","description":"d"}`,
			want: []a2a.AgentInterface{{URL: "http://h/v1", ProtocolBinding: "HTTP+JSON", ProtocolVersion: "0.3"}},
		},
	}
	for _, tt := range tests {
		card, err := ParseCard([]byte(tt.body))
		if err != nil {
			t.Errorf("%s: parseCard: %v", tt.name, err)
			continue
		}
		var got []a2a.AgentInterface
		for _, i := range card.SupportedInterfaces {
			got = append(got, *i)
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s: interfaces mismatch (-want +got):\n%s", tt.name, diff)
		}
	}
}

func TestParseCardRealGeminiCapture(t *testing.T) {
	t.Parallel()
	body, err := os.ReadFile("../../../shared/devtool/captures/agent-card.json")
	if err != nil {
		t.Skipf("capture not available: %v", err)
	}
	card, err := ParseCard(body)
	if err != nil {
		t.Fatalf("parseCard(gemini capture): %v", err)
	}
	if len(card.SupportedInterfaces) != 1 || card.SupportedInterfaces[0].ProtocolBinding != a2a.TransportProtocolJSONRPC {
		t.Fatalf("gemini card interfaces = %+v, want one JSONRPC interface", card.SupportedInterfaces)
	}
}

func TestParseCardInvalid(t *testing.T) {
	t.Parallel()
	for _, body := range []string{`<html>hi</html>`, `[]`, `{}`, `{"name":"x","supportedInterfaces":[]}`, `{"supportedInterfaces":"no"}`, "\x00\x01"} {
		if _, err := ParseCard([]byte(body)); err == nil {
			t.Errorf("parseCard(%q) = nil error, want one", body)
		}
	}
}

func TestChooseInterface(t *testing.T) {
	t.Parallel()
	card := &a2a.AgentCard{SupportedInterfaces: []*a2a.AgentInterface{
		{URL: "x://custom", ProtocolBinding: "WEBSOCKET", ProtocolVersion: "1.0"},
		{URL: "http://h/rest", ProtocolBinding: a2a.TransportProtocolHTTPJSON, ProtocolVersion: "1.0"},
		{URL: "h:9", ProtocolBinding: a2a.TransportProtocolGRPC, ProtocolVersion: "1.0"},
	}}
	ref, _ := ParseRef("http://h")
	tests := []struct {
		forced []a2a.TransportProtocol
		want   string
	}{
		{nil, "http://h/rest"},
		{[]a2a.TransportProtocol{a2a.TransportProtocolGRPC}, "h:9"},
		{[]a2a.TransportProtocol{a2a.TransportProtocolHTTPJSON}, "http://h/rest"},
		// Repeatable and ordered: a binding the card lacks is skipped, the next one asked for is taken.
		{[]a2a.TransportProtocol{a2a.TransportProtocolJSONRPC, a2a.TransportProtocolGRPC, a2a.TransportProtocolHTTPJSON}, "h:9"},
		// A preference list the card meets nowhere falls back to the card's order (§13.1).
		{[]a2a.TransportProtocol{a2a.TransportProtocolJSONRPC, "WEBSOCKET2"}, "http://h/rest"},
	}
	for _, tt := range tests {
		iface, _, err := chooseInterface(card, ref, tt.forced, "", false)
		if err != nil {
			t.Errorf("chooseInterface(forced %q): %v", tt.forced, err)
			continue
		}
		if iface.URL != tt.want {
			t.Errorf("chooseInterface(forced %q) = %s, want %s", tt.forced, iface.URL, tt.want)
		}
	}
	_, _, err := chooseInterface(card, ref, []a2a.TransportProtocol{a2a.TransportProtocolJSONRPC}, "", false)
	var ue *UsageError
	if !errors.As(err, &ue) {
		t.Errorf("chooseInterface(forced JSONRPC not in card) = %v, want a usage error", err)
	}
	iface, _, err := chooseInterface(nil, ref, []a2a.TransportProtocol{a2a.TransportProtocolJSONRPC}, "", false)
	if err != nil || iface.URL != "http://h" || iface.ProtocolBinding != a2a.TransportProtocolJSONRPC {
		t.Errorf("chooseInterface(no card, forced) = %+v, %v; want the URL as a JSONRPC endpoint", iface, err)
	}
}

// TestChooseInterfaceVersion: a version the user forces picks an interface of that version, or is the version the
// chosen interface is spoken in; the card is not changed.
func TestChooseInterfaceVersion(t *testing.T) {
	t.Parallel()
	ref, _ := ParseRef("http://h")
	v03 := &a2a.AgentInterface{URL: "http://h/v03", ProtocolBinding: a2a.TransportProtocolJSONRPC, ProtocolVersion: "0.3.0"}
	v10 := &a2a.AgentInterface{URL: "http://h/v10", ProtocolBinding: a2a.TransportProtocolJSONRPC, ProtocolVersion: "1.0"}
	both := &a2a.AgentCard{SupportedInterfaces: []*a2a.AgentInterface{v03, v10}}
	for _, tt := range []struct {
		card    *a2a.AgentCard
		version a2a.ProtocolVersion
		wantURL string
		wantVer a2a.ProtocolVersion
	}{
		// Unforced: the highest version both speak (1.0), whatever the card's order (§13.2).
		{both, "", "http://h/v10", "1.0"},
		{both, "1.0", "http://h/v10", "1.0"},
		{both, "0.3", "http://h/v03", "0.3.0"},
		{&a2a.AgentCard{SupportedInterfaces: []*a2a.AgentInterface{v03}}, "1.0", "http://h/v03", "1.0"},
		{&a2a.AgentCard{SupportedInterfaces: []*a2a.AgentInterface{v10}}, "0.3", "http://h/v10", "0.3"},
	} {
		iface, _, err := chooseInterface(tt.card, ref, nil, tt.version, false)
		if err != nil || iface.URL != tt.wantURL || iface.ProtocolVersion != tt.wantVer {
			t.Errorf("chooseInterface(version %q) = %+v, %v; want %s in %s", tt.version, iface, err, tt.wantURL, tt.wantVer)
		}
	}
	// A card offering only 0.3: refused unless the version is forced (the opt-in) or legacy is allowed (a proxy).
	only03 := &a2a.AgentCard{SupportedInterfaces: []*a2a.AgentInterface{v03}}
	_, _, err := chooseInterface(only03, ref, nil, "", false)
	if !errors.Is(err, a2a.ErrVersionNotSupported) || !strings.Contains(err.Error(), "speaks only A2A 0.3") {
		t.Errorf("chooseInterface(0.3-only card, no opt-in) = %v, want VersionNotSupported", err)
	}
	var h *Hinted
	if !errors.As(err, &h) || !strings.Contains(h.Hint, "--a2a-version 0.3") {
		t.Errorf("%v: the hint does not say how to opt in", err)
	}
	// --transport asking for a binding the card offers only in 0.3: the same refusal, saying so.
	mixed := &a2a.AgentCard{SupportedInterfaces: []*a2a.AgentInterface{v03, {URL: "http://h/rest", ProtocolBinding: a2a.TransportProtocolHTTPJSON, ProtocolVersion: "1.0"}}}
	if _, _, err := chooseInterface(mixed, ref, []a2a.TransportProtocol{a2a.TransportProtocolJSONRPC}, "", false); !errors.Is(err, a2a.ErrVersionNotSupported) || !strings.Contains(err.Error(), "--transport") {
		t.Errorf("chooseInterface(--transport jsonrpc, only 0.3 there) = %v, want VersionNotSupported naming --transport", err)
	}
	if iface, _, err := chooseInterface(mixed, ref, nil, "", false); err != nil || iface.URL != "http://h/rest" {
		t.Errorf("chooseInterface(0.3 first, 1.0 second) = %+v, %v; want the 1.0 interface", iface, err)
	}
	for _, tc := range []struct {
		version a2a.ProtocolVersion
		legacy  bool
	}{{"0.3", false}, {"", true}} {
		iface, _, err := chooseInterface(only03, ref, nil, tc.version, tc.legacy)
		if err != nil || iface.URL != "http://h/v03" {
			t.Errorf("chooseInterface(0.3-only card, version %q, legacy %v) = %+v, %v; want the v0.3 interface", tc.version, tc.legacy, iface, err)
		}
	}
	if v03.ProtocolVersion != "0.3.0" || v10.ProtocolVersion != "1.0" {
		t.Errorf("the card's interfaces changed: %+v %+v", v03, v10)
	}
	if v, err := forcedVersion(map[string][]string{"A2a-Version": {"1"}}); v != "1.0" || err != nil {
		t.Errorf("forcedVersion(1) = %q, %v; want 1.0", v, err)
	}
	if _, err := forcedVersion(map[string][]string{"A2a-Version": {"2.0"}}); err == nil {
		t.Error("forcedVersion(2.0) = nil error, want a usage error")
	}
	if h := cardHeaders(map[string][]string{"X-A": {"b"}}); h.Get("A2A-Version") != string(a2a.Version) || h.Get("X-A") != "b" {
		t.Errorf("cardHeaders = %v, want A2A-Version %s and the parameters", h, a2a.Version)
	}
}

func TestServiceParams(t *testing.T) {
	t.Parallel()
	// key=value (seed) and key:value (a2a-cli specification); the first of = and : separates.
	o := &Options{SvcParams: []string{"x-trace=a=b", "X-Trace=c", "k=", "x-span:a:b=c", "X-Trace:d"}, Auth: "Bearer t"}
	got, err := o.ServiceParams()
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]string{"X-Trace": {"a=b", "c", "d"}, "X-Span": {"a:b=c"}, "K": {""}, "Authorization": {"Bearer t"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("serviceParams mismatch (-want +got):\n%s", diff)
	}
	for _, bad := range []string{"novalue", "=v", " =v", ":v"} {
		_, err := (&Options{SvcParams: []string{bad}}).ServiceParams()
		var ue *UsageError
		if !errors.As(err, &ue) {
			t.Errorf("serviceParams(%q) = %v, want a usage error", bad, err)
		}
	}
}

func TestGRPCTarget(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in     string
		target string
		tls    bool
	}{
		{"http://h:9", "h:9", false},
		{"https://h", "h:443", true},
		{"grpcs://h:1", "h:1", true},
		{"127.0.0.1:5000", "127.0.0.1:5000", false},
		{"localhost:5000", "localhost:5000", false},
	}
	for _, tt := range tests {
		target, useTLS := grpcTarget(tt.in)
		if target != tt.target || useTLS != tt.tls {
			t.Errorf("grpcTarget(%q) = %q, %v; want %q, %v", tt.in, target, useTLS, tt.target, tt.tls)
		}
	}
}

// TestParseCardOnePass: a v1.0 card, compact or indented, is told by the scan of its keys and read in one pass;
// what the scan cannot tell exactly (a key in another case or with an escape, only a nested key, a broken body)
// is left to the two passes.
func TestParseCardOnePass(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		body string
		one  bool
	}{
		{`{"name":"x","supportedInterfaces":[{"url":"http://h"}]}`, true},
		{"{\n  \"supportedInterfaces\" :\n\t[ {\"url\":\"http://h\"} ],\n  \"name\": \"x\"\n}", true},
		{`{"a":{"b":[1,"}"]},"supportedInterfaces":null}`, true},
		{`{"SupportedInterfaces":[{"url":"http://h"}]}`, false},
		{`{"supportedInterface\u0073":[{"url":"http://h"}]}`, false},
		{`{"a":"supportedInterfaces","b":{"supportedInterfaces":[]}}`, false},
		{`{"supportedInterfaces":[}`, false},
		{`[{"supportedInterfaces":[]}]`, false},
	} {
		if got := scannedV1([]byte(tc.body)); got != tc.one {
			t.Errorf("scannedV1(%s) = %v, want %v", tc.body, got, tc.one)
		}
	}
}

package cardcheck

import (
	"context"
	"encoding/base64"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

const goodV1 = `{"name":"Echo","description":"says it back","version":"1.0.0",
 "supportedInterfaces":[{"url":"https://agent.example/a2a","protocolBinding":"JSONRPC","protocolVersion":"1.0"}],
 "capabilities":{"streaming":true},"defaultInputModes":["text/plain"],"defaultOutputModes":["text/plain"],
 "skills":[{"id":"echo","name":"Echo","description":"echo","tags":["t"]}],
 "securitySchemes":{"bearer":{"httpAuthSecurityScheme":{"scheme":"Bearer"}}},
 "securityRequirements":[{"schemes":{"bearer":{"list":[]}}}]}`

const goodV03 = `{"name":"Echo","description":"says it back","version":"1.0.0","protocolVersion":"0.3.0",
 "url":"https://agent.example/a2a","preferredTransport":"JSONRPC",
 "capabilities":{"streaming":true},"defaultInputModes":["text/plain"],"defaultOutputModes":["text/plain"],
 "skills":[{"id":"echo","name":"Echo","description":"echo","tags":["t"]}],
 "securitySchemes":{"bearer":{"type":"http","scheme":"bearer"}},"security":[{"bearer":[]}]}`

func TestValidateGood(t *testing.T) {
	t.Parallel()
	for name, card := range map[string]string{"1.0": goodV1, "0.3": goodV03} {
		r := Validate(context.Background(), []byte(card), Options{})
		if !r.Valid || r.Version != name || len(r.Findings) != 0 {
			t.Errorf("v%s: Validate = %+v, want valid with no finding", name, r)
		}
	}
}

// Each broken card yields a finding with its path, level and words.
func TestValidateFindings(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, card, path string
		level            Level
		msg              string
	}{
		{"relative url v1", strings.Replace(goodV1, "https://agent.example/a2a", "/a2a", 1), "/supportedInterfaces/0/url", Error, "not an absolute URL"},
		{"unknown binding", strings.Replace(goodV1, `"JSONRPC"`, `"SOAP"`, 1), "/supportedInterfaces/0/protocolBinding", Warning, `unknown protocol binding "SOAP"`},
		{"undeclared scheme", strings.Replace(goodV1, `{"bearer":{"list"`, `{"oauth":{"list"`, 1), "/securityRequirements/0", Error, `scheme "oauth"`},
		{"missing name", strings.Replace(goodV1, `"name":"Echo",`, ``, 1), "/name", Error, "required member name"},
		{"wrong type v1", strings.Replace(goodV1, `"name":"Echo"`, `"name":5`, 1), "/name", Error, "schema v1.0"},
		{"unknown member v1", strings.Replace(goodV1, `"name":"Echo"`, `"name":"Echo","nickname":"x"`, 1), "", Error, "nickname"},
		{"missing url v0.3", strings.Replace(goodV03, `"url":"https://agent.example/a2a",`, `"additionalInterfaces":[],`, 1), "/url", Error, "missing URL"},
		{"wrong type v0.3", strings.Replace(goodV03, `"streaming":true`, `"streaming":"yes"`, 1), "/capabilities/streaming", Error, "schema v0.3"},
		{"undeclared v0.3", strings.Replace(goodV03, `"security":[{"bearer"`, `"security":[{"apikey"`, 1), "/security/0", Error, `scheme "apikey"`},
		{"plain http", strings.Replace(goodV1, "https://agent.example", "http://agent.example", 1), "/supportedInterfaces/0/url", Warning, "plain http"},
		{"not json", `{"name":`, "", Error, "not a JSON object"},
		{"grpc target", strings.Replace(strings.Replace(goodV1, "https://agent.example/a2a", "127.0.0.1:50051", 1), `"JSONRPC"`, `"GRPC"`, 1), "/supportedInterfaces/0/url", Warning, "a gRPC target"},
		{"host:port for JSON-RPC", strings.Replace(goodV1, "https://agent.example/a2a", "127.0.0.1:50051", 1), "/supportedInterfaces/0/url", Error, "not an absolute URL"},
	}
	for _, c := range cases {
		r := Validate(context.Background(), []byte(c.card), Options{})
		found := false
		for _, f := range r.Findings {
			if f.Path == c.path && f.Level == c.level && strings.Contains(f.Message, c.msg) {
				found = true
			}
		}
		if !found {
			t.Errorf("%s: findings %+v, want %s at %q saying %q", c.name, r.Findings, c.level, c.path, c.msg)
		}
		if c.level == Error && r.Valid {
			t.Errorf("%s: valid despite an error", c.name)
		}
	}
}

// A jku off the card's origin is a warning; one on it that answers no key set is one too.
func TestValidateJKU(t *testing.T) {
	t.Parallel()
	srv := httptest.NewTLSServer(http.NotFoundHandler())
	t.Cleanup(srv.Close)
	// {"alg":"ES256","kid":"k","jku":"<srv>/jwks.json"}
	prot := func(jku string) string {
		return b64(`{"alg":"ES256","kid":"k","jku":"` + jku + `"}`)
	}
	card := func(jku string) []byte {
		return []byte(strings.Replace(goodV1, `"name":"Echo"`, `"name":"Echo","signatures":[{"protected":"`+prot(jku)+`","signature":"AA"}]`, 1))
	}
	r := Validate(context.Background(), card("https://elsewhere.example/jwks.json"), Options{CardURL: srv.URL + "/.well-known/agent-card.json", HTTP: srv.Client()})
	if !has(r, "/signatures/0/protected", "not on the card's origin") {
		t.Errorf("jku elsewhere: %+v", r.Findings)
	}
	r = Validate(context.Background(), card(srv.URL+"/jwks.json"), Options{CardURL: srv.URL + "/.well-known/agent-card.json", HTTP: srv.Client()})
	if !has(r, "/signatures/0/protected", "unreachable: HTTP 404") {
		t.Errorf("jku 404: %+v", r.Findings)
	}
}

func has(r *Report, path, msg string) bool {
	for _, f := range r.Findings {
		if f.Path == path && strings.Contains(f.Message, msg) {
			return true
		}
	}
	return false
}

func b64(s string) string { return base64.RawURLEncoding.EncodeToString([]byte(s)) }

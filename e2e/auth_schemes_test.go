package e2e

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// schemeAgent is a plain net/http agent (not our serve) whose card declares the given securitySchemes JSON. It
// records the headers and query of every call (not the card's fetch) and answers each call 401 unless the call
// carries the header want names with its value: a credential withheld is a refusal the CLI must explain.
type schemeAgent struct {
	*httptest.Server
	mu    sync.Mutex
	calls []*http.Request
}

func startSchemeAgent(t *testing.T, schemes, wantHeader, wantValue string) *schemeAgent {
	t.Helper()
	a := &schemeAgent{}
	a.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if strings.HasPrefix(r.URL.Path, "/.well-known/") {
			fmt.Fprintf(w, `{"name":"schemes","description":"declares %s","version":"1","supportedInterfaces":[{"url":"http://%s","protocolBinding":"JSONRPC","protocolVersion":"1.0"}],"capabilities":{},"defaultInputModes":["text/plain"],"defaultOutputModes":["text/plain"],"skills":[],"securitySchemes":%s}`,
				"schemes", r.Host, schemes)
			return
		}
		a.mu.Lock()
		a.calls = append(a.calls, r.Clone(r.Context()))
		a.mu.Unlock()
		if wantHeader != "" && r.Header.Get(wantHeader) != wantValue {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		// Any call is answered with a completed task, under the call's own id.
		var req struct {
			ID json.RawMessage `json:"id"`
		}
		if err := json.NewDecoder(io.LimitReader(r.Body, 1<<20)).Decode(&req); err != nil || len(req.ID) == 0 {
			req.ID = json.RawMessage(`null`)
		}
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"id":"t1","contextId":"c1","status":{"state":"TASK_STATE_COMPLETED"}}}`, req.ID)
	}))
	t.Cleanup(a.Close)
	return a
}

// last is the last call's header key ("<no call>" when none came) and forgets the calls.
func (a *schemeAgent) last(key string) string {
	a.mu.Lock()
	defer a.mu.Unlock()
	if len(a.calls) == 0 {
		return "<no call>"
	}
	v := a.calls[len(a.calls)-1].Header.Get(key)
	a.calls = nil
	return v
}

// TestCredentialsPerDeclaredScheme: --bearer and --api-key are attached per the security schemes the agent's card
// declares (the a2a-cli specification, §12.1): a credential no declared scheme takes is not sent, with a warning on
// stderr, and when the agent then refuses the call the error is A2ACLI_ERR_CREDENTIALS_MISSING with a hint naming the
// declared schemes and what to pass. --auth-undeclared (a flag, A2ACLI_AUTH_UNDECLARED, or a config key scoped to the
// agent) sends them anyway, for agents that under-declare. --auth, the seed's Authorization service parameter, goes
// as written.
func TestCredentialsPerDeclaredScheme(t *testing.T) {
	t.Parallel()
	const (
		bearerScheme = `{"token":{"httpAuthSecurityScheme":{"scheme":"Bearer"}}}`
		oauthScheme  = `{"sso":{"oauth2SecurityScheme":{"flows":{"clientCredentials":{"tokenUrl":"https://idp.example/token","scopes":{}}}}}}`
		apiKeyScheme = `{"key":{"apiKeySecurityScheme":{"location":"header","name":"X-Agent-Key"}}}`
		none         = `{}`
	)
	for _, tc := range []struct {
		name, schemes string
		args, env     []string
		key, want     string
		warn          string // a warning stderr must carry ("" none)
	}{
		{"bearer to an http bearer scheme", bearerScheme, []string{"--bearer", "tok"}, nil, "Authorization", "Bearer tok", ""},
		{"bearer to an oauth2 scheme", oauthScheme, []string{"--bearer", "tok"}, nil, "Authorization", "Bearer tok", ""},
		{"bearer to an apiKey-only card", apiKeyScheme, []string{"--bearer", "tok"}, nil, "Authorization", "",
			"warning: --bearer not sent: the agent's card declares no security scheme that takes it (declared: key (apiKey in header X-Agent-Key)); --auth-undeclared sends it anyway"},
		{"bearer from the environment to a card declaring none", none, nil, []string{"A2ACLI_BEARER=tok"}, "Authorization", "",
			"warning: --bearer not sent: the agent's card declares no security scheme that takes it (declared: none)"},
		{"api key to a bearer-only card", bearerScheme, []string{"--api-key", "k1"}, nil, "X-Api-Key", "", "warning: --api-key not sent"},
		{"api key where the apiKey scheme says", apiKeyScheme, []string{"--api-key", "k1"}, nil, "X-Agent-Key", "k1", ""},
		{"--auth-undeclared", apiKeyScheme, []string{"--bearer", "tok", "--auth-undeclared"}, nil, "Authorization", "Bearer tok", ""},
		{"A2ACLI_AUTH_UNDECLARED", none, []string{"--api-key", "k1"}, []string{"A2ACLI_AUTH_UNDECLARED=true"}, "X-Api-Key", "k1", ""},
		{"--auth goes as written (the seed's service parameter)", none, []string{"--auth", "Bearer raw"}, nil, "Authorization", "Bearer raw", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ag := startSchemeAgent(t, tc.schemes, "", "")
			env := append([]string{"XDG_CONFIG_HOME=" + t.TempDir()}, tc.env...)
			r := runEnv(t, t.TempDir(), env, "", append([]string{"get", "task", ag.URL, "t1"}, tc.args...)...)
			wantCode(t, r, 0)
			if got := ag.last(tc.key); got != tc.want {
				t.Fatalf("%s = %q, want %q\n%s", tc.key, got, tc.want, r)
			}
			if tc.warn != "" {
				wantContains(t, "stderr", r.stderr, tc.warn)
			} else if strings.Contains(r.stderr, "not sent") {
				t.Fatalf("unexpected warning\n%s", r)
			}
		})
	}

	t.Run("refused: the declared schemes in the hint", func(t *testing.T) {
		t.Parallel()
		ag := startSchemeAgent(t, apiKeyScheme, "X-Agent-Key", "k1")
		r := runEnv(t, t.TempDir(), []string{"XDG_CONFIG_HOME=" + t.TempDir()}, "", "get", "task", ag.URL, "t1", "--bearer", "tok", "-o", "json")
		wantCode(t, r, 4)
		doc := errorDoc(t, r)
		if doc["code"] != "A2ACLI_ERR_CREDENTIALS_MISSING" {
			t.Fatalf("code %v, want A2ACLI_ERR_CREDENTIALS_MISSING\n%s", doc["code"], r)
		}
		wantContains(t, "hint", doc["hint"].(string), "key (apiKey in header X-Agent-Key)", "pass --api-key <key>", "--auth-undeclared")
		r = runEnv(t, t.TempDir(), []string{"XDG_CONFIG_HOME=" + t.TempDir()}, "", "get", "task", ag.URL, "t1", "--api-key", "k1")
		wantCode(t, r, 0)
	})

	t.Run("auth-undeclared scoped to one agent in the config file", func(t *testing.T) {
		t.Parallel()
		ag := startSchemeAgent(t, none, "", "")
		other := startSchemeAgent(t, none, "", "")
		dir := t.TempDir()
		cfg := filepath.Join(dir, "a2a.yaml")
		body := "bearer: tok\nagents:\n  " + strings.TrimPrefix(ag.URL, "http://") + ":\n    auth-undeclared: true\n"
		if err := os.WriteFile(cfg, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		env := []string{"XDG_CONFIG_HOME=" + t.TempDir()}
		r := runEnv(t, dir, env, "", "get", "task", ag.URL, "t1", "--config", cfg)
		wantCode(t, r, 0)
		if got := ag.last("Authorization"); got != "Bearer tok" {
			t.Fatalf("the agent the file names: Authorization = %q, want the token\n%s", got, r)
		}
		r = runEnv(t, dir, env, "", "get", "task", other.URL, "t1", "--config", cfg)
		wantCode(t, r, 0)
		if got := other.last("Authorization"); got != "" {
			t.Fatalf("another agent: Authorization = %q, want none\n%s", got, r)
		}
	})
}

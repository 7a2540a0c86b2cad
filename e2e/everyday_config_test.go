package e2e

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// runEnv runs the binary in dir with extra environment variables (KEY=value) and stdin, bounded by a minute.
func runEnv(t testing.TB, dir string, env []string, stdin string, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = cmdEnv(env...)
	cmd.Dir = dir
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("a2a %s: %v", strings.Join(args, " "), err)
	}
	return result{stdout: out.String(), stderr: errb.String(), code: code}
}

// headerAgent serves an agent card (an apiKey scheme in header X-Agent-Key, an http bearer scheme) and records the headers of
// every request: a plain net/http agent, not our serve.
type headerAgent struct {
	*httptest.Server
	mu   sync.Mutex
	seen []http.Header
}

func startHeaderAgent(t *testing.T) *headerAgent {
	h := &headerAgent{}
	h.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.mu.Lock()
		h.seen = append(h.seen, r.Header.Clone())
		h.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"name":"hdr","description":"records headers","version":"1","supportedInterfaces":[{"url":"` +
			"http://" + r.Host + `","protocolBinding":"JSONRPC","protocolVersion":"1.0"}],"capabilities":{},` +
			`"defaultInputModes":["text/plain"],"defaultOutputModes":["text/plain"],"skills":[],` +
			`"securitySchemes":{"key":{"apiKeySecurityScheme":{"location":"header","name":"X-Agent-Key"}},` +
			`"token":{"httpAuthSecurityScheme":{"scheme":"Bearer"}}}}`))
	}))
	t.Cleanup(h.Close)
	return h
}

// last returns the header key of the last request and forgets what was seen.
func (h *headerAgent) last(key string) string {
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.seen) == 0 {
		return "<no request>"
	}
	v := h.seen[len(h.seen)-1].Get(key)
	h.seen = nil
	return v
}

// TestCredentialsOutOfTheCommandLine: credentials and defaults without the command line: environment, dotenv files, a
// file or stdin, with flag > environment > file > default.
func TestCredentialsOutOfTheCommandLine(t *testing.T) {
	t.Parallel()
	h := startHeaderAgent(t)
	dir := t.TempDir()
	home := t.TempDir()
	secretFile := filepath.Join(dir, "token")
	if err := os.WriteFile(secretFile, []byte("Bearer from-file\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(dir, "a2a.env")
	if err := os.WriteFile(cfg, []byte("# test\nA2ACLI_AUTH='Bearer from-config'\nA2ACLI_TENANT=t9\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(home, "a2a"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, "a2a", ".env"), []byte("export A2ACLI_BEARER=from-user-config\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	local := t.TempDir()
	if err := os.WriteFile(filepath.Join(local, ".env"), []byte("A2ACLI_API_KEY=from-dotenv # comment\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name       string
		dir        string
		env        []string
		stdin      string
		args       []string
		key, value string
	}{
		{"env auth", dir, []string{"A2ACLI_AUTH=Bearer from-env"}, "", nil, "Authorization", "Bearer from-env"},
		{"env bearer", dir, []string{"A2ACLI_BEARER=tok"}, "", nil, "Authorization", "Bearer tok"},
		{"flag beats env", dir, []string{"A2ACLI_AUTH=Bearer from-env"}, "", []string{"--auth", "Bearer from-flag"}, "Authorization", "Bearer from-flag"},
		{"auth from file", dir, nil, "", []string{"--auth", "@" + secretFile}, "Authorization", "Bearer from-file"},
		{"auth from stdin", dir, nil, "Bearer from-stdin\n", []string{"--auth", "-"}, "Authorization", "Bearer from-stdin"},
		{"env names a file", dir, []string{"A2ACLI_AUTH=@" + secretFile}, "", nil, "Authorization", "Bearer from-file"},
		{"--config file", dir, nil, "", []string{"--config", cfg}, "Authorization", "Bearer from-config"},
		{"env beats file", dir, []string{"A2ACLI_AUTH=Bearer from-env"}, "", []string{"--config", cfg}, "Authorization", "Bearer from-env"},
		{"user config dir", dir, []string{"XDG_CONFIG_HOME=" + home}, "", nil, "Authorization", "Bearer from-user-config"},
		// After the card, --api-key travels in the header the card's apiKey scheme names (the agent answers the
		// call with a card, so the call itself fails: only the header matters here).
		{"api key in the card's header", local, nil, "", []string{"get", "task"}, "X-Agent-Key", "from-dotenv"},
		{"api key flag", dir, nil, "", []string{"--api-key", "k1", "get", "task"}, "X-Agent-Key", "k1"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			env := append([]string{"XDG_CONFIG_HOME=" + t.TempDir()}, tc.env...)
			// Credentials go on the agent's calls, not on the public card's fetch (the a2a-cli specification,
			// §12.1): the last request is a call (the agent answers it with a card, so it fails: only the header
			// matters here).
			extra := tc.args
			if n := len(extra); n >= 2 && extra[n-2] == "get" {
				extra = extra[:n-2]
			}
			args := append([]string{"get", "task", h.URL, "t1"}, extra...)
			r := runEnv(t, tc.dir, env, tc.stdin, args...)
			if got := h.last(tc.key); got != tc.value {
				t.Fatalf("%s = %q, want %q\n%s", tc.key, got, tc.value, r)
			}
		})
	}
}

func TestConfigShow(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cfg := filepath.Join(dir, "a2a.env")
	if err := os.WriteFile(cfg, []byte("A2ACLI_TENANT=from-file\nA2ACLI_TIMEOUT=9s\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	r := runEnv(t, dir, []string{"XDG_CONFIG_HOME=" + dir, "A2ACLI_AUTH=Bearer supersecret123", "A2ACLI_TIMEOUT=7s"}, "",
		"config", "show", "--config", cfg, "--transport", "rest")
	wantCode(t, r, 0)
	if strings.Contains(r.stdout, "supersecret123") {
		t.Fatalf("config show printed the secret:\n%s", r)
	}
	for _, want := range [][]string{
		{"--auth", "***", "env A2ACLI_AUTH"},
		{"--timeout", "7s", "env A2ACLI_TIMEOUT"},
		{"--tenant", "from-file", "file " + cfg},
		{"--transport", "rest", "flag"},
		{"--insecure", "false", "default"},
	} {
		if !hasRow(r.stdout, want...) {
			t.Errorf("no row %q in:\n%s", want, r.stdout)
		}
	}
	bad := runEnv(t, dir, []string{"A2ACLI_TIMEOUT=soon"}, "", "config", "show")
	wantCode(t, bad, 2)
	wantContains(t, "stderr", bad.stderr, `invalid A2ACLI_TIMEOUT="soon"`)
}

// hasRow reports whether some line of out has exactly the given whitespace-separated fields.
func hasRow(out string, fields ...string) bool {
	for _, line := range strings.Split(out, "\n") {
		if strings.Join(strings.Fields(line), " ") == strings.Join(fields, " ") {
			return true
		}
	}
	return false
}

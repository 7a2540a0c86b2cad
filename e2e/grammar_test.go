package e2e

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/creack/pty"

	"github.com/a2acli/a2a/internal/testagent"
	"github.com/a2aproject/a2a-go/v2/a2a"
)

// TestTextNoControlSequencesOnTerminal: the text contract carries no terminal control sequences, on a terminal too
// (the a2a-cli specification, §11.2): stdout is a terminal here, TERM says it can colour, NO_COLOR is unset, and the
// bytes are what a pipe gets. Blocks are closed by a blank line. --color always still colours.
func TestTextNoControlSequencesOnTerminal(t *testing.T) {
	t.Parallel()
	srv := startServe(t, "--echo")
	task := sendTask(t, run(t, "", "send", srv.url, "hello", "-o", "json"))
	piped := run(t, "", "get", "task", srv.url, string(task.ID))
	wantCode(t, piped, 0)

	onTTY := func(extra ...string) string {
		ptmx, tty, err := pty.Open()
		if err != nil {
			t.Skipf("no pseudo-terminal: %v", err)
		}
		defer ptmx.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		cmd := exec.CommandContext(ctx, bin, append([]string{"get", "task", srv.url, string(task.ID)}, extra...)...)
		cmd.Env = append(cmdEnv("TERM=xterm-256color"), "NO_COLOR=")
		var stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = tty, &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		tty.Close()
		var out bytes.Buffer
		done := make(chan struct{})
		go func() { _, _ = io.Copy(&out, ptmx); close(done) }()
		if err := cmd.Wait(); err != nil {
			t.Fatalf("a2a get task on a terminal: %v\n%s", err, stderr.String())
		}
		ptmx.Close()
		<-done
		return strings.ReplaceAll(out.String(), "\r\n", "\n")
	}
	got := onTTY()
	if strings.Contains(got, "\x1b") {
		t.Errorf("text output on a terminal carries escape sequences:\n%q", got)
	}
	if got != piped.stdout {
		t.Errorf("text on a terminal differs from text in a pipe:\n%q\n%q", got, piped.stdout)
	}
	if !strings.Contains(got, "Artifact: echo\n  hello\n\n") {
		t.Errorf("the artifact block is not closed by a blank line:\n%q", got)
	}
	if colored := onTTY("--color", "always"); !strings.Contains(colored, "\x1b[") {
		t.Errorf("--color always: no colour on a terminal:\n%q", colored)
	}
}

// TestPushConfigNeedsDeclaredCapability: push configs go only to an agent whose card declares push notifications
// (the a2a-cli specification, §13.3), in both grammars; the refusal is the protocol's own error name, before any
// call. The agents are a2a-go's SDK servers, one without push and one with it.
func TestPushConfigNeedsDeclaredCapability(t *testing.T) {
	t.Parallel()
	noPush := testagent.Start(t, testagent.Options{})
	withPush := testagent.Start(t, testagent.Options{Push: true})
	for _, args := range [][]string{
		{"list", "push-configs", noPush.URL, "t1"},
		{"task", "push-config", "list", "-a", noPush.URL, "t1"},
		{"create", "push-config", noPush.URL, "t1", "--webhook", "http://127.0.0.1:9/"},
		{"send", noPush.URL, "hi", "--push-url", "http://127.0.0.1:9/"},
	} {
		r := run(t, "", append(args, "-o", "json")...)
		wantCode(t, r, 1)
		wantContains(t, "stdout", r.stdout, `"code":"PushNotificationNotSupportedError"`, "does not declare push notifications")
	}
	task := sendTask(t, run(t, "", "send", withPush.URL, "hi", "-o", "json"))
	r := run(t, "", "task", "push-config", "list", "-a", withPush.URL, string(task.ID))
	wantCode(t, r, 0)
}

// TestTaskGetWait: task get --wait polls a2a-go's SDK agent until its slow task completes; --timeout bounds the
// whole wait (exit 5, A2ACLI_ERR_TIMEOUT) and a settled task is printed with its artifacts.
func TestTaskGetWait(t *testing.T) {
	t.Parallel()
	slow := testagent.Start(t, testagent.Options{Behavior: testagent.Slow, Delay: 1500 * time.Millisecond})
	task := sendTask(t, run(t, "", "send", slow.URL, "hi", "--immediate", "-o", "json"))
	r := run(t, "", "task", "get", "-a", slow.URL, string(task.ID), "--wait", "--timeout", "200ms", "-o", "json")
	wantCode(t, r, 5)
	wantContains(t, "stdout", r.stdout, `"code":"A2ACLI_ERR_TIMEOUT"`)
	r = run(t, "", "task", "get", "-a", slow.URL, string(task.ID), "--wait", "--poll-interval", "50ms")
	wantCode(t, r, 0)
	wantContains(t, "stdout", r.stdout, "State: completed", "Artifact: ")
}

// TestConfigFilesYAMLJSONPerAgent: configuration files in YAML or JSON beside dotenv, keyed by flag or variable
// names, with settings scoped to one agent (the a2a-cli specification, §8.3); the agent's own dotenv file in the
// user's a2a/agents directory; precedence flag > environment > files unchanged.
func TestConfigFilesYAMLJSONPerAgent(t *testing.T) {
	t.Parallel()
	h := startHeaderAgent(t)
	hostPort := strings.TrimPrefix(h.URL, "http://")
	dir, home := t.TempDir(), t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	yml := write("a2a.yaml", "bearer: top-level\nagents:\n  "+hostPort+":\n    A2ACLI_BEARER: per-agent\n  other.example:9:\n    bearer: wrong\n")
	other := write("other.yaml", "agents:\n  other.example:9:\n    bearer: wrong\ntenant: t1\nbearer: top-level\n")
	js := write("a2a.json", `{"auth":"Bearer from-json","timeout":"5s"}`)
	bad := write("bad.yaml", "agents: [1, 2]\n")
	if err := os.MkdirAll(filepath.Join(home, "a2a", "agents"), 0o700); err != nil {
		t.Fatal(err)
	}
	agentFile := filepath.Join(home, "a2a", "agents", strings.ReplaceAll(hostPort, ":", "_")+".env")
	if err := os.WriteFile(agentFile, []byte("A2ACLI_BEARER=agent-dotenv\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		env  []string
		args []string
		want string
	}{
		{"yaml, the agent's section", nil, []string{"--config", yml}, "Bearer per-agent"},
		{"yaml, another agent's section ignored", nil, []string{"--config", other}, "Bearer top-level"},
		{"json", nil, []string{"--config", js}, "Bearer from-json"},
		{"environment beats the file", []string{"A2ACLI_BEARER=env"}, []string{"--config", yml}, "Bearer env"},
		{"flag beats all", nil, []string{"--config", yml, "--bearer", "flag"}, "Bearer flag"},
		{"the agent's own dotenv file", []string{"XDG_CONFIG_HOME=" + home}, nil, "Bearer agent-dotenv"},
		{"-a names the agent too", nil, []string{"--config", yml, "-a"}, "Bearer per-agent"},
	}
	for _, tc := range tests {
		env := append([]string{"XDG_CONFIG_HOME=" + t.TempDir()}, tc.env...)
		args := append([]string{"get", "task", h.URL, "t1"}, tc.args...)
		if n := len(tc.args); n > 0 && tc.args[n-1] == "-a" {
			args = append([]string{"task", "get", "t1"}, append(tc.args, h.URL)...)
		}
		r := runEnv(t, dir, env, "", args...)
		if got := h.last("Authorization"); got != tc.want {
			t.Errorf("%s: Authorization = %q, want %q\n%s", tc.name, got, tc.want, r)
		}
	}
	r := runEnv(t, dir, nil, "", "get", "task", h.URL, "t1", "--config", bad)
	wantCode(t, r, 2)
	wantContains(t, "stderr", r.stderr, "agents: want a map")
}

// TestRequiredExtensionsDeclared: an agent whose card marks an extension required (a2a-go's handler with capability
// checks, which refuses a call that does not request it) is served on every binding: every call a2a makes (the
// blocking send, the stream, the get) declares it in A2A-Extensions (the a2a-cli specification's VER_002, A2A §4.6).
// The same agent refuses a plain JSON-RPC request without the header, so the check is real.
func TestRequiredExtensionsDeclared(t *testing.T) {
	t.Parallel()
	const ext = "urn:a2acli:test:required"
	for _, tr := range []a2a.TransportProtocol{a2a.TransportProtocolJSONRPC, a2a.TransportProtocolHTTPJSON, a2a.TransportProtocolGRPC} {
		ag := testagent.Start(t, testagent.Options{Transport: tr, RequiredExtensions: []string{ext}})
		if tr == a2a.TransportProtocolJSONRPC {
			body := `{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"m1","role":"ROLE_USER","parts":[{"text":"hi"}]}}}`
			req, err := http.NewRequest(http.MethodPost, ag.URL, strings.NewReader(body))
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("A2A-Version", "1.0")
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			got, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if !strings.Contains(string(got), "-32008") {
				t.Fatalf("the agent took a call without %s: %s", ext, got)
			}
		}
		r := run(t, "", "send", ag.URL, "hi", "-o", "json")
		wantCode(t, r, 0)
		task := sendTask(t, r)
		wantCode(t, run(t, "", "send", ag.URL, "hi", "--stream", "-o", "json"), 0)
		wantCode(t, run(t, "", "task", "get", "-a", ag.URL, string(task.ID)), 0)
		if tr == a2a.TransportProtocolGRPC {
			continue // gRPC metadata: the agent's success above is the proof
		}
		n := 0
		for _, h := range ag.Requests() {
			if strings.Contains(h.Get("A2A-Extensions"), ext) {
				n++
			}
		}
		if n < 3 {
			t.Errorf("%s: %d calls declared %s, want the send, the stream and the get", tr, n, ext)
		}
	}
}

// TestCatalogReferences: a catalog is accepted wherever an agent reference is (the a2a-cli specification's
// CARD_GET_005): an AI Catalog (ai-catalog.json) and an RFC 9727 API catalog, served by a plain web server, each
// listing a2a serve's card among other things; card get -a, send's <url> and task get -a reach the agent through
// them, #name choosing the entry.
func TestCatalogReferences(t *testing.T) {
	t.Parallel()
	srv := startServe(t, "--echo", "--name", "Catalogued Echo")
	cardURL := srv.url + "/.well-known/agent-card.json"
	mux := http.NewServeMux()
	mux.HandleFunc("/.well-known/ai-catalog.json", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/ai-catalog+json")
		io.WriteString(w, `{"specVersion":"1.0","entries":[
			{"identifier":"urn:air:example.com:mcp:tools","type":"application/mcp-server-card+json","url":"https://example.com/mcp"},
			{"identifier":"urn:air:example.com:a2a:echo","type":"application/a2a-agent-card+json","url":"`+cardURL+`"},
			{"identifier":"urn:air:example.com:a2a:other","type":"application/a2a-agent-card+json","url":"http://127.0.0.1:9/card"}]}`)
	})
	mux.HandleFunc("/.well-known/api-catalog", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/linkset+json")
		io.WriteString(w, `{"linkset":[{"anchor":"`+srv.url+`","item":[{"href":"`+cardURL+`","title":"echo"}]}]}`)
	})
	cat := httptest.NewServer(mux)
	defer cat.Close()
	for _, ref := range []string{cat.URL + "/.well-known/ai-catalog.json#a2a:echo", cat.URL + "/.well-known/api-catalog"} {
		r := run(t, "", "card", "get", "-a", ref)
		wantCode(t, r, 0)
		wantContains(t, "card get", r.stdout, "Name: Catalogued Echo")
		r = run(t, "", "send", ref, "through the catalog", "-o", "json")
		wantCode(t, r, 0)
		task := sendTask(t, r)
		r = run(t, "", "task", "get", "-a", ref, string(task.ID))
		wantCode(t, r, 0)
		wantContains(t, "task get", r.stdout, "through the catalog")
	}
	r := run(t, "", "card", "get", "-a", cat.URL+"/.well-known/ai-catalog.json")
	wantCode(t, r, 2)
	wantContains(t, "several entries", r.stderr, "lists 2 agent cards")
}

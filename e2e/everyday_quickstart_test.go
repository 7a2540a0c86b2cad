package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// quickStart returns the README's first sh block without the build line: `a2a serve … &` and the send after it.
func quickStart(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(data), "```sh\n")
	block, _, ok2 := strings.Cut(rest, "```")
	if !ok || !ok2 {
		t.Fatal("README has no sh block")
	}
	var lines []string
	for _, l := range strings.Split(block, "\n") {
		if strings.Contains(l, "a2a ") {
			lines = append(lines, l)
		}
	}
	if len(lines) != 2 || !strings.HasSuffix(strings.TrimSpace(strings.Split(lines[0], "#")[0]), "&") {
		t.Fatalf("README's first block is not `serve … &` then a command: %q", lines)
	}
	return strings.Join(lines, "\n")
}

// TestQuickStartCannotRace: the README's quick start pasted as one block (serve in the background, then send at once)
// works every time: the client waits a moment for a loopback agent that refuses connections while it starts.
func TestQuickStartCannotRace(t *testing.T) {
	t.Parallel()
	block := quickStart(t)
	for i := 0; i < 10; i++ {
		port := strconv.Itoa(freePort(t))
		script := strings.ReplaceAll(strings.ReplaceAll(block, "./bin/a2a", bin), "8080", port) +
			"\nrc=$?\nkill $! 2>/dev/null\nwait\nexit $rc\n"
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		cmd := exec.CommandContext(ctx, "sh", "-c", script)
		cmd.Env = cmdEnv()
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		err := cmd.Run()
		cancel()
		if err != nil {
			t.Fatalf("run %d: %v\n--- script:\n%s\n--- stdout:\n%s\n--- stderr:\n%s", i, err, script, out.String(), errb.String())
		}
		if !strings.Contains(out.String(), "hello") {
			t.Fatalf("run %d: no echo of hello:\n%s\n%s", i, out.String(), errb.String())
		}
	}
}

// A refused connection to a port nobody listens on still fails, as unreachable, within the retry's bound.
func TestRefusedStillFails(t *testing.T) {
	t.Parallel()
	port := strconv.Itoa(refusingPort(t))
	start := time.Now()
	r := run(t, "", "send", "127.0.0.1:"+port, "hi", "-v")
	wantCode(t, r, 3)
	wantContains(t, "stderr", r.stderr, "connection refused", "trying again")
	if d := time.Since(start); d > 20*time.Second {
		t.Fatalf("refused connection took %s to fail", d)
	}
}

// The quick start with a token: serve's card names 127.0.0.1, the user types localhost. The two (and [::1]) with one
// scheme and port are one origin, so --auth reaches the agent; it used to be withheld, and send exited 4.
func TestQuickStartTokenLoopbackAlias(t *testing.T) {
	t.Parallel()
	const token = "qu1ck-st4rt"
	srv := startServe(t, "--echo", "--token", token)
	port := srv.url[strings.LastIndex(srv.url, ":")+1:]
	r := run(t, "", "send", "localhost:"+port, "hello", "--auth", "Bearer "+token)
	wantCode(t, r, 0)
	wantContains(t, "stdout", r.stdout, "hello", "completed")
	if strings.Contains(r.stderr, withheldNote) {
		t.Fatalf("credentials withheld from a loopback alias\n%s", r)
	}
}

// A card that names localhost when the user typed 127.0.0.1 gets the credentials too; a card naming another port
// of the loopback host still does not.
func TestLoopbackAliasCard(t *testing.T) {
	t.Parallel()
	const token = "Bearer l00pback"
	var mu sync.Mutex
	var seen []string
	agent := func(cardPort func(self string) string) *httptest.Server {
		mux := http.NewServeMux()
		mux.HandleFunc("GET /.well-known/agent-card.json", func(w http.ResponseWriter, r *http.Request) {
			_, self, _ := strings.Cut(r.Host, ":")
			fmt.Fprintf(w, `{"name":"alias","description":"d","version":"1","supportedInterfaces":[{"url":"http://localhost:%s",`+
				`"protocolBinding":"JSONRPC","protocolVersion":"1.0"}],"capabilities":{},"defaultInputModes":["text/plain"],`+
				`"defaultOutputModes":["text/plain"],"skills":[]}`, cardPort(self))
		})
		mux.HandleFunc("POST /", func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			seen = append(seen, r.Header.Get("Authorization"))
			mu.Unlock()
			var req struct {
				ID json.RawMessage `json:"id"`
			}
			json.NewDecoder(r.Body).Decode(&req) //nolint:errcheck // the id is all it needs
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"task":{"id":"t","contextId":"c","status":{"state":"TASK_STATE_COMPLETED"}}}}`, req.ID)
		})
		s := httptest.NewServer(mux)
		t.Cleanup(s.Close)
		return s
	}
	self := agent(func(p string) string { return p })
	port := self.URL[strings.LastIndex(self.URL, ":")+1:]

	r := run(t, "", "send", "127.0.0.1:"+port, "hi", "--auth", token)
	wantCode(t, r, 0)
	mu.Lock()
	got := append([]string(nil), seen...)
	seen = nil
	mu.Unlock()
	if len(got) == 0 || got[0] != token || strings.Contains(r.stderr, withheldNote) {
		t.Fatalf("a card naming localhost for 127.0.0.1: the agent got Authorization %q\n%s", got, r)
	}

	// The card served on another port names self's port: another origin, still refused.
	refusing := agent(func(string) string { return port })
	rport := refusing.URL[strings.LastIndex(refusing.URL, ":")+1:]
	r = run(t, "", "send", "127.0.0.1:"+rport, "hi", "--auth", token)
	wantCode(t, r, 0)
	wantContains(t, "stderr", r.stderr, withheldNote+"http://localhost:"+port)
	mu.Lock()
	defer mu.Unlock()
	if len(seen) == 0 || seen[0] != "" {
		t.Fatalf("another port of the loopback host got Authorization %q\n%s", seen, r)
	}
}

package e2e

import (
	"bufio"
	"context"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// TestServeSubscriptionLimitFlag: --max-subscriptions-per-task 1 reaches the server. While one `a2a subscribe`
// follows a running task, a second one is refused on every binding: one line on stderr naming the limit, exit 1,
// nothing on stdout (it does not fall back to polling, as it does for an agent that does not stream). The first
// goes on to the task's end; so over protocol v0.3. A limit below 1 is a usage error, given as a flag or in the
// environment.
func TestServeSubscriptionLimitFlag(t *testing.T) {
	t.Parallel()
	for _, flag := range []string{"--max-subscriptions-per-task", "--max-subscriptions"} {
		r := run(t, "", "serve", "--echo", "--port", "0", flag, "0")
		wantCode(t, r, 2)
		wantContains(t, "stderr", r.stderr, "invalid "+flag+" 0: want at least 1")
		// Like every option, from the environment too.
		env := "A2ACLI_" + strings.ToUpper(strings.ReplaceAll(strings.TrimPrefix(flag, "--"), "-", "_")) + "=-1"
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second) // a serve that starts is killed
		cmd := exec.CommandContext(ctx, bin, "serve", "--echo", "--port", "0")
		cmd.Env = cmdEnv(env)
		out, err := cmd.CombinedOutput()
		cancel()
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 2 || !strings.Contains(string(out), "invalid "+flag+" -1") {
			t.Errorf("serve with %s: %v, want a usage error naming %s\n%s", env, err, flag, out)
		}
	}

	for _, protocol := range [][]string{nil, {"--protocol", "0.3"}} {
		name := "v1.0"
		if protocol != nil {
			name = "v0.3"
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			subscriptionLimitFlag(t, protocol)
		})
	}
}

// subscriptionLimitFlag runs TestServeSubscriptionLimitFlag's refusals against a serve of protocol (nil: the latest).
func subscriptionLimitFlag(t *testing.T, protocol []string) {
	args := []string{"--reference", "--reference-long", "1m", "--transport", "rest,jsonrpc,grpc", "--max-subscriptions-per-task", "1", "--quiet"}
	srv := startServe(t, append(args, protocol...)...)
	msg := `{"messageId":"tck-long-running-1","role":"ROLE_USER","parts":[{"text":"start"}]}`
	if protocol != nil {
		optIn03(t, srv.url)
		msg = `{"messageId":"tck-long-running-1","role":"user","kind":"message","parts":[{"kind":"text","text":"start"}]}`
	}
	r := run(t, "", "send", srv.url, "--immediate", "--json", msg, "-o", "json", "--jq", ".task.id")
	wantCode(t, r, 0)
	id := strings.TrimSpace(r.stdout)

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	first := exec.CommandContext(ctx, bin, "subscribe", srv.url, id, "-o", "json")
	first.Env = cmdEnv()
	out, err := first.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var firstErr strings.Builder
	first.Stderr = &firstErr
	if err := first.Start(); err != nil {
		t.Fatal(err)
	}
	lines := bufio.NewScanner(out)
	if !lines.Scan() { // the task as it stands: the subscription is open
		first.Wait()
		t.Fatalf("the first subscribe printed nothing: %s", firstErr.String())
	}
	wantContains(t, "first subscribe's first event", strings.ToLower(lines.Text()), `working"`)

	for _, tr := range []string{"rest", "jsonrpc", "grpc"} {
		r := run(t, "", "subscribe", srv.url, id, "--transport", tr)
		if r.code != 1 || r.stdout != "" {
			t.Errorf("a second subscribe over %s: want exit 1 and no output\n%s", tr, r)
		}
		wantContains(t, "the refusal over "+tr, r.stderr, "too many subscriptions to task "+id+": 1 open, the limit on one task (--max-subscriptions-per-task)")
		if msg := strings.TrimRight(r.stderr, "\n"); strings.Contains(msg, "\n") || strings.Contains(msg, "HTTP request") {
			t.Errorf("the refusal over %s: want one line, the agent's message\n%s", tr, r.stderr)
		}
		r = run(t, "", "subscribe", srv.url, id, "--transport", tr, "-o", "json")
		wantCode(t, r, 1)
		if doc := errorDoc(t, r); doc["code"] != "UnsupportedOperationError" {
			t.Errorf("a second subscribe over %s -o json: code %v, want UnsupportedOperationError\n%s", tr, doc["code"], r)
		}
	}

	// The first subscriber goes on: it sees the task canceled and ends.
	wantCode(t, run(t, "", "cancel", srv.url, id), 0)
	var last string
	for lines.Scan() {
		last = lines.Text()
	}
	if err := first.Wait(); err != nil {
		t.Fatalf("the first subscribe: %v\n%s", err, firstErr.String())
	}
	wantContains(t, "first subscribe's last event", strings.ToLower(last), `canceled"`)
}

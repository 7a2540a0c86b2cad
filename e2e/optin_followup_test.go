package e2e

import (
	"regexp"
	"strings"
	"testing"
)

// TestOptInCarriedIntoFollowUps: every follow-up command a run prints against an agent that speaks only A2A 0.3
// carries the opt-in the run was given on its command line or in its environment, and works when pasted as printed;
// an opt-in from the agent's own config file is left out of them (the file applies to the pasted command as well).
func TestOptInCarriedIntoFollowUps(t *testing.T) {
	t.Parallel()
	srv := startServe(t, "--exec", "sleep 30", "--protocol", "0.3", "--card-compat", "--transport", "jsonrpc")
	hint := regexp.MustCompile(`follow it with: a2a subscribe (.+) · a2a get task (.+) · a2a cancel (.+)\n`)
	for _, c := range []struct {
		name string
		env  []string
		args []string
	}{
		{"flag", nil, []string{"--a2a-version", "0.3"}},
		{"svc-param", nil, []string{"--svc-param", "A2A-Version=0.3"}},
		{"env", []string{"A2ACLI_A2A_VERSION=0.3"}, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := runEnv(t, "", c.env, "", append([]string{"send", srv.url, "hi", "--wait", "300ms", "--poll-interval", "50ms"}, c.args...)...)
			wantCode(t, r, 5)
			m := hint.FindStringSubmatch(r.stderr)
			if m == nil {
				t.Fatalf("no follow-up hint:\n%s", r)
			}
			for _, cmd := range m[1:] {
				if !strings.HasPrefix(cmd, srv.url+" --a2a-version 0.3 ") {
					t.Fatalf("follow-up %q does not carry --a2a-version 0.3:\n%s", cmd, r.stderr)
				}
			}
			// Pasted as printed, with none of the run's flags or environment.
			get := run(t, "", append([]string{"get", "task"}, strings.Fields(m[2])...)...)
			wantCode(t, get, 0)
			wantContains(t, "the pasted get task", get.stdout, "working")
			cancel := run(t, "", append([]string{"cancel"}, strings.Fields(m[3])...)...)
			wantCode(t, cancel, 0)
			wantContains(t, "the pasted cancel", cancel.stdout, "canceled")
		})
	}
	t.Run("config-file", func(t *testing.T) {
		optIn03(t, srv.url)
		r := run(t, "", "send", srv.url, "hi", "--wait", "300ms", "--poll-interval", "50ms")
		wantCode(t, r, 5)
		m := hint.FindStringSubmatch(r.stderr)
		if m == nil || strings.Contains(m[0], "--a2a-version") {
			t.Fatalf("want the follow-up hint without --a2a-version (the agent's config file applies anyway):\n%s", r)
		}
		cancel := run(t, "", append([]string{"cancel"}, strings.Fields(m[3])...)...)
		wantCode(t, cancel, 0)
	})
}

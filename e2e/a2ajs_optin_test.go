package e2e

import (
	"regexp"
	"strings"
	"testing"
)

// TestA2AJS03OptInCarriesOver: an agent that speaks only A2A 0.3 (a2a-js 0.3.14) is refused without the opt-in, by
// send, send --stream and chat alike, with a hint naming --a2a-version 0.3; with the flag, the command that continues
// a task waiting for input carries the opt-in too, and works when pasted as printed.
func TestA2AJS03OptInCarriesOver(t *testing.T) {
	dir := needA2AJS(t)
	t.Parallel()
	u := startNodeServer(t, dir, "server03.mjs", "JSONRPC")
	for _, args := range [][]string{{"send", u, "hi"}, {"send", u, "hi", "--stream"}, {"chat", u}} {
		r := run(t, "hi\n", args...)
		wantCode(t, r, 1)
		wantContains(t, strings.Join(args[:1], " ")+" without the opt-in", r.stderr, "speaks only A2A 0.3", "hint: speak 0.3 to it with --a2a-version 0.3")
	}
	r := run(t, "", "send", u, "ask", "--a2a-version", "0.3")
	wantCode(t, r, 0)
	m := regexp.MustCompile(`(?m)^  a2a send (\S+) --a2a-version 0\.3 --task (\S+) "…"$`).FindStringSubmatch(r.stderr)
	if m == nil {
		t.Fatalf("the continue hint does not carry --a2a-version 0.3:\n%s", r.stderr)
	}
	r = run(t, "", "send", m[1], "--a2a-version", "0.3", "--task", m[2], "Ada")
	wantCode(t, r, 0)
	wantContains(t, "the pasted follow-up", r.stdout, "hello, Ada", "State: completed")
}

package e2e

import (
	"strings"
	"testing"
	"time"

	"github.com/a2acli/a2a/internal/testagent/wire"
)

// TestSilentForgottenTaskBounded: a stream that goes silent, on an agent whose GetTask answers
// "task not found" (a hand-written agent, like a replica that never saw the task), ends the command about --timeout
// after the silence began, as a lost stream naming the task: no resubscription, since the agent does not know the
// task. Before the fix it resubscribed 10 times, each after another --timeout of silence: --timeout 3s exited after
// 33 s.
func TestSilentForgottenTaskBounded(t *testing.T) {
	t.Parallel()
	const timeout = time.Second
	for _, args := range [][]string{{"--stream"}, {}} {
		ag := wire.Start(t, wire.Options{Kind: wire.Forgetful})
		start := time.Now()
		r := run(t, "", append([]string{"send", ag.URL, "quiet job", "--timeout", timeout.String(), "-o", "json"}, args...)...)
		took := time.Since(start)
		what := "send " + strings.Join(args, " ")
		t.Logf("%s --timeout %s: exit %d after %s, %d resubscriptions", what, timeout, r.code, took.Round(time.Millisecond), ag.Count("SubscribeToTask"))
		_, doc := jsonLines(t, r.stdout)
		if doc == nil || doc["code"] != "A2ANC_ERR_STREAM_LOST" || doc["taskId"] != "task-1" {
			t.Errorf("%s: error document %v, want A2ANC_ERR_STREAM_LOST for task-1\n%s", what, doc, r)
		}
		if r.code == 0 {
			t.Errorf("%s: exit 0, want a failure", what)
		}
		if took > 3*timeout {
			t.Errorf("%s --timeout %s took %s: the follow-up outlived what the user asked", what, timeout, took.Round(time.Millisecond))
		}
		if n := ag.Count("SubscribeToTask"); n != 0 {
			t.Errorf("%s: %d resubscriptions to a task the agent does not know, want 0", what, n)
		}
	}
}

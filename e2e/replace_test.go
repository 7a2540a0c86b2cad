package e2e

import (
	"strings"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/a2acli/a2a/internal/testagent/wire"
)

// TestArtifactReplacement: an agent that sends each artifact update whole, without append (and again on a
// resubscription), replaces the artifact. -o raw writes what the artifact finally is: a replacement that extends what
// was written adds only the rest; one that does not ("draft" then "final") is written whole from a line of its own.
// Text shows nothing twice; the result of a plain send holds the final artifacts. -o raw used to write "one\n" then
// "one\ntwo\n" whole, and the resubscription's task all over again.
func TestArtifactReplacement(t *testing.T) {
	t.Parallel()
	const raw = "one\ntwo\nthree\ndraft\nfinal\n"
	for _, args := range [][]string{{"send", "--stream", "URL", "go"}, {"subscribe", "URL", "task-1"}} {
		ag := wire.Start(t, wire.Options{Kind: wire.Replace})
		args := append([]string(nil), args...)
		for i := range args {
			if args[i] == "URL" {
				args[i] = ag.URL
			}
		}
		r := run(t, "", append(args, "-o", "raw")...)
		wantCode(t, r, 0)
		if r.stdout != raw {
			t.Errorf("%s -o raw: stdout %q, want %q\n%s", args[0], r.stdout, raw, r)
		}
		want := 1 // the resubscription
		if args[0] == "subscribe" {
			want = 2
		}
		if n := ag.Count("SubscribeToTask"); n != want {
			t.Errorf("%s: SubscribeToTask called %d times, want %d", args[0], n, want)
		}
	}

	ag := wire.Start(t, wire.Options{Kind: wire.Replace})
	r := run(t, "", "send", "--stream", ag.URL, "go")
	wantCode(t, r, 0)
	for _, line := range []string{"  one\n", "  two\n", "  three\n", "  draft\n", "  final\n"} {
		if n := strings.Count(r.stdout, line); n != 1 {
			t.Errorf("text shows %q %d times, want once\n%s", line, n, r)
		}
	}

	ag = wire.Start(t, wire.Options{Kind: wire.Replace})
	r = run(t, "", "send", ag.URL, "go", "-o", "json")
	wantCode(t, r, 0)
	task := sendTask(t, r)
	if task.Status.State != a2a.TaskStateCompleted || len(task.Artifacts) != 2 || artifactText(task) != "one\ntwo\nthree\nfinal\n" {
		t.Fatalf("send -o json: want the completed task with the final artifacts\n%s", r)
	}
	ag = wire.Start(t, wire.Options{Kind: wire.Replace})
	r = run(t, "", "send", ag.URL, "go", "-o", "raw")
	wantCode(t, r, 0)
	if r.stdout != "one\ntwo\nthree\nfinal\n" {
		t.Errorf("send -o raw: stdout %q, want the final artifacts\n%s", r.stdout, r)
	}
}

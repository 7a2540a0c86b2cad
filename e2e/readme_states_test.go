package e2e

import (
	"encoding/json"
	"os"
	"regexp"
	"strings"
	"testing"
)

// TestDocsSayWhichStateNamesToExpect: the README's `jq -r .task.status.state` example and docs/output.md's idioms say
// what it prints, and what they say is what a run prints: the protocol's name in JSON, the short one in text.
func TestDocsSayWhichStateNamesToExpect(t *testing.T) {
	t.Parallel()
	srv := startServe(t, "--echo")
	r := run(t, "", "send", srv.url, "hello", "-o", "json")
	wantCode(t, r, 0)
	var doc struct {
		Task struct {
			Status struct{ State string } `json:"status"`
		} `json:"task"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil || doc.Task.Status.State == "" {
		t.Fatalf("send -o json: no .task.status.state (%v)\n%s", err, r)
	}
	text := run(t, "", "send", srv.url, "hello")
	m := regexp.MustCompile(`(?m)^State: (\S+)$`).FindStringSubmatch(text.stdout)
	if m == nil {
		t.Fatalf("send: no State line\n%s", text)
	}
	for _, file := range []string{"../README.md", "../docs/output.md"} {
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		s := string(b)
		i := strings.Index(s, "jq -r .task.status.state")
		if i < 0 {
			t.Fatalf("%s: the jq example is gone", file)
		}
		// The sentence sits with the example: within its block or the paragraph around it.
		near := s[max(0, i-600):min(len(s), i+900)]
		for _, want := range []string{"`" + doc.Task.Status.State + "`", "`" + m[1] + "`"} {
			if !strings.Contains(near, want) {
				t.Errorf("%s: near the jq example, want it to say %s (what JSON and text print)", file, want)
			}
		}
	}
}

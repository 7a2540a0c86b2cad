package e2e

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

// wantCode fails the test unless r exited with code.
func wantCode(t testing.TB, r result, code int) {
	t.Helper()
	if r.code != code {
		t.Fatalf("exit code %d, want %d\n%s", r.code, code, r)
	}
}

// wantContains fails the test unless s contains every sub.
func wantContains(t testing.TB, what, s string, subs ...string) {
	t.Helper()
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			t.Fatalf("%s does not contain %q:\n%s", what, sub, trim(s))
		}
	}
}

// field returns the value of the first "Label: value" line with that label.
func field(out, label string) string {
	for _, line := range strings.Split(out, "\n") {
		if v, ok := strings.CutPrefix(line, label+": "); ok {
			return v
		}
	}
	return ""
}

// sendResult decodes the {"task":…}/{"message":…} document of `send -o json`.
func sendResult(t testing.TB, r result) a2a.Event {
	t.Helper()
	var sr a2a.StreamResponse
	if err := json.Unmarshal([]byte(r.stdout), &sr); err != nil {
		t.Fatalf("stdout is not a SendMessageResponse: %v\n%s", err, r)
	}
	return sr.Event
}

func sendTask(t testing.TB, r result) *a2a.Task {
	t.Helper()
	task, ok := sendResult(t, r).(*a2a.Task)
	if !ok {
		t.Fatalf("send result is not a task\n%s", r)
	}
	return task
}

// jsonLines decodes a JSON Lines stream of StreamResponse; the error document, if last, is returned apart.
func jsonLines(t testing.TB, out string) (events []a2a.Event, errDoc map[string]any) {
	t.Helper()
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	for i, line := range lines {
		if line == "" {
			t.Fatalf("empty line %d in JSON Lines output", i)
		}
		if strings.HasPrefix(line, `{"error":`) {
			if i != len(lines)-1 {
				t.Fatalf("error document on line %d is not last", i)
			}
			var doc map[string]any
			if err := json.Unmarshal([]byte(line), &doc); err != nil {
				t.Fatalf("line %d: %v", i, err)
			}
			return events, doc["error"].(map[string]any)
		}
		var sr a2a.StreamResponse
		if err := json.Unmarshal([]byte(line), &sr); err != nil {
			t.Fatalf("line %d is not a StreamResponse: %v\n%s", i, err, line)
		}
		events = append(events, sr.Event)
	}
	return events, nil
}

// errorDoc decodes the JSON error document printed by a failing -o json command.
func errorDoc(t testing.TB, r result) map[string]any {
	t.Helper()
	var doc struct {
		Error map[string]any `json:"error"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil || doc.Error == nil {
		t.Fatalf("stdout is not an error document: %v\n%s", err, r)
	}
	for _, k := range []string{"code", "message", "hint", "a2aCode"} {
		if _, ok := doc.Error[k]; !ok {
			t.Fatalf("error document lacks %q\n%s", k, r)
		}
	}
	return doc.Error
}

func lastState(t testing.TB, events []a2a.Event) a2a.TaskState {
	t.Helper()
	if len(events) == 0 {
		t.Fatal("no events")
	}
	switch e := events[len(events)-1].(type) {
	case *a2a.TaskStatusUpdateEvent:
		return e.Status.State
	case *a2a.Task:
		return e.Status.State
	}
	t.Fatalf("last event is %T, want a status", events[len(events)-1])
	return ""
}

package replay

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/google/go-cmp/cmp"

	"github.com/a2acli/a2a/internal/serve"
	"github.com/a2acli/a2a/internal/serve/servetest"
)

func loadRecording(t testing.TB, name string) *Recording {
	t.Helper()
	f, err := os.Open(filepath.Join(recordingsDir, name))
	if err != nil {
		t.Fatalf("open recording: %v", err)
	}
	defer f.Close()
	rec, err := ParseRecording(name, f)
	if err != nil {
		t.Fatalf("ParseRecording(%s) = %v", name, err)
	}
	return rec
}

// TestShippedRecordings checks that every recording under testdata parses into the turns expected.
func TestShippedRecordings(t *testing.T) {
	t.Parallel()
	want := map[string]struct {
		steps int
		shape string
	}{
		"gemini-approve-write.jsonl": {2, "gemini"}, "gemini-reject-write.jsonl": {2, "gemini"},
		"gemini-approve-edit.jsonl": {2, "gemini"}, "gemini-approve-shell.jsonl": {2, "gemini"},
		"gemini-auto-execute.jsonl": {1, "gemini"}, "gemini-live-output.jsonl": {1, "gemini"},
		"gemini-api-error.jsonl": {1, "gemini"}, "gemini-two-tools.jsonl": {3, "gemini"},
		"rfc-approve-write.jsonl": {2, "rfc"}, "rfc-reject-write.jsonl": {2, "rfc"}, "commands.jsonl": {0, ""},
	}
	for name, w := range want {
		rec := loadRecording(t, name)
		if len(rec.Steps) != w.steps || rec.Shape != w.shape {
			t.Errorf("%s: %d steps, shape %q; want %d, %q", name, len(rec.Steps), rec.Shape, w.steps, w.shape)
		}
	}
}

const miniRecording = `{"message":{"messageId":"u1","role":"ROLE_USER","parts":[{"text":"hi"}]}}
{"task":{"id":"T0","contextId":"C0","status":{"state":"TASK_STATE_SUBMITTED","timestamp":"2026-01-01T00:00:00Z"}}}
{"artifactUpdate":{"taskId":"T0","contextId":"C0","artifact":{"artifactId":"a","parts":[{"text":"x"}]}}}
{"artifactUpdate":{"taskId":"T0","contextId":"C0","artifact":{"artifactId":"a","parts":[{"text":"y"}]},"append":true}}
{"statusUpdate":{"taskId":"T0","contextId":"C0","status":{"state":"TASK_STATE_INPUT_REQUIRED","timestamp":"2026-01-01T00:00:03Z"},"metadata":{"seen":"T0"}}}
{"message":{"messageId":"u2","role":"ROLE_USER","taskId":"T0","parts":[{"data":{"callId":"c1","outcome":"proceed_once"}}]}}
{"statusUpdate":{"taskId":"T0","contextId":"C0","status":{"state":"TASK_STATE_COMPLETED","timestamp":"2026-01-01T00:00:04Z"}}}
`

func TestParseRecordingOffsets(t *testing.T) {
	t.Parallel()
	rec, err := ParseRecording("mini", strings.NewReader(miniRecording))
	if err != nil {
		t.Fatalf("ParseRecording() = %v", err)
	}
	var got []time.Duration
	for _, st := range rec.Steps {
		for _, e := range st.Events {
			got = append(got, e.offset)
		}
	}
	want := []time.Duration{0, time.Second, 2 * time.Second, 3 * time.Second, 4 * time.Second}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("offsets (-want +got):\n%s", diff)
	}
	if _, err := ParseRecording("bad", strings.NewReader(`{"statusUpdate":{"taskId":"T","contextId":"C","status":{"state":"TASK_STATE_WORKING"}}}`)); err == nil || !strings.Contains(err.Error(), "before the first user message") {
		t.Errorf("ParseRecording(event first) = %v, want an error about the first user message", err)
	}
}

func TestMatchesUser(t *testing.T) {
	t.Parallel()
	text := func(s string) *a2a.Message { return a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart(s)) }
	data := func(d map[string]any) *a2a.Message { return a2a.NewMessage(a2a.MessageRoleUser, a2a.NewDataPart(d)) }
	approve := data(map[string]any{"callId": "c1", "outcome": "proceed_once"})
	cases := []struct {
		name      string
		want, got *a2a.Message
		match     bool
	}{
		{"any text", text("Please write hello.txt"), text("something else"), true},
		{"same outcome, other call id", approve, data(map[string]any{"callId": "zz", "outcome": "proceed_once"}), true},
		{"other outcome", approve, data(map[string]any{"callId": "c1", "outcome": "cancel"}), false},
		{"rfc answer to gemini", approve, data(map[string]any{"tool_call_id": "c1", "selected_option_id": "proceed_once"}), false},
		{"text where answer expected", approve, text("yes"), false},
		{"answer where text expected", text("hi"), approve, false},
		{"rfc option", data(map[string]any{"tool_call_id": "t", "selected_option_id": "cancel"}),
			data(map[string]any{"tool_call_id": "t", "selected_option_id": "cancel"}), true},
	}
	for _, tc := range cases {
		if got := matchesUser(tc.want, tc.got); got != tc.match {
			t.Errorf("%s: matchesUser() = %v, want %v", tc.name, got, tc.match)
		}
	}
}

func startReplay(t *testing.T, cfg Config, names ...string) *servetest.Server {
	t.Helper()
	for _, n := range names {
		cfg.Recordings = append(cfg.Recordings, loadRecording(t, n))
	}
	return startServer(t, serve.Config{Transports: []a2a.TransportProtocol{a2a.TransportProtocolHTTPJSON}, Backend: New(cfg), Quiet: true})
}

func lastState(evs []a2a.Event) a2a.TaskState {
	for i := len(evs) - 1; i >= 0; i-- {
		if su, ok := evs[i].(*a2a.TaskStatusUpdateEvent); ok {
			return su.Status.State
		}
	}
	return a2a.TaskStateUnspecified
}

// toolStatuses lists the Gemini tool-call statuses in a stream.
func toolStatuses(evs []a2a.Event) []string {
	var out []string
	for _, ev := range evs {
		su, ok := ev.(*a2a.TaskStatusUpdateEvent)
		if !ok || su.Status.Message == nil {
			continue
		}
		for _, p := range su.Status.Message.Parts {
			if d, ok := p.Data().(map[string]any); ok && d["status"] != nil {
				out = append(out, d["status"].(string))
			}
		}
	}
	return out
}

func answer(task a2a.TaskID, d map[string]any) *a2a.SendMessageRequest {
	m := a2a.NewMessage(a2a.MessageRoleUser, a2a.NewDataPart(d))
	m.TaskID = task
	return &a2a.SendMessageRequest{Message: m}
}

func TestReplayBranches(t *testing.T) {
	t.Parallel()
	srv := startReplay(t, Config{}, "gemini-approve-write.jsonl", "gemini-reject-write.jsonl")
	c := servetest.NewClient(t, srv.URL, a2a.TransportProtocolHTTPJSON)
	ctx := context.Background()
	cases := []struct {
		outcome string
		want    []string
	}{
		{"proceed_once", []string{"scheduled", "executing", "success"}},
		{"cancel", []string{"cancelled"}},
	}
	for _, tc := range cases {
		evs, err := servetest.Collect(t, c.SendStreamingMessage(ctx, servetest.TextMessage("Please write hello.txt")))
		if err != nil {
			t.Fatalf("stream turn 1: %v", err)
		}
		task, ok := evs[0].(*a2a.Task)
		if !ok || lastState(evs) != a2a.TaskStateInputRequired {
			t.Fatalf("turn 1 = %d events starting with %T ending %v, want a task ending input-required", len(evs), evs[0], lastState(evs))
		}
		if task.ID == "2f3e8b71-016c-4129-9556-c47975dacc68" || evs[1].TaskInfo().TaskID != task.ID {
			t.Fatalf("ids not rewritten: task %s, event %s", task.ID, evs[1].TaskInfo().TaskID)
		}
		evs, err = servetest.Collect(t, c.SendStreamingMessage(ctx, answer(task.ID, gemini("write_file-1795324972793-a995cfc9dfd04", tc.outcome))))
		if err != nil {
			t.Fatalf("stream answer %s: %v", tc.outcome, err)
		}
		if diff := cmp.Diff(tc.want, toolStatuses(evs)); diff != "" {
			t.Errorf("answer %s: tool statuses (-want +got):\n%s", tc.outcome, diff)
		}
		got, err := c.GetTask(ctx, &a2a.GetTaskRequest{ID: task.ID})
		if err != nil || got.Status.State != a2a.TaskStateInputRequired || len(got.History) < 2 {
			t.Errorf("GetTask() = %v, %v; want input-required with the messages in history", got, err)
		}
	}
}

func TestReplayUnmatched(t *testing.T) {
	t.Parallel()
	for _, asError := range []bool{false, true} {
		// The connection rule is off: a pooled connection closed between the two calls would abort the turn instead.
		srv := startReplay(t, Config{UnmatchedError: asError, ConnectionRule: "off"}, "gemini-approve-write.jsonl")
		c := servetest.NewClient(t, srv.URL, a2a.TransportProtocolHTTPJSON)
		evs, err := servetest.Collect(t, c.SendStreamingMessage(context.Background(), servetest.TextMessage("go")))
		if err != nil {
			t.Fatal(err)
		}
		id := evs[0].TaskInfo().TaskID
		// Ignored answers end only at the client's deadline; a rejected one must not race it on a busy machine.
		wait := 200 * time.Millisecond
		if asError {
			wait = 30 * time.Second
		}
		ctx, cancel := context.WithTimeout(context.Background(), wait)
		evs, err = servetest.Collect(t, c.SendStreamingMessage(ctx, answer(id, map[string]any{"tool_call_id": "x", "selected_option_id": "proceed_once"})))
		cancel()
		switch {
		case len(evs) != 0:
			t.Errorf("unmatched answer (error=%v) got %d events, want none", asError, len(evs))
		case asError && !errors.Is(err, a2a.ErrInvalidParams):
			t.Errorf("unmatched answer with UnmatchedError = %v, want ErrInvalidParams", err)
		case !asError && !errors.Is(err, context.DeadlineExceeded):
			t.Errorf("unmatched answer = %v, want the client's deadline", err)
		}
	}
}

func TestReplaySpeed(t *testing.T) {
	t.Parallel()
	rec, err := ParseRecording("mini", strings.NewReader(miniRecording))
	if err != nil {
		t.Fatal(err)
	}
	// 3 s of recorded time in turn 1 at 30x: about 100 ms.
	srv := startServer(t, serve.Config{Backend: New(Config{Recordings: []*Recording{rec}, Speed: 30}), Quiet: true})
	c := servetest.NewClient(t, srv.URL, a2a.TransportProtocolHTTPJSON)
	start := time.Now()
	evs, err := servetest.Collect(t, c.SendStreamingMessage(context.Background(), servetest.TextMessage("x")))
	took := time.Since(start)
	if err != nil || len(evs) != 4 {
		t.Fatalf("stream = %d events, %v; want 4", len(evs), err)
	}
	if took < 90*time.Millisecond || took > 2*time.Second {
		t.Errorf("turn at speed 30 took %v, want about 100ms", took)
	}
	su := evs[3].(*a2a.TaskStatusUpdateEvent)
	if got := su.Metadata["seen"]; got != string(su.TaskID) {
		t.Errorf("metadata id = %v, want the rewritten task id %s", got, su.TaskID)
	}
}

package serve_test

import (
	"context"
	"strings"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/google/go-cmp/cmp"

	"github.com/a2acli/a2a/internal/serve"
	"github.com/a2acli/a2a/internal/serve/execbackend"
	"github.com/a2acli/a2a/internal/serve/servetest"
	"github.com/a2acli/a2a/internal/serve/tasks"
)

// TestExecArtifactBudget streams more than the budget: the stream gets every chunk, GetTask the tail.
func TestExecArtifactBudget(t *testing.T) {
	t.Parallel()
	srv := startServer(t, serve.Config{Backend: execbackend.New(execbackend.Config{Command: "seq 1 1000", Chunk: []byte("\n")}), Quiet: true,
		MaxArtifactBytes: 30 + 9*tasks.PartOverhead}) // 30 bytes in 8 parts of one artifact
	c := servetest.NewClient(t, srv.URL, a2a.TransportProtocolHTTPJSON)
	evs, err := servetest.Collect(t, c.SendStreamingMessage(context.Background(), servetest.TextMessage("x")))
	if err != nil {
		t.Fatalf("stream: %v", err)
	}
	if texts, _, _ := servetest.Chunks(evs); len(texts) != 1001 || texts[999] != "1000\n" {
		t.Fatalf("stream got %d chunks, want 1001 ending with 1000 and an empty last chunk", len(texts))
	}
	task, err := c.GetTask(context.Background(), &a2a.GetTaskRequest{ID: evs[0].TaskInfo().TaskID})
	if err != nil {
		t.Fatalf("GetTask() error = %v", err)
	}
	var got []string
	for _, p := range task.Artifacts[0].Parts {
		got = append(got, p.Text())
	}
	// Of the 3893 bytes, 30 (and their overhead) hold 994 to 999 (4 bytes each with the newline), 1000 and the empty closing part: 29 bytes.
	if diff := cmp.Diff([]string{"994\n", "995\n", "996\n", "997\n", "998\n", "999\n", "1000\n", ""}, got); diff != "" {
		t.Errorf("stored parts mismatch (-want +got):\n%s", diff)
	}
	if got := task.Artifacts[0].Metadata[tasks.TruncatedKey]; got != float64(3893-29) {
		t.Errorf("metadata[%q] = %v (%T), want %v", tasks.TruncatedKey, got, got, 3893-29)
	}
}

// TestHistoryBudget: a message larger than the budget reaches the command whole, but the task's history keeps only
// a note of its size, so a large request does not stay in memory for as long as the task is kept.
func TestHistoryBudget(t *testing.T) {
	t.Parallel()
	srv := startServer(t, serve.Config{Backend: execbackend.New(execbackend.Config{Command: "wc -c"}), Quiet: true, MaxArtifactBytes: 1000})
	c := servetest.NewClient(t, srv.URL, a2a.TransportProtocolHTTPJSON)
	req := &a2a.SendMessageRequest{Message: a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("small"),
		a2a.NewTextPart(strings.Repeat("x", 5000)))}
	res, err := c.SendMessage(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	task, ok := res.(*a2a.Task)
	if !ok {
		t.Fatalf("SendMessage = %T, want a task", res)
	}
	if got := strings.TrimSpace(servetest.PartsText(task.Artifacts[0].Parts)); got != "5006" {
		t.Errorf("the command read %s bytes, want 5006 (the whole message)", got)
	}
	got, err := c.GetTask(context.Background(), &a2a.GetTaskRequest{ID: task.ID})
	if err != nil {
		t.Fatal(err)
	}
	h := got.History[0]
	want := []string{"small", "[5000 bytes not kept: over the server's --max-artifact-bytes]"}
	if diff := cmp.Diff(want, []string{h.Parts[0].Text(), h.Parts[1].Text()}); diff != "" {
		t.Errorf("kept history (-want +got):\n%s", diff)
	}
	if n, _ := h.Metadata[tasks.TruncatedKey].(float64); n != 5000 {
		t.Errorf("history metadata[%q] = %v, want 5000", tasks.TruncatedKey, h.Metadata[tasks.TruncatedKey])
	}
}

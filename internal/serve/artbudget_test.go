package serve

import (
	"context"
	"strings"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/google/go-cmp/cmp"
)

// streamParts applies a new artifact carrying first and then one append per chunk, as a --chunk run does.
func streamParts(s *memStore, r *record, first string, chunks ...string) {
	info := a2a.TaskInfo{TaskID: r.task.ID, ContextID: r.task.ContextID}
	ev := a2a.NewArtifactEvent(info, a2a.NewTextPart(first))
	s.mu.Lock()
	defer s.mu.Unlock()
	s.applyLocked(r, ev)
	for _, c := range chunks {
		up := a2a.NewArtifactUpdateEvent(info, ev.Artifact.ID, a2a.NewTextPart(c))
		up.Append = true
		s.applyLocked(r, up)
	}
}

func TestArtifactBudget(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name          string
		budget        int64
		first         string
		chunks        []string
		want          []string
		wantTruncated any // nil: no metadata entry
	}{
		{"within budget", 10, "ab", []string{"cd", "ef"}, []string{"ab", "cd", "ef"}, nil},
		{"exactly at budget", 6, "ab", []string{"cd", "ef"}, []string{"ab", "cd", "ef"}, nil},
		{"oldest parts dropped", 5, "ab", []string{"cd", "ef", "gh"}, []string{"ef", "gh"}, int64(4)},
		{"newest part kept when alone too big", 3, "ab", []string{"cdefgh"}, []string{"cdefgh"}, int64(2)},
		{"first part alone too big", 3, "abcdef", nil, []string{"abcdef"}, nil},
		{"no bound", -1, "ab", []string{strings.Repeat("x", 100)}, []string{"ab", strings.Repeat("x", 100)}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := newMemStore(0, 0, nil)
			s.maxArtifactBytes = tt.budget
			r, err := s.insert(&a2a.Task{ID: "t", ContextID: "c", Status: a2a.TaskStatus{State: a2a.TaskStateWorking}})
			if err != nil {
				t.Fatal(err)
			}
			streamParts(s, r, tt.first, tt.chunks...)
			got, err := s.view("t", nil)
			if err != nil {
				t.Fatal(err)
			}
			var texts []string
			for _, p := range got.Artifacts[0].Parts {
				texts = append(texts, p.Text())
			}
			if diff := cmp.Diff(tt.want, texts); diff != "" {
				t.Errorf("stored parts mismatch (-want +got):\n%s", diff)
			}
			if got := got.Artifacts[0].Metadata[truncatedKey]; got != tt.wantTruncated {
				t.Errorf("metadata[%q] = %v, want %v", truncatedKey, got, tt.wantTruncated)
			}
			if want := partsSize(r.task.Artifacts[0].Parts); r.artBytes != want {
				t.Errorf("artBytes = %d, want %d (the stored parts)", r.artBytes, want)
			}
		})
	}
}

// TestArtifactBudgetReplace checks the accounting when an artifact is replaced rather than appended to.
func TestArtifactBudgetReplace(t *testing.T) {
	t.Parallel()
	s := newMemStore(0, 0, nil)
	s.maxArtifactBytes = 8
	r, err := s.insert(&a2a.Task{ID: "t", ContextID: "c", Status: a2a.TaskStatus{State: a2a.TaskStateWorking}})
	if err != nil {
		t.Fatal(err)
	}
	info := a2a.TaskInfo{TaskID: "t", ContextID: "c"}
	ev := a2a.NewArtifactEvent(info, a2a.NewTextPart("abcdef"))
	s.mu.Lock()
	s.applyLocked(r, ev)
	again := a2a.NewArtifactUpdateEvent(info, ev.Artifact.ID, a2a.NewTextPart("xy"))
	s.applyLocked(r, again) // not an append: replaces the artifact
	up := a2a.NewArtifactUpdateEvent(info, ev.Artifact.ID, a2a.NewTextPart("123456"))
	up.Append = true
	s.applyLocked(r, up)
	s.mu.Unlock()
	got, err := s.view("t", nil)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"xy", "123456"}, []string{got.Artifacts[0].Parts[0].Text(), got.Artifacts[0].Parts[1].Text()}); diff != "" {
		t.Errorf("parts mismatch (-want +got):\n%s", diff)
	}
	if r.artBytes != 8 {
		t.Errorf("artBytes = %d, want 8", r.artBytes)
	}
}

// TestExecArtifactBudget streams more than the budget: the stream gets every chunk, GetTask the tail.
func TestExecArtifactBudget(t *testing.T) {
	t.Parallel()
	srv := startServer(t, Config{Backend: Exec(ExecConfig{Command: "seq 1 1000", Chunk: []byte("\n")}), Quiet: true, MaxArtifactBytes: 30})
	c := newClient(t, srv.url, a2a.TransportProtocolHTTPJSON)
	evs, err := collect(t, c.SendStreamingMessage(context.Background(), textMessage("x")))
	if err != nil {
		t.Fatalf("stream: %v", err)
	}
	if texts, _, _ := chunks(evs); len(texts) != 1001 || texts[999] != "1000\n" {
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
	// Of the 3893 bytes, 30 hold 994 to 999 (4 bytes each with the newline), 1000 and the empty closing part: 29 bytes.
	if diff := cmp.Diff([]string{"994\n", "995\n", "996\n", "997\n", "998\n", "999\n", "1000\n", ""}, got); diff != "" {
		t.Errorf("stored parts mismatch (-want +got):\n%s", diff)
	}
	if got := task.Artifacts[0].Metadata[truncatedKey]; got != float64(3893-29) {
		t.Errorf("metadata[%q] = %v (%T), want %v", truncatedKey, got, got, 3893-29)
	}
}

// TestHistoryBudget: a message larger than the budget reaches the command whole, but the task's history keeps only
// a note of its size, so a large request does not stay in memory for as long as the task is kept.
func TestHistoryBudget(t *testing.T) {
	t.Parallel()
	srv := startServer(t, Config{Backend: Exec(ExecConfig{Command: "wc -c"}), Quiet: true, MaxArtifactBytes: 1000})
	c := newClient(t, srv.url, a2a.TransportProtocolHTTPJSON)
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
	if got := strings.TrimSpace(partsText(task.Artifacts[0].Parts)); got != "5006" {
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
	if n, _ := h.Metadata[truncatedKey].(float64); n != 5000 {
		t.Errorf("history metadata[%q] = %v, want 5000", truncatedKey, h.Metadata[truncatedKey])
	}
}

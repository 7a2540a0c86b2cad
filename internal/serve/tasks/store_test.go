package tasks

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/a2acli/a2a/internal/serve/servetest"
	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/google/go-cmp/cmp"
)

type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(time.Millisecond) // strictly increasing, so ordering is deterministic
	return c.t
}

func (c *fakeClock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

func addTask(t *testing.T, s *Store, id, ctxID string, state a2a.TaskState) {
	t.Helper()
	ts := s.now()
	task := &a2a.Task{ID: a2a.TaskID(id), ContextID: ctxID, Status: a2a.TaskStatus{State: state, Timestamp: &ts},
		History:   []*a2a.Message{a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("1")), a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("2"))},
		Artifacts: []*a2a.Artifact{{ID: "a", Parts: a2a.ContentParts{a2a.NewTextPart("x")}}}}
	if _, err := s.insert(task); err != nil {
		t.Fatalf("insert(%s) = %v", id, err)
	}
}

func ids(tasks []*a2a.Task) []string {
	out := []string{}
	for _, t := range tasks {
		out = append(out, string(t.ID))
	}
	return out
}

func TestListPagingAndFilters(t *testing.T) {
	t.Parallel()
	clk := &fakeClock{t: time.Unix(1000, 0)}
	s := NewStore(0, 0, clk.now)
	for i := range 7 {
		state := a2a.TaskStateCompleted
		if i%2 == 1 {
			state = a2a.TaskStateFailed
		}
		addTask(t, s, fmt.Sprintf("t%d", i), fmt.Sprintf("c%d", i%3), state)
	}
	var pages [][]string
	tok := ""
	for {
		resp, err := s.list(&a2a.ListTasksRequest{PageSize: 3, PageToken: tok})
		if err != nil {
			t.Fatalf("list() = %v", err)
		}
		if resp.TotalSize != 7 {
			t.Errorf("TotalSize = %d, want 7", resp.TotalSize)
		}
		pages = append(pages, ids(resp.Tasks))
		if tok = resp.NextPageToken; tok == "" {
			break
		}
	}
	want := [][]string{{"t6", "t5", "t4"}, {"t3", "t2", "t1"}, {"t0"}}
	if diff := cmp.Diff(want, pages); diff != "" {
		t.Errorf("pages (-want +got):\n%s", diff)
	}
	t3, err := s.view("t3", nil)
	if err != nil {
		t.Fatal(err)
	}
	after := *t3.Status.Timestamp
	zero := 0
	cases := []struct {
		name string
		req  a2a.ListTasksRequest
		want []string
	}{
		{"context", a2a.ListTasksRequest{ContextID: "c1"}, []string{"t4", "t1"}},
		{"status", a2a.ListTasksRequest{Status: a2a.TaskStateFailed}, []string{"t5", "t3", "t1"}},
		{"since", a2a.ListTasksRequest{StatusTimestampAfter: &after}, []string{"t6", "t5", "t4"}},
		{"combined", a2a.ListTasksRequest{ContextID: "c0", Status: a2a.TaskStateCompleted, HistoryLength: &zero}, []string{"t6", "t0"}},
	}
	for _, tc := range cases {
		resp, err := s.list(&tc.req)
		if err != nil {
			t.Fatalf("%s: list() = %v", tc.name, err)
		}
		if diff := cmp.Diff(tc.want, ids(resp.Tasks)); diff != "" {
			t.Errorf("%s: ids (-want +got):\n%s", tc.name, diff)
		}
		for _, task := range resp.Tasks {
			if task.Artifacts != nil {
				t.Errorf("%s: artifacts included without IncludeArtifacts", tc.name)
			}
			if tc.req.HistoryLength != nil && len(task.History) != 0 {
				t.Errorf("%s: history = %d messages, want 0", tc.name, len(task.History))
			}
		}
	}
	resp, err := s.list(&a2a.ListTasksRequest{IncludeArtifacts: true, PageSize: 1})
	if err != nil || len(resp.Tasks[0].Artifacts) != 1 || len(resp.Tasks[0].History) != 2 {
		t.Errorf("list(IncludeArtifacts) = %v, %v; want artifacts and full history", resp, err)
	}
	if _, err := s.list(&a2a.ListTasksRequest{PageSize: 101}); err == nil || !servetest.ErrorIs(err, a2a.ErrInvalidParams) {
		t.Errorf("list(PageSize 101) = %v, want ErrInvalidParams", err)
	}
	if _, err := s.list(&a2a.ListTasksRequest{PageToken: "!!"}); !servetest.ErrorIs(err, a2a.ErrInvalidParams) {
		t.Errorf("list(bad token) = %v, want ErrInvalidParams", err)
	}
}

func TestRetention(t *testing.T) {
	t.Parallel()
	clk := &fakeClock{t: time.Unix(1000, 0)}
	s := NewStore(2, time.Minute, clk.now)
	addTask(t, s, "active", "c", a2a.TaskStateWorking)
	addTask(t, s, "old1", "c", a2a.TaskStateCompleted)
	addTask(t, s, "old2", "c", a2a.TaskStateFailed)
	addTask(t, s, "new", "c", a2a.TaskStateCompleted) // evicts old1: at most 2 finished tasks
	resp, err := s.list(&a2a.ListTasksRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"new", "old2", "active"}, ids(resp.Tasks)); diff != "" {
		t.Errorf("after MaxTasks (-want +got):\n%s", diff)
	}
	clk.advance(2 * time.Minute)
	if _, err := s.view("new", nil); !servetest.ErrorIs(err, a2a.ErrTaskNotFound) {
		t.Errorf("view(expired) = %v, want ErrTaskNotFound", err)
	}
	resp, err = s.list(&a2a.ListTasksRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"active"}, ids(resp.Tasks)); diff != "" {
		t.Errorf("after TTL (-want +got):\n%s", diff)
	}
}

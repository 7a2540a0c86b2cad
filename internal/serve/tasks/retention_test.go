package tasks

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/google/go-cmp/cmp"
)

// storedIDs lists the stored task IDs, sorted, and checks the finished count kept for retention.
func storedIDs(t *testing.T, s *Store) []string {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	done := 0
	for id, r := range s.tasks {
		out = append(out, string(id))
		if finished(r) {
			done++
		}
	}
	if s.done.count != done {
		t.Errorf("finished count = %d, want %d", s.done.count, done)
	}
	slices.Sort(out)
	return out
}

// TestRetentionQueue: the oldest finished task goes first; a task running again is kept, and
// counts as finished again (as the newest) once its turn ends.
func TestRetentionQueue(t *testing.T) {
	t.Parallel()
	clk := &fakeClock{t: time.Unix(1000, 0)}
	s := NewStore(3, time.Hour, clk.now)
	for i := range 5 {
		addTask(t, s, fmt.Sprint("t", i), "c", a2a.TaskStateCompleted)
	}
	if diff := cmp.Diff([]string{"t2", "t3", "t4"}, storedIDs(t, s)); diff != "" {
		t.Errorf("after 5 inserts (-want +got):\n%s", diff)
	}
	s.mu.Lock()
	r := s.tasks["t2"]
	r.run = &turnRun{} // t2 runs again
	s.changedLocked(r, true)
	s.mu.Unlock()
	addTask(t, s, "t5", "c", a2a.TaskStateCompleted)
	addTask(t, s, "t6", "c", a2a.TaskStateCompleted)
	if diff := cmp.Diff([]string{"t2", "t4", "t5", "t6"}, storedIDs(t, s)); diff != "" {
		t.Errorf("while t2 runs (-want +got):\n%s", diff)
	}
	s.mu.Lock()
	r.run, r.updated = nil, s.now() // t2's turn ends: it is now the newest finished task
	s.changedLocked(r, false)
	s.pruneLocked()
	s.mu.Unlock()
	addTask(t, s, "t7", "c", a2a.TaskStateCompleted)
	if diff := cmp.Diff([]string{"t2", "t6", "t7"}, storedIDs(t, s)); diff != "" {
		t.Errorf("after t2 finished again (-want +got):\n%s", diff)
	}
}

// TestRetentionBytes: past the byte budget the oldest finished tasks go, the newest is always kept, and the
// running ones are never counted or dropped.
func TestRetentionBytes(t *testing.T) {
	t.Parallel()
	clk := &fakeClock{t: time.Unix(1000, 0)}
	s := NewStore(100, time.Hour, clk.now)
	per := taskBytes(&a2a.Task{History: []*a2a.Message{a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("1")),
		a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("2"))},
		Artifacts: []*a2a.Artifact{{ID: "a", Parts: a2a.ContentParts{a2a.NewTextPart("x")}}}})
	s.SetMaxTaskBytes(3 * per)
	addTask(t, s, "run", "c", a2a.TaskStateWorking)
	for i := range 5 {
		addTask(t, s, fmt.Sprint("t", i), "c", a2a.TaskStateCompleted)
	}
	if diff := cmp.Diff([]string{"run", "t2", "t3", "t4"}, storedIDs(t, s)); diff != "" {
		t.Errorf("after 5 finished tasks within 3 tasks' bytes (-want +got):\n%s", diff)
	}
	if s.done.bytes != 3*per {
		t.Errorf("finished tasks keep %d bytes, want %d", s.done.bytes, 3*per)
	}
	s.SetMaxTaskBytes(1) // smaller than any task: the newest is kept all the same
	addTask(t, s, "t5", "c", a2a.TaskStateCompleted)
	if diff := cmp.Diff([]string{"run", "t5"}, storedIDs(t, s)); diff != "" {
		t.Errorf("with a budget under one task (-want +got):\n%s", diff)
	}
	if s.done.bytes != per {
		t.Errorf("finished tasks keep %d bytes, want %d", s.done.bytes, per)
	}
}

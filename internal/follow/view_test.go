package follow

import (
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/google/go-cmp/cmp"
)

// TestTaskViewLeavesEventsAlone guards against a Task event being changed by the view: subscribe prints the task
// after applying it, and once printed it twice with duplicated artifacts.
func TestTaskViewLeavesEventsAlone(t *testing.T) {
	t.Parallel()
	info := a2a.TaskInfo{TaskID: "t", ContextID: "c"}
	task := &a2a.Task{ID: "t", ContextID: "c", Artifacts: []*a2a.Artifact{{ID: "a", Parts: a2a.ContentParts{a2a.NewTextPart("x")}}}}
	var v View
	v.apply(task)
	v.apply(&a2a.TaskArtifactUpdateEvent{TaskID: "t", ContextID: "c", Append: true, Artifact: &a2a.Artifact{ID: "a", Parts: a2a.ContentParts{a2a.NewTextPart("y")}}})
	v.apply(a2a.NewArtifactEvent(info, a2a.NewTextPart("z")))
	v.apply(a2a.NewStatusUpdateEvent(info, a2a.TaskStateCompleted, nil))
	if len(task.Artifacts) != 1 || len(task.Artifacts[0].Parts) != 1 {
		t.Fatalf("the Task event was modified: %+v", task.Artifacts)
	}
	var got []string
	for _, a := range v.Task.Artifacts {
		for _, p := range a.Parts {
			got = append(got, string(a.ID)+":"+p.Text())
		}
	}
	if diff := cmp.Diff([]string{"a:x", "a:y", got[len(got)-1]}, got); diff != "" || len(v.Task.Artifacts) != 2 {
		t.Errorf("view artifacts mismatch (-want +got):\n%s", diff)
	}
	if v.State() != a2a.TaskStateCompleted {
		t.Errorf("state = %s, want completed", v.State())
	}
}

// TestTaskViewMovesReplacedStatusMessagesToHistory guards the accumulation the A2A SDKs do: a status message that a
// later status replaces moves into the history, so `send -o json` of a turn that stops at a permission prompt still
// carries the tool calls announced in earlier status messages.
func TestTaskViewMovesReplacedStatusMessagesToHistory(t *testing.T) {
	t.Parallel()
	info := a2a.TaskInfo{TaskID: "t", ContextID: "c"}
	user := a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("go"))
	first := a2a.NewMessage(a2a.MessageRoleAgent, a2a.NewTextPart("thinking"))
	call := a2a.NewMessage(a2a.MessageRoleAgent, a2a.NewDataPart(map[string]any{"tool_call_id": "c1"}))
	task := &a2a.Task{ID: "t", ContextID: "c", History: []*a2a.Message{user}, Status: a2a.TaskStatus{State: a2a.TaskStateSubmitted}}
	var v View
	v.apply(task)
	v.apply(a2a.NewStatusUpdateEvent(info, a2a.TaskStateWorking, first))
	v.apply(a2a.NewStatusUpdateEvent(info, a2a.TaskStateWorking, first)) // the same message again: kept once
	v.apply(a2a.NewStatusUpdateEvent(info, a2a.TaskStateWorking, call))
	v.apply(a2a.NewStatusUpdateEvent(info, a2a.TaskStateInputRequired, nil))
	var got []string
	for _, m := range v.Task.History {
		got = append(got, m.ID)
	}
	if diff := cmp.Diff([]string{user.ID, first.ID, call.ID}, got); diff != "" {
		t.Errorf("history mismatch (-want +got):\n%s", diff)
	}
	if len(task.History) != 1 {
		t.Errorf("the Task event's history was modified: %d messages", len(task.History))
	}
	if v.Task.Status.Message != nil || v.State() != a2a.TaskStateInputRequired {
		t.Errorf("status = %+v, want input-required without message", v.Task.Status)
	}
}

// TestViewBounded: a view that holds a task whole (not Light) counts what it holds: chunks appended, status
// messages, artifacts without parts; a replaced artifact no longer counts. Over Max it says so.
func TestViewBounded(t *testing.T) {
	t.Parallel()
	info := a2a.TaskInfo{TaskID: "t", ContextID: "c"}
	v := View{Max: 1000}
	v.apply(&a2a.Task{ID: "t", ContextID: "c"})
	first := a2a.NewArtifactEvent(info, a2a.NewTextPart(string(make([]byte, 500))))
	v.apply(first)
	// The same artifact replaced: its old parts stop counting.
	v.apply(&a2a.TaskArtifactUpdateEvent{TaskID: "t", ContextID: "c", Artifact: &a2a.Artifact{ID: first.Artifact.ID, Parts: a2a.ContentParts{a2a.NewTextPart(string(make([]byte, 500)))}}})
	if v.Over() {
		t.Fatalf("over after a replaced artifact: held %d", v.held)
	}
	v.apply(&a2a.TaskArtifactUpdateEvent{TaskID: "t", ContextID: "c", Append: true, Artifact: &a2a.Artifact{ID: first.Artifact.ID, Parts: a2a.ContentParts{a2a.NewTextPart(string(make([]byte, 500)))}}})
	if !v.Over() {
		t.Fatalf("not over with 1000 bytes of chunks and Max 1000: held %d", v.held)
	}
	// Artifacts without parts, and status messages, count too: an endless stream of them is bounded.
	for _, ev := range []func(i int) a2a.Event{
		func(int) a2a.Event { return a2a.NewArtifactEvent(info) },
		func(i int) a2a.Event {
			return a2a.NewStatusUpdateEvent(info, a2a.TaskStateWorking, a2a.NewMessage(a2a.MessageRoleAgent, a2a.NewTextPart("step")))
		},
	} {
		v := View{Max: 10000}
		v.apply(&a2a.Task{ID: "t", ContextID: "c"})
		for i := 0; i < 1000 && !v.Over(); i++ {
			v.apply(ev(i))
		}
		if !v.Over() {
			t.Errorf("1000 events held without reaching Max 10000: held %d", v.held)
		}
	}
	// Light views hold no parts: only Max matters to views that hold the task whole, and Max 0 is no bound.
	if (&View{}).Over() {
		t.Error("a view without Max is over")
	}
}

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

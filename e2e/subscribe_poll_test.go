package e2e

import (
	"strings"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/a2acli/a2a/internal/testagent"
	"github.com/a2acli/a2a/internal/testagent/wire"
)

// TestSubscribePollsAgentWithoutStreaming: subscribe to an agent whose card says it does not stream waits for the
// task by polling GetTask (docs/CONTRACT.md, "Time"), printing each change it sees, and never calls SubscribeToTask; an
// unknown task fails with the agent's TaskNotFoundError. subscribe used to fail at once with the agent's "streaming
// is not supported", whatever the task.
func TestSubscribePollsAgentWithoutStreaming(t *testing.T) {
	t.Parallel()
	ag := wire.Start(t, wire.Options{Kind: wire.NonBlocking, Polls: 2})
	r := run(t, "", "send", ag.URL, "long job", "--immediate", "-o", "json")
	wantCode(t, r, 0)
	if task := sendTask(t, r); task.ID != "task-1" || task.Status.State != a2a.TaskStateWorking {
		t.Fatalf("send --immediate: want task-1 working\n%s", r)
	}

	r = run(t, "", "subscribe", ag.URL, "task-1", "--poll-interval", "20ms", "-o", "json")
	wantCode(t, r, 0)
	events, errDoc := jsonLines(t, r.stdout)
	if errDoc != nil || len(events) != 2 {
		t.Fatalf("want two events (working, then completed), no error\n%s", r)
	}
	first, ok1 := events[0].(*a2a.Task)
	last, ok2 := events[1].(*a2a.Task)
	if !ok1 || !ok2 || first.Status.State != a2a.TaskStateWorking || last.Status.State != a2a.TaskStateCompleted {
		t.Fatalf("want the task working, then completed\n%s", r)
	}
	wantContains(t, "stdout", r.stdout, "done: long job")
	if n := ag.Count("SubscribeToTask"); n != 0 {
		t.Fatalf("SubscribeToTask called %d times on an agent that does not stream", n)
	}
	if n := ag.Count("GetTask"); n != 3 {
		t.Fatalf("GetTask called %d times, want 3 (working, working, completed)", n)
	}

	// Text: the same changes, labelled.
	r = run(t, "", "send", ag.URL, "second job", "--immediate")
	wantCode(t, r, 0)
	r = run(t, "", "subscribe", ag.URL, "task-2", "--poll-interval", "20ms")
	wantCode(t, r, 0)
	wantContains(t, "stdout", r.stdout, "working", "completed", "done: second job")

	// An unknown task: the agent's own error, exit 1.
	r = run(t, "", "subscribe", ag.URL, "no-such-task", "-o", "json")
	wantCode(t, r, 1)
	if doc := errorDoc(t, r); doc["code"] != "TaskNotFoundError" {
		t.Fatalf("error code %v, want TaskNotFoundError\n%s", doc["code"], r)
	}
	r = run(t, "", "subscribe", ag.URL, "no-such-task")
	wantCode(t, r, 1)
	wantContains(t, "stderr", r.stderr, "task not found: no-such-task")
	if strings.Contains(r.stderr, "not supported") {
		t.Fatalf("subscribe reports the agent's refusal to stream\n%s", r)
	}

	// A task that never ends: --wait bounds the wait and names the task.
	forever := wire.Start(t, wire.Options{Kind: wire.NonBlocking, Polls: -1})
	wantCode(t, run(t, "", "send", forever.URL, "forever", "--immediate"), 0)
	r = run(t, "", "subscribe", forever.URL, "task-1", "--poll-interval", "20ms", "--wait", "300ms", "-o", "json")
	wantCode(t, r, 5)
	events, errDoc = jsonLines(t, r.stdout)
	if len(events) != 1 || errDoc == nil || errDoc["code"] != "A2ACLI_ERR_TIMEOUT" || errDoc["taskId"] != "task-1" {
		t.Fatalf("want the working task, then a timeout naming task-1\n%s", r)
	}
}

// TestSubscribePollsA2AGoAgentWithoutStreaming: the same against a2a-go's server, its card saying it does not
// stream: subscribe polls a running task, --wait gives up on it naming it, and once it is canceled subscribe prints
// its final state.
func TestSubscribePollsA2AGoAgentWithoutStreaming(t *testing.T) {
	t.Parallel()
	ag := testagent.Start(t, testagent.Options{Behavior: testagent.Slow, Delay: time.Minute, NoStreaming: true})
	r := run(t, "", "send", ag.URL, "slow", "--immediate", "-o", "json")
	wantCode(t, r, 0)
	task := sendTask(t, r)
	if task.Status.State.Terminal() {
		t.Fatalf("send --immediate: want a running task\n%s", r)
	}

	r = run(t, "", "subscribe", ag.URL, string(task.ID), "--poll-interval", "20ms", "--wait", "500ms", "-o", "json")
	wantCode(t, r, 5)
	events, errDoc := jsonLines(t, r.stdout)
	if len(events) == 0 || errDoc == nil || errDoc["code"] != "A2ACLI_ERR_TIMEOUT" || errDoc["taskId"] != string(task.ID) {
		t.Fatalf("want the running task, then a timeout naming it\n%s", r)
	}
	if got, ok := events[0].(*a2a.Task); !ok || got.ID != task.ID || got.Status.State.Terminal() {
		t.Fatalf("first event %T, want the running task %s\n%s", events[0], task.ID, r)
	}

	wantCode(t, run(t, "", "cancel", ag.URL, string(task.ID)), 0)
	r = run(t, "", "subscribe", ag.URL, string(task.ID), "-o", "json", "--fail")
	wantCode(t, r, 6)
	events, _ = jsonLines(t, r.stdout)
	if last, ok := events[len(events)-1].(*a2a.Task); !ok || last.Status.State != a2a.TaskStateCanceled {
		t.Fatalf("want the canceled task last\n%s", r)
	}

	r = run(t, "", "subscribe", ag.URL, "no-such-task", "-o", "json")
	wantCode(t, r, 1)
	if doc := errorDoc(t, r); doc["code"] != "TaskNotFoundError" {
		t.Fatalf("error code %v, want TaskNotFoundError\n%s", doc["code"], r)
	}
	for _, c := range ag.Calls() {
		if c.Method == "SubscribeToTask" {
			t.Fatalf("SubscribeToTask called on an agent whose card says it does not stream")
		}
	}
}

// TestSubscribePollsWhenCardOverstatesStreaming: an agent whose card says it streams but that refuses the
// subscription with "method not found" while GetTask shows the task alive is polled like an agent that does not
// stream, to the task's end. subscribe used to fail with the refusal.
func TestSubscribePollsWhenCardOverstatesStreaming(t *testing.T) {
	t.Parallel()
	ag := wire.Start(t, wire.Options{Kind: wire.NoStream, Polls: 2})
	wantCode(t, run(t, "", "send", ag.URL, "hi", "--immediate"), 0)
	r := run(t, "", "subscribe", ag.URL, "task-1", "--poll-interval", "20ms", "-o", "json")
	wantCode(t, r, 0)
	events, errDoc := jsonLines(t, r.stdout)
	if errDoc != nil || len(events) != 2 {
		t.Fatalf("want two events (working, then completed), no error\n%s", r)
	}
	if last, ok := events[1].(*a2a.Task); !ok || last.Status.State != a2a.TaskStateCompleted {
		t.Fatalf("want the completed task last\n%s", r)
	}
	if n := ag.Count("SubscribeToTask"); n != 1 {
		t.Fatalf("SubscribeToTask called %d times, want 1 (refused)", n)
	}
}

package e2e

import (
	"strings"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/a2acli/a2a/internal/testagent/wire"
)

// askTask starts a task that asks for input on the agent at u and returns its id.
func askTask(t *testing.T, u string) string {
	t.Helper()
	r := run(t, "", "send", u, "ask", "-o", "json")
	wantCode(t, r, 0)
	task := sendTask(t, r)
	if task.Status.State != a2a.TaskStateInputRequired {
		t.Fatalf("send ask: want input-required\n%s", r)
	}
	return string(task.ID)
}

// TestFollowUpWaitsForTheAnswer: an agent that answers a follow-up on an input-required task by first sending the
// task as it stands (still input-required, our message appended), as a2a-js agents do, then working and completed:
// send, send --stream and a non-streaming send all wait for the answer. send used to print the stale question and
// exit 0. A new question (a status update, or a lone task snapshot) is an answer: send ends on it.
func TestFollowUpWaitsForTheAnswer(t *testing.T) {
	t.Parallel()
	ag := wire.StartAsker(t, true)

	id := askTask(t, ag.URL)
	r := run(t, "", "send", ag.URL, "--task", id, "Bob", "-o", "json")
	wantCode(t, r, 0)
	if task := sendTask(t, r); task.Status.State != a2a.TaskStateCompleted || artifactText(task) != "hello, Bob" {
		t.Fatalf("send --task: want completed with 'hello, Bob'\n%s", r)
	}

	id = askTask(t, ag.URL)
	r = run(t, "", "send", ag.URL, "--task", id, "Bob")
	wantCode(t, r, 0)
	wantContains(t, "text", r.stdout, "State: completed", "hello, Bob")
	if strings.Count(r.stdout+r.stderr, "what is your name?") > 1 || strings.Contains(r.stderr, "--task") {
		t.Fatalf("send --task printed the stale question or a continuation\n%s", r)
	}

	id = askTask(t, ag.URL)
	r = run(t, "", "send", "--stream", ag.URL, "--task", id, "Bob", "-o", "json")
	wantCode(t, r, 0)
	events, errDoc := jsonLines(t, r.stdout)
	if errDoc != nil || len(events) != 4 || lastState(t, events) != a2a.TaskStateCompleted {
		t.Fatalf("send --stream --task: want the 4 events to completed\n%s", r)
	}
	wantContains(t, "stream", r.stdout, "hello, Bob")
	id = askTask(t, ag.URL)
	r = run(t, "", "send", "--stream", ag.URL, "--task", id, "Bob")
	wantCode(t, r, 0)
	if !strings.HasSuffix(r.stdout, "State: completed\n") || strings.Contains(r.stderr, "--task") {
		t.Fatalf("send --stream --task (text): want it to end completed, with no continuation hint\n%s", r)
	}

	// A coding agent's turn (a development-tool flag makes send one) reads each stream to its end: the answer
	// stands, not the task as it stood.
	id = askTask(t, ag.URL)
	r = run(t, "", "send", ag.URL, "--task", id, "Bob", "--approve", "-o", "json")
	wantCode(t, r, 0)
	if task := sendTask(t, r); task.Status.State != a2a.TaskStateCompleted || artifactText(task) != "hello, Bob" {
		t.Fatalf("send --task --approve: want completed with 'hello, Bob'\n%s", r)
	}

	// New questions end the wait.
	id = askTask(t, ag.URL)
	r = run(t, "", "send", ag.URL, "--task", id, "?", "-o", "json")
	wantCode(t, r, 0)
	if task := sendTask(t, r); task.Status.State != a2a.TaskStateInputRequired || statusText(task) != "what is your last name?" {
		t.Fatalf("send --task ?: want the new question\n%s", r)
	}
	r = run(t, "", "send", ag.URL, "--task", id, "Bob", "-o", "json")
	wantCode(t, r, 0)
	if task := sendTask(t, r); task.Status.State != a2a.TaskStateCompleted {
		t.Fatalf("send --task after a second question: want completed\n%s", r)
	}
	for _, args := range [][]string{{"-o", "json"}, {"--stream", "-o", "json"}} {
		id = askTask(t, ag.URL)
		// --timeout bounds the test: an answer held as stale would wait for the silence check.
		r = run(t, "", append([]string{"send", ag.URL, "--task", id, "??", "--timeout", "20s"}, args...)...)
		wantCode(t, r, 0)
		wantContains(t, "send --task ??", r.stdout, "what is your age?", "TASK_STATE_INPUT_REQUIRED")
	}

	// Not streaming: SendMessage answers with the task as it stands; send polls past it.
	np := wire.StartAsker(t, false)
	id = askTask(t, np.URL)
	r = run(t, "", "send", np.URL, "--task", id, "Bob", "-o", "json")
	wantCode(t, r, 0)
	if task := sendTask(t, r); task.Status.State != a2a.TaskStateCompleted || artifactText(task) != "hello, Bob" {
		t.Fatalf("send --task (not streaming): want completed with 'hello, Bob'\n%s", r)
	}
}

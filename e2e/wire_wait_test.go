package e2e

import (
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/a2acli/a2a/internal/testagent/wire"
)

// TestNonBlockingAgentIsPolled: an agent that answers SendMessage with a task still working is polled with GetTask
// until the task ends; --immediate returns at once. send used to print "working" and exit.
func TestNonBlockingAgentIsPolled(t *testing.T) {
	t.Parallel()
	ag := wire.Start(t, wire.Options{Kind: wire.NonBlocking, Polls: 2})
	r := run(t, "", "send", ag.URL, "long job", "--poll-interval", "50ms", "-o", "json")
	wantCode(t, r, 0)
	task := sendTask(t, r)
	if task.Status.State != a2a.TaskStateCompleted || !strings.Contains(r.stdout, "done: long job") {
		t.Fatalf("want the completed task\n%s", r)
	}
	if n := ag.Count("GetTask"); n != 3 {
		t.Fatalf("GetTask called %d times, want 3 (working, working, completed)", n)
	}
	var polls []time.Time
	for _, c := range ag.Calls() {
		if c.Method == "GetTask" {
			polls = append(polls, c.At)
		}
	}
	// An interval the user chose is kept from the first poll on (only the default ramps up from 20ms).
	if gap := polls[1].Sub(polls[0]); gap < 50*time.Millisecond {
		t.Fatalf("GetTask calls %s apart, want at least --poll-interval 50ms", gap)
	}

	r = run(t, "", "send", ag.URL, "text mode", "--poll-interval", "50ms")
	wantCode(t, r, 0)
	wantContains(t, "stdout", r.stdout, "State: completed", "done: text mode")

	before := ag.Count("GetTask")
	r = run(t, "", "send", ag.URL, "fire and forget", "--immediate")
	wantCode(t, r, 0)
	if field(r.stdout, "State") != "working" || ag.Count("GetTask") != before {
		t.Fatalf("--immediate must return the working task without polling\n%s", r)
	}
}

// TestPollRampsAfterEachChange: at the default --poll-interval, polls start at 20 ms and double, and each change of
// state (submitted to working) starts the ramp again, as the README promises. The times are the agent's own record
// of each GetTask's arrival. The interval used to jump to the full 2 s at the change, so a task done 3 s in was seen
// 5 s in.
func TestPollRampsAfterEachChange(t *testing.T) {
	t.Parallel()
	ag := wire.Start(t, wire.Options{Kind: wire.NonBlocking, Submitted: 2, Polls: 3})
	r := run(t, "", "send", ag.URL, "job", "-o", "json")
	wantCode(t, r, 0)
	if task := sendTask(t, r); task.Status.State != a2a.TaskStateCompleted {
		t.Fatalf("want the completed task\n%s", r)
	}
	var polls []time.Time
	for _, c := range ag.Calls() {
		if c.Method == "GetTask" {
			polls = append(polls, c.At)
		}
	}
	// submitted, submitted, working (the change), working, working, completed
	if len(polls) != 6 {
		t.Fatalf("GetTask called %d times, want 6: %v", len(polls), ag.Calls())
	}
	for i := 3; i < len(polls); i++ {
		// The ramp after the change: 20, 40, 80 ms; a loaded machine gets slack, the full interval (2 s) does not.
		if gap := polls[i].Sub(polls[i-1]); gap > time.Second {
			t.Errorf("poll %d came %s after the one before, want the 20 ms ramp after the change to working", i+1, gap)
		}
	}
}

// TestWaitBoundsTheWait: --wait gives up on a task that never ends: exit 5, the task named, the follow-up commands.
func TestWaitBoundsTheWait(t *testing.T) {
	t.Parallel()
	ag := wire.Start(t, wire.Options{Kind: wire.NonBlocking, Polls: -1})
	r := run(t, "", "send", ag.URL, "forever", "--poll-interval", "50ms", "--wait", "400ms", "-o", "json")
	wantCode(t, r, 5)
	doc := errorDoc(t, r)
	if doc["code"] != "A2ACLI_ERR_TIMEOUT" || doc["taskId"] != "task-1" {
		t.Fatalf("error document %v, want A2ACLI_ERR_TIMEOUT for task-1", doc)
	}
	wantContains(t, "message", doc["message"].(string), "task task-1 still working when --wait expired")
	wantContains(t, "hint", doc["hint"].(string), "a2a subscribe "+ag.URL+" task-1", "a2a get task "+ag.URL+" task-1", "a2a cancel "+ag.URL+" task-1")

	r = run(t, "", "send", ag.URL, "forever", "--poll-interval", "50ms", "--wait", "300ms")
	wantCode(t, r, 5)
	wantContains(t, "stderr", r.stderr, "a2a: task task-2 still working when --wait expired\n",
		"hint: the task may still be running; follow it with: a2a subscribe "+ag.URL+" task-2")
	if r.stdout != "" {
		t.Fatalf("stdout not empty\n%s", r)
	}

	// On a stream too: the task stays alive (GetTask on silence says working) until --wait runs out. --timeout also
	// bounds that GetTask: two of them lost in a row end the stream as lost (exit 1), so it is long enough for a
	// loaded machine to answer.
	quiet := wire.Start(t, wire.Options{Kind: wire.Silent, Polls: -1})
	r = run(t, "", "send", "--stream", quiet.URL, "forever", "--timeout", "1s", "--wait", "3500ms", "-o", "json")
	wantCode(t, r, 5)
	events, errDoc := jsonLines(t, r.stdout)
	if len(events) == 0 || errDoc == nil || errDoc["code"] != "A2ACLI_ERR_TIMEOUT" || errDoc["taskId"] != "task-1" {
		t.Fatalf("want the events, then A2ACLI_ERR_TIMEOUT for task-1\n%s", r)
	}
	if quiet.Count("GetTask") == 0 {
		t.Fatalf("silence longer than --timeout did not ask GetTask: %v", quiet.Calls())
	}
}

// TestCutStreamResubscribes: a stream that ends (or breaks) before the task is done is resumed with SubscribeToTask,
// for send --stream and subscribe alike; the command reports the real outcome, never "working" with exit 0.
func TestCutStreamResubscribes(t *testing.T) {
	t.Parallel()
	for _, abrupt := range []bool{false, true} {
		name := "clean-end"
		if abrupt {
			name = "connection-cut"
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			ag := wire.Start(t, wire.Options{Kind: wire.CutStream, Cuts: 1, Abrupt: abrupt})
			r := run(t, "", "send", "--stream", ag.URL, "job", "-o", "json")
			wantCode(t, r, 0)
			events, errDoc := jsonLines(t, r.stdout)
			if errDoc != nil || lastState(t, events) != a2a.TaskStateCompleted {
				t.Fatalf("want the stream to end completed\n%s", r)
			}
			wantContains(t, "stdout", r.stdout, "done: job")
			if n := ag.Count("SubscribeToTask"); n != 1 {
				t.Fatalf("SubscribeToTask called %d times, want 1", n)
			}

			ag2 := wire.Start(t, wire.Options{Kind: wire.CutStream, Cuts: 1, Abrupt: abrupt})
			r = run(t, "", "subscribe", ag2.URL, "task-9")
			wantCode(t, r, 0)
			wantContains(t, "subscribe", r.stdout, "completed")
			if n := ag2.Count("SubscribeToTask"); n != 2 {
				t.Fatalf("SubscribeToTask called %d times, want 2", n)
			}
		})
	}
}

// TestCutStreamPolls: when resubscribing fails, GetTask polling finds the outcome.
func TestCutStreamPolls(t *testing.T) {
	t.Parallel()
	ag := wire.Start(t, wire.Options{Kind: wire.CutStream, Cuts: 1, Abrupt: true, After: wire.PollOnly})
	r := run(t, "", "send", "--stream", ag.URL, "job", "-o", "json", "--poll-interval", "50ms")
	wantCode(t, r, 0)
	events, errDoc := jsonLines(t, r.stdout)
	if errDoc != nil || lastState(t, events) != a2a.TaskStateCompleted {
		t.Fatalf("want the polled task last\n%s", r)
	}
	if _, ok := events[len(events)-1].(*a2a.Task); !ok {
		t.Fatalf("last event %T, want the polled Task", events[len(events)-1])
	}
	if ag.Count("SubscribeToTask") != 1 || ag.Count("GetTask") != 1 {
		t.Fatalf("calls %v, want one failed SubscribeToTask and one GetTask", ag.Calls())
	}
}

// TestStreamLost: the agent goes away mid-stream; neither resubscribing nor polling reaches it. The command fails
// with A2ANC_ERR_STREAM_LOST naming the task and how to look it up (exit 3: the agent is unreachable).
func TestStreamLost(t *testing.T) {
	t.Parallel()
	ag := wire.Start(t, wire.Options{Kind: wire.CutStream, Cuts: 1, Abrupt: true, After: wire.Down})
	r := run(t, "", "send", "--stream", ag.URL, "job", "-o", "json", "--timeout", "1s", "--poll-interval", "50ms")
	wantCode(t, r, 3)
	events, errDoc := jsonLines(t, r.stdout)
	if len(events) == 0 || errDoc == nil {
		t.Fatalf("want the events, then the error document\n%s", r)
	}
	if errDoc["code"] != "A2ANC_ERR_STREAM_LOST" || errDoc["taskId"] != "task-1" {
		t.Fatalf("error document %v, want A2ANC_ERR_STREAM_LOST for task-1", errDoc)
	}
	wantContains(t, "message", errDoc["message"].(string), "stream of task task-1 lost in state working", "connection refused")
	wantContains(t, "hint", errDoc["hint"].(string), "a2a get task "+ag.URL+" task-1")

	ag2 := wire.Start(t, wire.Options{Kind: wire.CutStream, Cuts: 1, After: wire.Down})
	r = run(t, "", "subscribe", ag2.URL, "task-7", "--timeout", "1s", "--poll-interval", "50ms")
	wantCode(t, r, 3)
	wantContains(t, "stderr", r.stderr, "a2a: stream of task task-7 lost in state working", "hint: the task may still be running; follow it with: a2a subscribe "+ag2.URL+" task-7")
}

// TestInterruptedStateEndsStream: input-required ends the command at once although the agent keeps the stream
// open (it used to wait for --timeout).
func TestInterruptedStateEndsStream(t *testing.T) {
	t.Parallel()
	ag := wire.Start(t, wire.Options{Kind: wire.HoldInput})
	start := time.Now()
	r := run(t, "", "send", "--stream", ag.URL, "hi", "-o", "json")
	took := time.Since(start)
	wantCode(t, r, 0)
	events, _ := jsonLines(t, r.stdout)
	if lastState(t, events) != a2a.TaskStateInputRequired {
		t.Fatalf("want input-required last\n%s", r)
	}
	// The bound is generous for a loaded machine; the agent would hold the stream for --timeout (30 s).
	if took > 5*time.Second {
		t.Fatalf("send --stream took %s after input-required", took)
	}
	wantContains(t, "stderr", r.stderr, "a2a send "+ag.URL+" --task task-1")

	start = time.Now()
	r = run(t, "", "subscribe", ag.URL, "task-1")
	wantCode(t, r, 0)
	wantContains(t, "subscribe", r.stdout, "input-required", "what is your name?")
	if took := time.Since(start); took > 5*time.Second {
		t.Fatalf("subscribe took %s after input-required", took)
	}
}

// TestSilenceAsksTheAgent: a stream silent for longer than --timeout is not a failure while GetTask says the task
// is alive; the outcome GetTask finds ends the command.
func TestSilenceAsksTheAgent(t *testing.T) {
	t.Parallel()
	ag := wire.Start(t, wire.Options{Kind: wire.Silent, Polls: 1})
	r := run(t, "", "send", "--stream", ag.URL, "quiet job", "--timeout", "300ms", "-o", "json")
	wantCode(t, r, 0)
	events, errDoc := jsonLines(t, r.stdout)
	if errDoc != nil || lastState(t, events) != a2a.TaskStateCompleted {
		t.Fatalf("want the task GetTask found completed last\n%s", r)
	}
	if n := ag.Count("GetTask"); n != 2 {
		t.Fatalf("GetTask called %d times, want 2 (working, completed)", n)
	}
}

// TestTurnJSONCarriesPendingToolCalls: send -o json of a coding agent's turn that stops at a permission prompt
// accumulates the task as the A2A SDKs do, so the pending tool call (in a status message the final input-required
// replaced) is in the task's history, not only in the text output.
func TestTurnJSONCarriesPendingToolCalls(t *testing.T) {
	t.Parallel()
	ag := wire.Start(t, wire.Options{Kind: wire.ToolPrompt})
	r := run(t, "", "send", ag.URL, "write hello.txt", "-o", "json")
	wantCode(t, r, 0)
	task := sendTask(t, r)
	if task.Status.State != a2a.TaskStateInputRequired {
		t.Fatalf("state %s, want input-required\n%s", task.Status.State, r)
	}
	found := false
	for _, m := range task.History {
		for _, p := range m.Parts {
			if d, ok := p.Data().(map[string]any); ok && d["tool_call_id"] == "write_file-1" && d["status"] == "PENDING" {
				found = true
			}
		}
	}
	if !found {
		t.Fatalf("the pending tool call is not in the task's history\n%s", r)
	}
	wantContains(t, "stderr", r.stderr, "permission needed: 1 tool call(s)", "--confirm write_file-1=approve")
}

// TestInterruptNamesTheTask: Ctrl-C while a live task streams exits 130 and says how to follow the task up; the
// JSON error document carries its taskId.
func TestInterruptNamesTheTask(t *testing.T) {
	t.Parallel()
	ag := wire.Start(t, wire.Options{Kind: wire.Silent, Polls: -1})
	c := startClient(t, "send", "--stream", ag.URL, "long", "-o", "json")
	if ev := c.event(t, 10*time.Second); ev == nil {
		t.Fatal("no first event")
	}
	c.cmd.Process.Signal(syscall.SIGINT)
	rest, code := c.wait(t, 10*time.Second)
	if code != 130 || len(rest) == 0 {
		t.Fatalf("exit %d, lines %q; want 130 and the error document\nstderr:\n%s", code, rest, c.Stderr())
	}
	_, doc := jsonLines(t, rest[len(rest)-1])
	if doc == nil || doc["code"] != "A2ANC_ERR_INTERRUPTED" || doc["taskId"] != "task-1" {
		t.Fatalf("error document %v, want A2ANC_ERR_INTERRUPTED for task-1", doc)
	}
	wantContains(t, "hint", doc["hint"].(string), "a2a subscribe "+ag.URL+" task-1")

	c = startClient(t, "send", "--stream", ag.URL, "long")
	c.next(t, 10*time.Second)
	c.cmd.Process.Signal(syscall.SIGINT)
	if _, code := c.wait(t, 10*time.Second); code != 130 {
		t.Fatalf("exit %d, want 130", code)
	}
	wantContains(t, "stderr", c.Stderr(), "a2a: interrupted\n", "hint: the task may still be running; follow it with: a2a subscribe "+ag.URL+" task-2")
}

// TestPlainSendOutlivesTimeout: without --stream, a task longer than --timeout and silent all along is
// waited for, not failed: send streams it, asks the agent each time the stream stays silent for --timeout, and
// prints the outcome GetTask finds. Before, a blocking SendMessage exited 5 at --timeout with no task id.
func TestPlainSendOutlivesTimeout(t *testing.T) {
	t.Parallel()
	ag := wire.Start(t, wire.Options{Kind: wire.Silent, Polls: 3})
	r := run(t, "", "send", ag.URL, "quiet job", "--timeout", "400ms", "-o", "json")
	wantCode(t, r, 0)
	if task := sendTask(t, r); task.Status.State != a2a.TaskStateCompleted {
		t.Fatalf("state %s, want completed\n%s", task.Status.State, r)
	}
	if n, m := ag.Count("GetTask"), ag.Count("SendStreamingMessage"); n != 4 || m != 1 {
		t.Fatalf("%d GetTask and %d SendStreamingMessage calls, want 4 (working x3, completed) and 1", n, m)
	}
}

// TestPlainSendInterruptNamesTheTask: Ctrl-C during a plain send (nothing printed yet) exits 130
// and names the task and the commands that follow it up.
func TestPlainSendInterruptNamesTheTask(t *testing.T) {
	t.Parallel()
	ag := wire.Start(t, wire.Options{Kind: wire.Silent, Polls: -1})
	c := startClient(t, "send", ag.URL, "long", "--timeout", "200ms")
	// The client asks about the task once the stream is silent: by then it knows the task.
	eventually(t, 10*time.Second, "a GetTask from the client", func() bool { return ag.Count("GetTask") >= 1 })
	c.cmd.Process.Signal(syscall.SIGINT)
	if _, code := c.wait(t, 10*time.Second); code != 130 {
		t.Fatalf("exit %d, want 130\nstderr:\n%s", code, c.Stderr())
	}
	wantContains(t, "stderr", c.Stderr(), "a2a: interrupted\n",
		"hint: the task may still be running; follow it with: a2a subscribe "+ag.URL+" task-1 · a2a get task "+ag.URL+" task-1 · a2a cancel "+ag.URL+" task-1")
}

// TestCardOverstatesStreaming: an agent whose card says it streams but that answers a streaming call with "method
// not found" still gets the message: send falls back to SendMessage, once, since the agent took nothing.
func TestCardOverstatesStreaming(t *testing.T) {
	t.Parallel()
	ag := wire.Start(t, wire.Options{Kind: wire.NoStream})
	r := run(t, "", "send", ag.URL, "hi", "-o", "json")
	wantCode(t, r, 0)
	if task := sendTask(t, r); task.Status.State != a2a.TaskStateCompleted {
		t.Fatalf("state %s, want completed\n%s", task.Status.State, r)
	}
	if n, m := ag.Count("SendStreamingMessage"), ag.Count("SendMessage"); n != 1 || m != 1 {
		t.Fatalf("%d SendStreamingMessage and %d SendMessage calls, want 1 and 1", n, m)
	}
	// --stream asked for a stream: no fallback.
	r = run(t, "", "send", ag.URL, "hi", "--stream")
	if r.code == 0 || ag.Count("SendMessage") != 1 {
		t.Fatalf("send --stream to an agent that does not stream: exit %d, %d SendMessage calls\n%s", r.code, ag.Count("SendMessage"), r)
	}
}

// TestBlockingIsOneSendMessage: --blocking is one plain SendMessage, also to a coding agent (whose turns otherwise
// stream to answer permission prompts).
func TestBlockingIsOneSendMessage(t *testing.T) {
	t.Parallel()
	ag := wire.Start(t, wire.Options{Kind: wire.ToolPrompt})
	r := run(t, "", "send", ag.URL, "hi", "--blocking", "-o", "json")
	wantCode(t, r, 0)
	if n, m := ag.Count("SendMessage"), ag.Count("SendStreamingMessage"); n != 1 || m != 0 {
		t.Fatalf("%d SendMessage and %d SendStreamingMessage calls, want 1 and 0\n%s", n, m, r)
	}
}

// TestDefaultPollRampsUp: at the default --poll-interval (2s), a non-blocking agent's task is polled soon after the
// answer (from 20ms, doubling), not 2s later: a quick task costs a moment, as the blocking call did.
func TestDefaultPollRampsUp(t *testing.T) {
	t.Parallel()
	ag := wire.Start(t, wire.Options{Kind: wire.NonBlocking, Polls: 1})
	r := run(t, "", "send", ag.URL, "quick job", "-o", "json")
	wantCode(t, r, 0)
	var sent, firstPoll time.Time
	for _, c := range ag.Calls() {
		switch {
		case c.Method == "SendMessage":
			sent = c.At
		case c.Method == "GetTask" && firstPoll.IsZero():
			firstPoll = c.At
		}
	}
	// 1s: half the default interval, and ample for a 20ms first poll on a loaded machine.
	if gap := firstPoll.Sub(sent); gap <= 0 || gap > time.Second {
		t.Fatalf("first GetTask %s after SendMessage, want soon (the default interval ramps up from 20ms)", gap)
	}
}

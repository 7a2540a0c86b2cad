package conformance

import (
	"context"
	"fmt"
	"strings"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

// maxEvents bounds what a stream check reads.
const maxEvents = 2000

// collect reads a stream to its end (or maxEvents); the caller bounds it by the context it made seq with.
func (r *runner) collect(_ context.Context, seq func(func(a2a.Event, error) bool)) ([]a2a.Event, error) {
	var evs []a2a.Event
	var err error
	seq(func(e a2a.Event, e2 error) bool {
		if e2 != nil {
			err = e2
			return false
		}
		evs = append(evs, e)
		return len(evs) < maxEvents
	})
	return evs, err
}

func eventKinds(evs []a2a.Event) string {
	var k []string
	for i, e := range evs {
		if i == 12 {
			k = append(k, fmt.Sprintf("… (%d events)", len(evs)))
			break
		}
		switch x := e.(type) {
		case *a2a.Task:
			k = append(k, "Task("+shortState(x.Status.State)+")")
		case *a2a.Message:
			k = append(k, "Message")
		case *a2a.TaskStatusUpdateEvent:
			k = append(k, "Status("+shortState(x.Status.State)+")")
		case *a2a.TaskArtifactUpdateEvent:
			k = append(k, "Artifact")
		default:
			k = append(k, fmt.Sprintf("%T", e))
		}
	}
	return strings.Join(k, " ")
}

func shortState(s a2a.TaskState) string {
	return strings.ToLower(strings.TrimPrefix(string(s), "TASK_STATE_"))
}

// stateOf is the task state an event carries ("" for an artifact).
func stateOf(e a2a.Event) a2a.TaskState {
	switch x := e.(type) {
	case *a2a.Task:
		return x.Status.State
	case *a2a.TaskStatusUpdateEvent:
		return x.Status.State
	}
	return ""
}

// orderRule is CORE-STREAM-003's rule on a stream of a task; "" when it holds.
func orderRule(evs []a2a.Event) string {
	if len(evs) == 0 {
		return "no event"
	}
	if _, ok := evs[0].(*a2a.Message); ok {
		if len(evs) != 1 {
			return "a Message stream must hold that one Message"
		}
		return ""
	}
	first, ok := evs[0].(*a2a.Task)
	if !ok {
		return "the first event must be the Task (or a Message)"
	}
	for i, e := range evs {
		if id := e.TaskInfo().TaskID; id != "" && id != first.ID {
			return fmt.Sprintf("event %d belongs to task %s, not %s", i, id, first.ID)
		}
		if _, isMsg := e.(*a2a.Message); isMsg && i > 0 {
			continue
		}
		s := stateOf(e)
		if (s.Terminal() || interrupted(s)) && i != len(evs)-1 {
			return fmt.Sprintf("event %d (%s) ends the task but %d event(s) follow", i, shortState(s), len(evs)-1-i)
		}
	}
	if s := stateOf(evs[len(evs)-1]); !s.Terminal() && !interrupted(s) {
		return "the stream closed before a terminal or interrupted state"
	}
	return ""
}

// streaming: CORE-STREAM-001/003 when the card declares streaming, CORE-CAP-002 when it does not.
func (r *runner) streaming(ctx context.Context, b *binding) {
	if !b.streaming {
		if !b.ownCard {
			r.record("CORE-CAP-002", b.name, skip("the client could not be told to ask the agent"))
			return
		}
		m := r.probe("a2a-conformance", "a2a conformance: stream not declared")
		r.expectErr(ctx, b, "CORE-CAP-002", "SendStreamingMessage (card: streaming false)", nil, func(ctx context.Context) (any, error) {
			return firstEvent(b.c.SendStreamingMessage(ctx, &a2a.SendMessageRequest{Message: m}))
		})
		return
	}
	if !r.want("CORE-STREAM-001", "CORE-STREAM-003") {
		return
	}
	if !r.spend(1) {
		r.record("CORE-STREAM-001", b.name, skip(budgetSpent))
		return
	}
	prefix := "a2a-conformance"
	if r.scenarios() {
		prefix = "tck-stream-artifact-chunked"
	}
	m := r.probe(prefix, "a2a conformance: stream")
	sent := "SendStreamingMessage messageId=" + m.ID
	cctx, cancel := r.callCtx(ctx)
	defer cancel()
	evs, err := r.collect(cctx, b.c.SendStreamingMessage(cctx, &a2a.SendMessageRequest{Message: m}))
	if err != nil || len(evs) == 0 {
		r.record("CORE-STREAM-001", b.name, fail(sent, eventKinds(evs)+" "+errText(err), "the stream must carry the answer"))
		return
	}
	r.record("CORE-STREAM-001", b.name, pass(eventKinds(evs)))
	if why := orderRule(evs); why != "" {
		r.record("CORE-STREAM-003", b.name, fail(sent, eventKinds(evs), why))
	} else {
		r.record("CORE-STREAM-003", b.name, pass(eventKinds(evs)))
	}
}

package conformance

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

// scenarios says whether the agent declares that it plays the TCK's scenarios by message id (ScenariosURI).
func (r *runner) scenarios() bool {
	for _, e := range r.t.Card.Capabilities.Extensions {
		if e.URI == ScenariosURI {
			return true
		}
	}
	return false
}

// sendScenario sends a message whose id starts with prefix, blocking.
func (r *runner) sendScenario(ctx context.Context, b *binding, prefix string) (string, a2a.SendMessageResult, error, bool) {
	m := r.probe(prefix, "a2a conformance scenario "+prefix)
	res, err, ok := r.send(ctx, b, m, nil)
	return "SendMessage messageId=" + m.ID, res, err, ok
}

// artifactPart is the first part of the first artifact of res, or why there is none.
func artifactPart(res a2a.SendMessageResult) (*a2a.Part, string) {
	t, ok := res.(*a2a.Task)
	if !ok {
		return nil, "want a Task, got " + describe(res)
	}
	if len(t.Artifacts) == 0 || len(t.Artifacts[0].Parts) == 0 {
		return nil, "the task has no artifact part"
	}
	if t.Artifacts[0].ID == "" {
		return nil, "the artifact has no artifactId"
	}
	return t.Artifacts[0].Parts[0], ""
}

// scenarioChecks: the reference scenarios, each chosen by its message id as the TCK's are.
func (r *runner) scenarioChecks(ctx context.Context, b *binding, o *own) {
	type artCase struct {
		prefix string
		check  func(p *a2a.Part) string
	}
	cases := []artCase{
		{"tck-artifact-text", func(p *a2a.Part) string {
			if p.Text() != "Generated text content" {
				return fmt.Sprintf("want text %q", "Generated text content")
			}
			return ""
		}},
		{"tck-artifact-file", func(p *a2a.Part) string {
			if p.Raw() == nil || p.Filename != "output.txt" || p.MediaType != "text/plain" {
				return "want raw bytes named output.txt, text/plain"
			}
			return ""
		}},
		{"tck-artifact-file-url", func(p *a2a.Part) string {
			if p.URL() != "https://example.com/output.txt" || p.Filename != "output.txt" {
				return "want url https://example.com/output.txt named output.txt"
			}
			return ""
		}},
		{"tck-artifact-data", func(p *a2a.Part) string {
			got, _ := json.Marshal(p.Data()) //nolint:errcheck // decoded JSON re-encodes
			if string(got) != `{"count":42,"key":"value"}` {
				return `want data {"key": "value", "count": 42}`
			}
			return ""
		}},
	}
	if r.want("DM-PART-001", "DM-ART-001") {
		for _, c := range cases {
			sent, res, err, ok := r.sendScenario(ctx, b, c.prefix)
			if !ok {
				r.record("DM-PART-001", b.name, skip(budgetSpent))
				break
			}
			if err != nil {
				r.record("DM-PART-001", b.name, fail(sent, errText(err), c.prefix+" must answer"))
				continue
			}
			p, why := artifactPart(res)
			if why == "" {
				why = c.check(p)
			}
			if why != "" {
				r.record("DM-PART-001", b.name, fail(sent, describe(res), c.prefix+": "+why))
			} else {
				r.record("DM-PART-001", b.name, pass(c.prefix+": "+describe(res)))
			}
		}
	}
	if r.want("DM-MSG-001") {
		sent, res, err, ok := r.sendScenario(ctx, b, "tck-message-response")
		if m, isMsg := res.(*a2a.Message); ok && err == nil && isMsg && checkMessage(m) == "" && len(m.Parts) > 0 && m.Parts[0].Text() == "Direct message response" {
			r.record("DM-MSG-001", b.name, pass("tck-message-response: "+describe(m)))
		} else if ok {
			r.record("DM-MSG-001", b.name, fail(sent, describe(res)+" "+errText(err), `want a Message "Direct message response"`))
		}
	}
	for _, c := range []struct {
		id, prefix string
		want       a2a.TaskState
	}{
		{"CORE-AUTH-001", "tck-auth-required", a2a.TaskStateAuthRequired},
		{"CORE-FAIL-001", "tck-reject-task", a2a.TaskStateRejected},
		{"CORE-FAIL-001", "tck-fail-task", a2a.TaskStateFailed},
	} {
		if !r.want(c.id) {
			continue
		}
		sent, res, err, ok := r.sendScenario(ctx, b, c.prefix)
		if !ok {
			r.record(c.id, b.name, skip(budgetSpent))
			continue
		}
		if t, isTask := res.(*a2a.Task); err == nil && isTask && t.Status.State == c.want {
			r.record(c.id, b.name, pass(c.prefix+": "+describe(t)))
		} else {
			r.record(c.id, b.name, fail(sent, describe(res)+" "+errText(err), "want a task in "+string(c.want)))
		}
	}
	o.multi = r.inputRequired(ctx, b)
}

// inputRequired: CORE-INPUT-001, STREAM-SUB-001/002 and CORE-MULTI-005 on an input-required task of the run.
func (r *runner) inputRequired(ctx context.Context, b *binding) *a2a.Task {
	if !r.want("CORE-INPUT-001", "STREAM-SUB-001", "STREAM-SUB-002", "CORE-MULTI-005", "CORE-HIST-002") {
		return nil
	}
	sent, res, err, ok := r.sendScenario(ctx, b, "tck-input-required")
	if !ok {
		r.record("CORE-INPUT-001", b.name, skip(budgetSpent))
		return nil
	}
	t, isTask := res.(*a2a.Task)
	if err != nil || !isTask || t.Status.State != a2a.TaskStateInputRequired {
		r.record("CORE-INPUT-001", b.name, fail(sent, describe(res)+" "+errText(err), "want a task in TASK_STATE_INPUT_REQUIRED"))
		return nil
	}
	var sub *subscription
	if b.streaming && r.spend(1) {
		sub = r.subscribe(ctx, b, t.ID)
		defer sub.stop()
		first, err := sub.first()
		subSent := "SubscribeToTask id=" + string(t.ID) + " (input-required)"
		if ft, ok := first.(*a2a.Task); err == nil && ok && ft.ID == t.ID {
			r.record("STREAM-SUB-001", b.name, pass("first event Task("+shortState(ft.Status.State)+")"))
		} else {
			r.record("STREAM-SUB-001", b.name, fail(subSent, fmt.Sprintf("%T %s", first, errText(err)), "the first event must be the Task"))
			sub = nil
		}
	}
	follow := r.probe("a2a-conformance", "a2a conformance: the input asked for")
	follow.TaskID = t.ID
	res, err, ok = r.send(ctx, b, follow, nil)
	sent = "SendMessage taskId=" + string(t.ID) + " (no contextId)"
	if !ok {
		r.record("CORE-INPUT-001", b.name, skip(budgetSpent))
		return nil
	}
	ft, isTask := res.(*a2a.Task)
	switch {
	case err != nil || !isTask:
		r.record("CORE-INPUT-001", b.name, fail(sent, describe(res)+" "+errText(err), "the follow-up must continue the task"))
	case ft.ID != t.ID:
		r.record("CORE-INPUT-001", b.name, fail(sent, describe(ft), "the follow-up must continue task "+string(t.ID)))
	default:
		r.record("CORE-INPUT-001", b.name, pass("continued to "+shortState(ft.Status.State)))
		if sub != nil && ft.Status.State.Terminal() {
			evs, err := sub.rest()
			subSent := "SubscribeToTask id=" + string(t.ID) + " while input-required, then SendMessage taskId=" + string(t.ID)
			switch {
			case err != nil:
				r.record("STREAM-SUB-002", b.name, fail(subSent, eventKinds(evs)+" "+errText(err), "the stream must end at the terminal state"))
			case len(evs) == 0 || !stateOf(evs[len(evs)-1]).Terminal():
				r.record("STREAM-SUB-002", b.name, fail(subSent, strings.TrimSpace("Task(input_required) "+eventKinds(evs))+", then the stream closed",
					"the stream ended before the task was terminal: the follow-up's events never came on it"))
			default:
				r.record("STREAM-SUB-002", b.name, pass("Task(input_required) "+eventKinds(evs)))
			}
		}
		if ft.ContextID == t.ContextID {
			r.record("CORE-MULTI-005", b.name, pass("contextId "+ft.ContextID+" kept"))
		} else {
			r.record("CORE-MULTI-005", b.name, fail(sent, describe(ft), "want contextId "+t.ContextID))
		}
		return ft
	}
	return nil
}

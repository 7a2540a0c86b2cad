package conformance

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

var a2aErrors = []error{a2a.ErrParseError, a2a.ErrInvalidRequest, a2a.ErrMethodNotFound, a2a.ErrInvalidParams,
	a2a.ErrInternalError, a2a.ErrServerError, a2a.ErrTaskNotFound, a2a.ErrTaskNotCancelable,
	a2a.ErrPushNotificationNotSupported, a2a.ErrUnsupportedOperation, a2a.ErrUnsupportedContentType,
	a2a.ErrInvalidAgentResponse, a2a.ErrExtendedCardNotConfigured, a2a.ErrExtensionSupportRequired,
	a2a.ErrVersionNotSupported, a2a.ErrUnauthenticated, a2a.ErrUnauthorized}

// isA2AError says whether err is an error the agent answered in its binding's terms.
func isA2AError(err error) bool {
	for _, e := range a2aErrors {
		if errors.Is(err, e) {
			return true
		}
	}
	return false
}

// probe is a message of the run: its id carries the run id, so the agent's log names the tasks that are ours.
func (r *runner) probe(prefix, text string) *a2a.Message {
	m := a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart(text))
	m.ID = fmt.Sprintf("%s-%s-%s", prefix, r.runID, a2a.NewMessageID()[:8])
	return m
}

// own is what the run created on a binding, for the checks that follow.
type own struct {
	done  *a2a.Task // a task sent blocking, terminal or interrupted
	multi *a2a.Task // a task of two turns (the input-required scenario's), whose history is long enough to cut
	tasks []*a2a.Task
}

// bindingChecks runs the message, error, streaming, wire and push checks on b.
func (r *runner) bindingChecks(ctx context.Context, b *binding) {
	o := &own{}
	r.sendBlocking(ctx, b, o)
	r.sendNonBlocking(ctx, b, o)
	r.terminalRules(ctx, b, o)
	if r.scenarios() {
		r.scenarioChecks(ctx, b, o)
	}
	r.history(ctx, b, o)
	r.list(ctx, b, o)
	r.streaming(ctx, b)
	r.wire(ctx, b)
	r.push(ctx, b, o)
	r.extendedCard(ctx, b)
	b.made = o.tasks
}

// send sends m with cfg on b, bounded by the run's timeout; false when the budget is spent.
func (r *runner) send(ctx context.Context, b *binding, m *a2a.Message, cfg *a2a.SendMessageConfig) (a2a.SendMessageResult, error, bool) {
	if !r.spend(1) {
		return nil, nil, false
	}
	cctx, cancel := r.callCtx(ctx)
	defer cancel()
	res, err := b.c.SendMessage(cctx, &a2a.SendMessageRequest{Message: m, Config: cfg})
	return res, err, true
}

func describe(res a2a.SendMessageResult) string {
	switch x := res.(type) {
	case *a2a.Task:
		return fmt.Sprintf("Task id=%s contextId=%s state=%s artifacts=%d history=%d", x.ID, x.ContextID, x.Status.State, len(x.Artifacts), len(x.History))
	case *a2a.Message:
		return fmt.Sprintf("Message id=%s role=%s parts=%d", x.ID, x.Role, len(x.Parts))
	case nil:
		return "nothing"
	}
	return fmt.Sprintf("%T", res)
}

func interrupted(s a2a.TaskState) bool {
	return s == a2a.TaskStateInputRequired || s == a2a.TaskStateAuthRequired
}

// checkTask is DM-TASK-001's rule on t; "" when it holds.
func checkTask(t *a2a.Task) string {
	var miss []string
	if t.ID == "" {
		miss = append(miss, "id")
	}
	if t.ContextID == "" {
		miss = append(miss, "contextId")
	}
	if t.Status.State == "" || t.Status.State == a2a.TaskStateUnspecified {
		miss = append(miss, "status.state")
	}
	for _, a := range t.Artifacts {
		if a.ID == "" || len(a.Parts) == 0 {
			miss = append(miss, "artifacts[].artifactId/parts")
			break
		}
	}
	if len(miss) == 0 {
		return ""
	}
	return "missing " + strings.Join(miss, ", ")
}

func checkMessage(m *a2a.Message) string {
	var miss []string
	if m.ID == "" {
		miss = append(miss, "messageId")
	}
	if m.Role == "" || m.Role == a2a.MessageRoleUnspecified {
		miss = append(miss, "role")
	}
	if len(m.Parts) == 0 {
		miss = append(miss, "parts")
	}
	if len(miss) == 0 {
		return ""
	}
	return "missing " + strings.Join(miss, ", ")
}

// sendBlocking: CORE-SEND-001, CORE-EXECUTION-MODE-001, DM-TASK-001, DM-MSG-001, CORE-MULTI-001a, CORE-GET-001.
func (r *runner) sendBlocking(ctx context.Context, b *binding, o *own) {
	m := r.probe("a2a-conformance", "a2a conformance: hello")
	sent := "SendMessage (blocking) messageId=" + m.ID
	res, err, ok := r.send(ctx, b, m, nil)
	if !ok {
		r.record("CORE-SEND-001", b.name, skip(budgetSpent))
		return
	}
	if err != nil {
		r.record("CORE-SEND-001", b.name, fail(sent, errText(err), "a plain text message must be answered"))
		return
	}
	switch x := res.(type) {
	case *a2a.Task:
		r.record("CORE-SEND-001", b.name, pass(describe(x)))
		if why := checkTask(x); why != "" {
			r.record("DM-TASK-001", b.name, fail(sent, describe(x), why))
		} else {
			r.record("DM-TASK-001", b.name, pass("id, contextId and status present"))
		}
		if x.ContextID != "" {
			r.record("CORE-MULTI-001a", b.name, pass("contextId "+x.ContextID))
		} else {
			r.record("CORE-MULTI-001a", b.name, fail(sent, describe(x), "the task has no contextId"))
		}
		if x.Status.State.Terminal() || interrupted(x.Status.State) {
			r.record("CORE-EXECUTION-MODE-001", b.name, pass("returned at "+string(x.Status.State)))
		} else {
			r.record("CORE-EXECUTION-MODE-001", b.name, fail(sent, describe(x), "a blocking send must return at a terminal or interrupted state"))
		}
		o.done = x
		o.tasks = append(o.tasks, x)
		r.getTask(ctx, b, x)
	case *a2a.Message:
		r.record("CORE-SEND-001", b.name, pass(describe(x)))
		if why := checkMessage(x); why != "" {
			r.record("DM-MSG-001", b.name, fail(sent, describe(x), why))
		} else {
			r.record("DM-MSG-001", b.name, pass("role, parts and messageId present"))
		}
		r.record("CORE-EXECUTION-MODE-001", b.name, pass("answered with a Message"))
	default:
		r.record("CORE-SEND-001", b.name, fail(sent, describe(res), "want a Task or a Message"))
	}
}

// getTask: CORE-GET-001 on a task the run made.
func (r *runner) getTask(ctx context.Context, b *binding, t *a2a.Task) {
	if !r.want("CORE-GET-001") || !r.spend(1) {
		return
	}
	cctx, cancel := r.callCtx(ctx)
	defer cancel()
	got, err := b.c.GetTask(cctx, &a2a.GetTaskRequest{ID: t.ID})
	sent := "GetTask id=" + string(t.ID)
	switch {
	case err != nil:
		r.record("CORE-GET-001", b.name, fail(sent, errText(err), "the task the agent just returned must be found"))
	case got.ID != t.ID || got.Status.State != t.Status.State:
		r.record("CORE-GET-001", b.name, fail(sent, describe(got), "want id "+string(t.ID)+" in state "+string(t.Status.State)))
	default:
		r.record("CORE-GET-001", b.name, pass(describe(got)))
	}
}

// sendNonBlocking: CORE-EXECUTION-MODE-002, and CORE-CANCEL-001 when the task is still live.
func (r *runner) sendNonBlocking(ctx context.Context, b *binding, o *own) {
	if !r.want("CORE-EXECUTION-MODE-002", "CORE-CANCEL-001") {
		return
	}
	m := r.probe("a2a-conformance", "a2a conformance: non-blocking")
	if r.scenarios() {
		m = r.probe("tck-long-running", "a2a conformance: a long task to cancel")
	}
	sent := "SendMessage (returnImmediately) messageId=" + m.ID
	start := time.Now()
	res, err, ok := r.send(ctx, b, m, &a2a.SendMessageConfig{ReturnImmediately: true})
	if !ok {
		r.record("CORE-EXECUTION-MODE-002", b.name, skip(budgetSpent))
		return
	}
	if err != nil {
		r.record("CORE-EXECUTION-MODE-002", b.name, fail(sent, errText(err), "a non-blocking send must be answered"))
		return
	}
	t, isTask := res.(*a2a.Task)
	switch {
	case !isTask:
		r.record("CORE-EXECUTION-MODE-002", b.name, pass(describe(res)+" (answered with a Message)"))
	case r.scenarios() && t.Status.State.Terminal():
		r.record("CORE-EXECUTION-MODE-002", b.name, fail(sent, describe(t), "the long scenario task came back terminal: the send blocked"))
	default:
		r.record("CORE-EXECUTION-MODE-002", b.name, pass(fmt.Sprintf("%s in %s", describe(t), time.Since(start).Round(time.Millisecond))))
	}
	if !isTask {
		r.record("CORE-CANCEL-001", b.name, skip("the agent answers with Messages: no task to cancel"))
		return
	}
	o.tasks = append(o.tasks, t)
	if t.Status.State.Terminal() {
		r.record("CORE-CANCEL-001", b.name, skip("the agent finished the task before it could be cancelled (declare the reference scenarios for a long task)"))
		return
	}
	if !r.spend(1) {
		r.record("CORE-CANCEL-001", b.name, skip(budgetSpent))
		return
	}
	cctx, cancel := r.callCtx(ctx)
	defer cancel()
	got, err := b.c.CancelTask(cctx, &a2a.CancelTaskRequest{ID: t.ID})
	sent = "CancelTask id=" + string(t.ID)
	switch {
	case errors.Is(err, a2a.ErrTaskNotCancelable):
		r.record("CORE-CANCEL-001", b.name, skip("the task ended before the cancel reached it"))
	case err != nil && r.endedMeanwhile(ctx, b, t.ID):
		r.record("CORE-CANCEL-001", b.name, skip("the task ended while the cancel was on its way (the agent answered "+errText(err)+")"))
	case err != nil:
		r.record("CORE-CANCEL-001", b.name, fail(sent, errText(err), "a live task of ours must be cancelable"))
	case got.Status.State != a2a.TaskStateCanceled:
		r.record("CORE-CANCEL-001", b.name, fail(sent, describe(got), "want TASK_STATE_CANCELED"))
	default:
		r.record("CORE-CANCEL-001", b.name, pass(describe(got)))
	}
}

// endedMeanwhile says whether task id is now terminal and not canceled: a cancel that raced its end.
func (r *runner) endedMeanwhile(ctx context.Context, b *binding, id a2a.TaskID) bool {
	if !r.spend(1) {
		return false
	}
	cctx, cancel := r.callCtx(ctx)
	defer cancel()
	t, err := b.c.GetTask(cctx, &a2a.GetTaskRequest{ID: id})
	return err == nil && t.Status.State.Terminal() && t.Status.State != a2a.TaskStateCanceled
}

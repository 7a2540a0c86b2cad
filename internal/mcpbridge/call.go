package mcpbridge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/a2acli/a2a/internal/client"
	"github.com/a2acli/a2a/internal/devtool"
	"github.com/a2acli/a2a/internal/exitcode"
	"github.com/a2acli/a2a/internal/follow"
	"github.com/a2acli/a2a/internal/output"
	"github.com/a2acli/a2a/internal/termsafe"
	"github.com/a2aproject/a2a-go/v2/a2a"
)

// cancelBound bounds the CancelTask sent when the host cancels a call: the host has stopped waiting already.
const cancelBound = 10 * time.Second

// continueTool answers a task that stopped at input-required.
func (b *Bridge) continueTool(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	var in struct {
		TaskID string `json:"taskId"`
		Answer string `json:"answer"`
		Agent  string `json:"agent"`
	}
	if err := json.Unmarshal(req.Params.Arguments, &in); err != nil {
		return toolError("invalid arguments: %v", err), nil
	}
	if in.TaskID == "" {
		return toolError("give the taskId of the task that asked for input"), nil
	}
	a, err := b.agentOf(a2a.TaskID(in.TaskID), in.Agent)
	if err != nil {
		return toolError("%v", err), nil
	}
	msg := a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart(in.Answer))
	msg.TaskID = a2a.TaskID(in.TaskID)
	return b.call(ctx, req, a, msg), nil
}

// call sends msg to a, follows the task to a settled state, and maps the outcome to a tool result. An
// input-required task asks the host (elicitation) when it can, and goes on with the answer.
func (b *Bridge) call(ctx context.Context, req *mcp.CallToolRequest, a *agent, msg *a2a.Message) *mcp.CallToolResult {
	switch rt, err := b.retried(req); {
	case err != nil:
		return toolError("%v", err)
	case rt != nil && rt.declined != nil:
		return b.inputRequired(rt.agent, rt.declined)
	case rt != nil:
		a, msg = rt.agent, rt.msg
	}
	if err := b.reach(ctx, a); err != nil {
		return toolError("%v", err)
	}
	ctx = b.tenant(ctx)
	prog := &progress{ctx: ctx, req: req}
	c := b.client(ctx, a)
	v, err := b.turn(ctx, a, c, msg, prog)
	var task *a2a.Task
	if v != nil {
		task = v.Task
	}
	if task != nil {
		b.remember(task.ID, a)
	}
	if err != nil {
		if ctx.Err() != nil {
			b.cancelTask(c, task)
			return toolError("canceled: the host canceled the call%s", canceledNote(task))
		}
		return b.failure(a, task, err)
	}
	if task == nil {
		if v.Message == nil {
			return toolError("the agent answered with neither a task nor a message")
		}
		return b.answer(nil, v.Message.Parts, nil)
	}
	switch task.Status.State {
	case a2a.TaskStateInputRequired:
		if canElicit(req) {
			return b.askHost(a, task)
		}
		return b.inputRequired(a, task)
	case a2a.TaskStateAuthRequired:
		a.refused()
		r := b.answer(task, statusParts(task), nil)
		r.IsError = true
		r.Content = append(r.Content, &mcp.TextContent{Text: fmt.Sprintf(
			"The agent needs authorization to go on with task %s. Ask the user to run `a2a auth login %s` "+
				"(or to configure its credentials, see `a2a help environment`), then call continue with the task id.",
			task.ID, termsafe.ShellQuote(a.url))})
		return r
	case a2a.TaskStateCompleted:
		return b.answer(task, answerParts(task), task.Artifacts)
	default: // failed, rejected, canceled
		r := b.answer(task, statusParts(task), task.Artifacts)
		r.IsError = true
		r.Content = append(r.Content, &mcp.TextContent{Text: fmt.Sprintf("task %s %s", task.ID, output.ShortState(task.Status.State))})
		return r
	}
}

func canceledNote(task *a2a.Task) string {
	if task == nil || task.ID == "" {
		return ""
	}
	return fmt.Sprintf("; task %s was asked to cancel", task.ID)
}

// cancelTask cancels the A2A task of a call the host canceled, unless it had settled.
func (b *Bridge) cancelTask(c *client.Conn, task *a2a.Task) {
	if task == nil || task.ID == "" || follow.Settled(task.Status.State) {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), cancelBound)
	defer cancel()
	if b.cfg.Env.Tenant != "" {
		ctx = a2a.AttachTenant(ctx, b.cfg.Env.Tenant)
	}
	_, err := client.Unary(ctx, c, func(ctx context.Context) (*a2a.Task, error) {
		return c.CancelTask(ctx, &a2a.CancelTaskRequest{ID: task.ID, Tenant: b.cfg.Env.Tenant})
	})
	if err != nil {
		fmt.Fprintf(b.cfg.Log, "a2a mcp: cancel task %s: %s\n", termsafe.Line(string(task.ID)), termsafe.Line(err.Error()))
		return
	}
	fmt.Fprintf(b.cfg.Log, "a2a mcp: canceled task %s\n", termsafe.Line(string(task.ID)))
}

// failure is a call that ended in an error: the host's model sees what went wrong and, for a live task, its id.
func (b *Bridge) failure(a *agent, task *a2a.Task, err error) *mcp.CallToolResult {
	msg := err.Error()
	if exitcode.Classify(err).Exit == exitcode.Auth {
		a.refused()
		msg += fmt.Sprintf(". The agent wants credentials: ask the user to run `a2a auth login %s` or to configure them "+
			"(see `a2a help environment`)", termsafe.ShellQuote(a.url))
	}
	if task != nil && task.ID != "" {
		msg += fmt.Sprintf(" (task %s, last seen %s)", task.ID, output.ShortState(task.Status.State))
	}
	return toolError("%s: %s", a.label(), termsafe.Line(msg))
}

// turn sends msg and follows its task: by stream when the card says the agent streams, else by SendMessage and
// GetTask polling. The view holds the settled task (or the message the agent answered with).
func (b *Bridge) turn(ctx context.Context, a *agent, c *client.Conn, msg *a2a.Message, prog *progress) (*follow.View, error) {
	req := &a2a.SendMessageRequest{Message: msg, Tenant: b.cfg.Env.Tenant}
	t := follow.New(b.cfg.Env, c, a.url, follow.Answers{}, sink{emit: prog.event})
	t.Recover = true
	t.View.Max = c.MaxResponse
	if msg.TaskID != "" {
		t.FollowUp = &follow.FollowUp{MsgID: msg.ID}
	}
	sent := time.Now()
	if c.Card != nil && c.Card.Capabilities.Streaming {
		err := t.Run(ctx, func(ctx context.Context) iter.Seq2[a2a.Event, error] { return c.SendStreamingMessage(ctx, req) })
		if err != nil && t.View.Task == nil && t.View.Message == nil {
			return b.afterRefusal(ctx, c, &t.View, follow.Refusal{URL: a.url, ID: msg.TaskID, Sent: sent, Err: err}, prog)
		}
		return &t.View, err
	}
	req.Config = &a2a.SendMessageConfig{ReturnImmediately: true}
	res, err := client.Unary(ctx, c, func(ctx context.Context) (a2a.SendMessageResult, error) { return c.SendMessage(ctx, req) })
	if err != nil {
		return b.afterRefusal(ctx, c, &t.View, follow.Refusal{URL: a.url, ID: msg.TaskID, Sent: sent, Err: err}, prog)
	}
	switch r := res.(type) {
	case *a2a.Message:
		t.View.Message = r
		return &t.View, nil
	case *a2a.Task:
		t.View.Task = r
		stale := t.FollowUp.Stale(r)
		if follow.Settled(r.Status.State) && !stale {
			return &t.View, nil
		}
		_ = prog.event(r) // cannot fail: progress is best effort
		onChange := func(task *a2a.Task) { _ = prog.event(task) }
		var final *a2a.Task
		if stale {
			final, err = b.cfg.Env.PollTaskPast(ctx, c, r, onChange)
		} else {
			final, err = b.cfg.Env.PollTask(ctx, c, r.ID, r.Status.State, onChange)
		}
		if final != nil {
			t.View.Task = final
		}
		return &t.View, err
	}
	return &t.View, errors.New("the agent answered with neither a task nor a message")
}

// afterRefusal follows the task of a follow-up (r) the agent refused while the task waited for credentials
// (A2A §7.6), as send --task does: the call's answer is the task's end once the agent goes on by itself.
func (b *Bridge) afterRefusal(ctx context.Context, c *client.Conn, v *follow.View, r follow.Refusal, prog *progress) (*follow.View, error) {
	final, err, followed := b.cfg.Env.AfterRefusal(ctx, c, r, func(task *a2a.Task) { _ = prog.event(task) })
	if !followed {
		return v, err
	}
	if final != nil {
		v.Task = final
	}
	return v, err
}

// sink is the turn's printer: every event goes to emit, nothing is rendered.
type sink struct{ emit func(a2a.Event) error }

func (s sink) Event(ev a2a.Event) error { return s.emit(ev) }
func (sink) Close() error               { return nil }
func (sink) SetWorkspace(string)        {}
func (sink) DevTool() *devtool.Session  { return devtool.NewSession() }
func (sink) FeedsDevTool() bool         { return false }

// progress turns a task's events into MCP progress notifications, when the host asked for them (a progress token).
type progress struct {
	ctx  context.Context
	req  *mcp.CallToolRequest
	n    float64
	last string
}

func (p *progress) event(ev a2a.Event) error {
	tok := p.req.Params.GetProgressToken()
	if tok == nil || p.req.Session == nil {
		return nil
	}
	var status *a2a.TaskStatus
	switch e := ev.(type) {
	case *a2a.TaskStatusUpdateEvent:
		status = &e.Status
	case *a2a.Task:
		status = &e.Status
	case *a2a.TaskArtifactUpdateEvent:
		p.n++
		name := e.Artifact.Name
		if name == "" {
			name = string(e.Artifact.ID)
		}
		return p.send("artifact " + termsafe.Line(name))
	default:
		return nil
	}
	text := output.ShortState(status.State)
	if status.Message != nil {
		if s := partsText(status.Message.Parts); s != "" {
			text += ": " + clip(termsafe.Line(s), 200)
		}
	}
	if text == p.last {
		return nil
	}
	p.last = text
	p.n++
	return p.send(text)
}

func (p *progress) send(msg string) error {
	// Best effort: a host that cannot take a notification still gets the result, and a canceled call ends by its
	// context, not here.
	_ = p.req.Session.NotifyProgress(p.ctx, &mcp.ProgressNotificationParams{
		ProgressToken: p.req.Params.GetProgressToken(), Progress: p.n, Message: msg})
	return nil
}

func partsText(parts a2a.ContentParts) string {
	var s []string
	for _, p := range parts {
		if t := p.Text(); t != "" {
			s = append(s, t)
		}
	}
	return strings.Join(s, " ")
}

// statusParts are the parts of the task's status message.
func statusParts(task *a2a.Task) a2a.ContentParts {
	if task.Status.Message == nil {
		return nil
	}
	return task.Status.Message.Parts
}

// answerParts are a completed task's answer: its artifacts' parts (answer adds them), else its status message's.
func answerParts(task *a2a.Task) a2a.ContentParts {
	if len(task.Artifacts) > 0 {
		return nil
	}
	return statusParts(task)
}

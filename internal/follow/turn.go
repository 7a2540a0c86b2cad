package follow

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"sync/atomic"
	"time"

	"github.com/a2acli/a2a/internal/client"
	"github.com/a2acli/a2a/internal/coder"
	"github.com/a2acli/a2a/internal/devtool"
	"github.com/a2acli/a2a/internal/termsafe"
	"github.com/a2aproject/a2a-go/v2/a2a"
)

// Turn drives one streamed turn of a task to its end, answering permission prompts of coding agents (the
// development-tool extension) on the way: stream, and while tool calls wait for permission, decide, send the answer
// as a new streaming message on the same task, and stream again. Every stream is read to its end: an SSE body read to
// EOF returns its connection to the keep-alive pool, which the Gemini CLI server needs (see client's connTracker).
type Turn struct {
	Env     *Env
	C       *client.Conn
	URL     string                // the agent as the user named it, for the commands in hints
	Answers Answers               // what the user answered ahead (flags)
	Ask     coder.Asker           // nil: nobody to ask (no terminal)
	Emit    func(a2a.Event) error // renders one event
	flush   func() error          // ends a partial line before a prompt
	View    View
	// sess follows the development-tool traffic: the printer's own session when the printer sees every event
	// (text, JSON), so that each event is decoded once; fed here (feed) when it does not (raw, a result-only send).
	sess *devtool.Session
	feed bool
	// prompts decides the answers to permission prompts (coder.Prompts); it remembers the calls answered.
	prompts coder.Prompts
	// Stopped is set when the turn stopped at a permission prompt nobody answered.
	Stopped bool
	// shape is the dialect learnt from the task's history (Learn), Plain when unknown.
	shape devtool.Shape
	// setWorkspace tells the printer the agent's workspace, so tool calls show paths relative to it.
	setWorkspace func(dir string)
	// Recover follows the task past a broken or silent stream and ends at a settled state (see follow); set by
	// send and subscribe.
	Recover bool
	// FollowUp, when set, is the message that opened the turn on an existing task: until the agent reacts to it,
	// the task's state from before it settles nothing (see FollowUp).
	FollowUp *FollowUp
	// reacted: an event came that is not the task's state from before FollowUp's message; heldNow: the event being
	// applied is such a state. reacted is read by the silence watch's timer too.
	reacted atomic.Bool
	heldNow bool
}

// Answers are the development-tool flags a turn acts on.
type Answers struct {
	Devtool     bool // a development-tool flag was given: the turn is a coding agent's whatever its card says
	Approve     bool // --approve
	Reject      bool // --reject
	AutoExecute bool // --auto-execute
	Confirm     []coder.Confirm
	Timeout     time.Duration // --answer-timeout
}

// Printer is what a turn renders through (an output.Printer).
type Printer interface {
	Event(a2a.Event) error
	Close() error
	SetWorkspace(dir string)
	DevTool() *devtool.Session
	FeedsDevTool() bool
}

// New is a turn on the agent c (named url) rendering through p.
func New(env *Env, c *client.Conn, url string, a Answers, p Printer) *Turn {
	return &Turn{
		Env: env, C: c, URL: url, Answers: a,
		Emit:         p.Event,
		flush:        p.Close,
		setWorkspace: p.SetWorkspace,
		sess:         p.DevTool(),
		feed:         !p.FeedsDevTool(),
	}
}

// Quiet makes the turn render nothing (a result-only send prints the final task instead); its session is then fed
// by the turn itself.
func (t *Turn) Quiet() {
	t.Emit = func(a2a.Event) error { return nil }
	t.flush = func() error { return nil }
	t.feed = true
}

// apply records one event and renders it.
func (t *Turn) apply(ev a2a.Event) error {
	t.heldNow = false
	if t.FollowUp != nil && !t.reacted.Load() {
		if t.FollowUp.judgeEvent(ev) == fresh {
			t.reacted.Store(true)
		} else {
			t.heldNow = true
		}
	}
	t.View.apply(ev)
	if t.View.Over() {
		return client.TooLarge(t.View.Max)
	}
	if t.feed {
		t.sess.Apply(ev)
	}
	return t.Emit(ev)
}

// Held reports whether the event being rendered is the task's state from before the turn's follow-up message: the
// agent has not reacted to the message yet (a chat shows nothing for it).
func (t *Turn) Held() bool { return t.heldNow }

// stillStale reports whether task, read while the agent has not reacted to the follow-up, surely is the state from
// before it.
func (t *Turn) stillStale(task *a2a.Task) bool {
	return !t.reacted.Load() && t.FollowUp.Stale(task)
}

// Run streams the turn opened by open (nil: the turn starts with the --confirm answers) and answers prompts until
// the turn ends or stops at a prompt nobody answers.
func (t *Turn) Run(ctx context.Context, open func(context.Context) iter.Seq2[a2a.Event, error]) error {
	if open != nil {
		follow := func(ctx context.Context, open func(context.Context) iter.Seq2[a2a.Event, error]) error {
			return client.Stream(ctx, t.C, open, t.apply)
		}
		if t.Recover {
			follow = t.follow
		}
		if err := follow(ctx, open); err != nil {
			return err
		}
	}
	if !t.holds() {
		// A plain stream: no tool call of a coding agent can wait for an answer.
		return nil
	}
	return t.answerPrompts(ctx)
}

// answerPrompts sends the --confirm answers and answers the permission prompts of a coding agent's turn, streaming
// what follows each answer, until no call waits or one waits that nobody answers.
func (t *Turn) answerPrompts(ctx context.Context) error {
	t.prompts.Session = t.sess
	t.prompts.Approve, t.prompts.Reject, t.prompts.AutoExecute = t.Answers.Approve, t.Answers.Reject, t.Answers.AutoExecute
	t.prompts.Confirm = t.Answers.Confirm
	t.prompts.Ask, t.prompts.Flush = t.Ask, t.flush
	t.prompts.StandIn, t.prompts.Send = t.standIn, t.answer
	err := t.prompts.Run(ctx, client.Usagef)
	t.Stopped = t.prompts.Stopped
	return err
}

// Unanswered are the calls that wait for an answer nobody gave.
func (t *Turn) Unanswered() []*devtool.ToolCall {
	t.prompts.Session = t.sess
	t.prompts.AutoExecute = t.Answers.AutoExecute
	return t.prompts.Unanswered()
}

// standIn is the call a --confirm answer of a later process stands for when the session never saw it, in the shape
// the agent speaks: the shape seen in the task's history, else the RFC's when the card declares the extension,
// Gemini's otherwise (that server declares nothing).
func (t *Turn) standIn(id string) *devtool.ToolCall {
	shape := t.shape
	if shape == devtool.Plain && devtool.CardDeclares(t.C.Card) {
		shape = devtool.RFC
	}
	return devtool.StandInCall(id, shape)
}

// answer sends part on the turn's task as a new streaming message and streams what follows. --answer-timeout bounds
// the wait for the first event: an agent that does not understand an answer says nothing at all.
func (t *Turn) answer(ctx context.Context, callID string, part *a2a.Part) error {
	taskID, contextID := t.IDs()
	msg := a2a.NewMessage(a2a.MessageRoleUser, part)
	msg.TaskID, msg.ContextID = taskID, contextID
	req := &a2a.SendMessageRequest{Message: msg, Tenant: t.Env.Tenant}
	t.Env.Log.Printf("answering tool call %s on task %s", callID, taskID)
	err := streamWatched(ctx, t.C, t.Answers.Timeout, func(ctx context.Context) iter.Seq2[a2a.Event, error] {
		return t.C.SendStreamingMessage(ctx, req)
	}, t.apply)
	if errors.Is(err, errAnswerIgnored) {
		return client.WithHint(fmt.Errorf("no event within %s after answering tool call %s: the agent ignored the answer: %w", t.Answers.Timeout, callID, client.ErrTimeout),
			fmt.Sprintf("cancel the task with: a2a cancel %s %s", t.Env.Ref(t.URL), termsafe.ShellQuote(string(taskID))))
	}
	return err
}

// IDs are the task and context of the turn: what the stream said, else what the flags said.
func (t *Turn) IDs() (a2a.TaskID, string) {
	if t.View.Task != nil {
		return t.View.Task.ID, t.View.Task.ContextID
	}
	return "", ""
}

var errAnswerIgnored = errors.New("answer ignored")

// streamWatched is stream with a bound on the wait for the first event (errAnswerIgnored when it expires); later
// events are bounded by --timeout as usual.
func streamWatched(ctx context.Context, c *client.Conn, first time.Duration, open func(context.Context) iter.Seq2[a2a.Event, error], each func(a2a.Event) error) error {
	wctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	timer := time.AfterFunc(first, func() { cancel(errAnswerIgnored) })
	defer timer.Stop()
	seen := false
	err := client.Stream(wctx, c, open, func(ev a2a.Event) error {
		if !seen {
			seen = true
			timer.Stop()
		}
		return each(ev)
	})
	if !seen && errors.Is(context.Cause(wctx), errAnswerIgnored) {
		return errAnswerIgnored
	}
	return err
}

// Learn replays the agent messages of a task's history (a later process answering with --confirm) through the
// session, in the shape their data parts speak, so that the pending calls and their options are known.
func (t *Turn) Learn(task *a2a.Task) {
	// A later process (--confirm) sees no Task event on its stream: the workspace comes from the stored task.
	// (The agent's own record beats --workspace: it is the path the agent's tool calls use.)
	if ws := devtool.TaskWorkspace(task); ws != "" {
		t.setWorkspace(ws)
	}
	t.shape = devtool.HistoryShape(task.History)
	if t.shape == devtool.Plain {
		return
	}
	if !t.feed {
		// The history is not part of the stream: the printer's session must not count its calls as shown. This
		// turn keeps a session of its own.
		t.sess, t.feed = devtool.NewSession(), true
	}
	for _, m := range task.History {
		if m.Role != a2a.MessageRoleAgent {
			continue
		}
		t.sess.Apply(devtool.HistoryEvent(t.shape, task, m))
	}
}

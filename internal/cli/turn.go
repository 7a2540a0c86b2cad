package cli

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"time"

	"github.com/a2acli/a2a/internal/client"
	"github.com/a2acli/a2a/internal/coder"
	"github.com/a2acli/a2a/internal/devtool"
	"github.com/a2acli/a2a/internal/output"
	"github.com/a2aproject/a2a-go/v2/a2a"
)

// streamTurn drives one streamed turn of a task to its end, answering permission prompts of coding agents (the
// development-tool extension) on the way: stream, and while tool calls wait for permission, decide, send the answer
// as a new streaming message on the same task, and stream again. Every stream is read to its end: an SSE body read to
// EOF returns its connection to the keep-alive pool, which the Gemini CLI server needs (see connTracker).
type streamTurn struct {
	f     *factory
	c     *client.Conn
	url   string
	dt    *devtoolOptions
	ask   coder.Asker           // nil: nobody to ask (no terminal)
	emit  func(a2a.Event) error // renders one event
	flush func() error          // ends a partial line before a prompt
	view  taskView
	// sess follows the development-tool traffic: the printer's own session when the printer sees every event
	// (text, JSON), so that each event is decoded once; fed here (feed) when it does not (raw, a result-only send).
	sess *devtool.Session
	feed bool
	// prompts decides the answers to permission prompts (coder.Prompts); it remembers the calls answered.
	prompts coder.Prompts
	// stopped is set when the turn stopped at a permission prompt nobody answered.
	stopped bool
	// shape is the dialect learnt from the task's history (learn), Plain when unknown.
	shape devtool.Shape
	// setWorkspace tells the printer the agent's workspace, so tool calls show paths relative to it.
	setWorkspace func(dir string)
	// recover follows the task past a broken or silent stream and ends at a settled state (see follow); set by
	// send and subscribe.
	recover bool
}

func newStreamTurn(f *factory, c *client.Conn, url string, dt *devtoolOptions, p *output.Printer) *streamTurn {
	return &streamTurn{
		f: f, c: c, url: url, dt: dt,
		emit:         p.Event,
		flush:        p.Close,
		setWorkspace: p.SetWorkspace,
		sess:         p.DevTool(),
		feed:         !p.FeedsDevTool(),
	}
}

// quiet makes the turn render nothing (a result-only send prints the final task instead); its session is then fed
// by the turn itself.
func (t *streamTurn) quiet() {
	t.emit = func(a2a.Event) error { return nil }
	t.flush = func() error { return nil }
	t.feed = true
}

// apply records one event and renders it.
func (t *streamTurn) apply(ev a2a.Event) error {
	t.view.apply(ev)
	if t.feed {
		t.sess.Apply(ev)
	}
	return t.emit(ev)
}

// run streams the turn opened by open (nil: the turn starts with the --confirm answers) and answers prompts until
// the turn ends or stops at a prompt nobody answers.
func (t *streamTurn) run(ctx context.Context, open func(context.Context) iter.Seq2[a2a.Event, error]) error {
	if open != nil {
		follow := func(ctx context.Context, open func(context.Context) iter.Seq2[a2a.Event, error]) error {
			return client.Stream(ctx, t.c, open, t.apply)
		}
		if t.recover {
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
func (t *streamTurn) answerPrompts(ctx context.Context) error {
	t.prompts.Session = t.sess
	t.prompts.Approve, t.prompts.Reject, t.prompts.AutoExecute = t.dt.approve, t.dt.reject, t.dt.autoExecute
	t.prompts.Confirm = t.dt.answers
	t.prompts.Ask, t.prompts.Flush = t.ask, t.flush
	t.prompts.StandIn, t.prompts.Send = t.standIn, t.answer
	err := t.prompts.Run(ctx, client.Usagef)
	t.stopped = t.prompts.Stopped
	return err
}

// unanswered are the calls that wait for an answer nobody gave.
func (t *streamTurn) unanswered() []*devtool.ToolCall {
	t.prompts.Session = t.sess
	t.prompts.AutoExecute = t.dt.autoExecute
	return t.prompts.Unanswered()
}

// standIn is the call a --confirm answer of a later process stands for when the session never saw it, in the shape
// the agent speaks: the shape seen in the task's history, else the RFC's when the card declares the extension,
// Gemini's otherwise (that server declares nothing).
func (t *streamTurn) standIn(id string) *devtool.ToolCall {
	shape := t.shape
	if shape == devtool.Plain && cardSpeaksDevtool(t.c.Card) {
		shape = devtool.RFC
	}
	return devtool.StandInCall(id, shape)
}

// answer sends part on the turn's task as a new streaming message and streams what follows. --answer-timeout bounds
// the wait for the first event: an agent that does not understand an answer says nothing at all.
func (t *streamTurn) answer(ctx context.Context, callID string, part *a2a.Part) error {
	taskID, contextID := t.ids()
	msg := a2a.NewMessage(a2a.MessageRoleUser, part)
	msg.TaskID, msg.ContextID = taskID, contextID
	req := &a2a.SendMessageRequest{Message: msg, Tenant: t.f.opts.Tenant}
	t.f.log.Printf("answering tool call %s on task %s", callID, taskID)
	err := streamWatched(ctx, t.c, t.dt.answerTimeout, func(ctx context.Context) iter.Seq2[a2a.Event, error] {
		return t.c.SendStreamingMessage(ctx, req)
	}, t.apply)
	if errors.Is(err, errAnswerIgnored) {
		return client.WithHint(fmt.Errorf("no event within %s after answering tool call %s: the agent ignored the answer: %w", t.dt.answerTimeout, callID, client.ErrTimeout),
			fmt.Sprintf("cancel the task with: a2a cancel %s %s", shellQuote(t.url), shellQuote(string(taskID))))
	}
	return err
}

// ids are the task and context of the turn: what the stream said, else what the flags said.
func (t *streamTurn) ids() (a2a.TaskID, string) {
	if t.view.task != nil {
		return t.view.task.ID, t.view.task.ContextID
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

// learn replays the agent messages of a task's history (a later process answering with --confirm) through the
// session, in the shape their data parts speak, so that the pending calls and their options are known.
func (t *streamTurn) learn(task *a2a.Task) {
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

package a3s

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/a2acli/a2a/internal/a3s/proto/a3spb"
)

// generation is one StreamGenerate and what the bridge learnt from it. It outlives the turn that
// started it when a tool call waits for approval: the answer's turn goes on reading it.
type generation struct {
	task     a2a.TaskID
	session  string
	stop     context.CancelFunc // ends the stream and the event subscription
	items    chan item
	calls    map[string]*callState
	order    []string // call ids in arrival order
	pending  *callState
	artifact a2a.ArtifactID // "" until the first content
	text     bool           // content was streamed
}

// item is what the readers hand the turn: a chunk, a confirmation request, or the end (err; io.EOF
// when the stream ended without an error).
type item struct {
	c       *chunk
	confirm *callState
	err     error
}

// Run performs one turn of an A2A task: a new message starts a StreamGenerate on the context's
// session; the answer to a tool call waiting for approval is sent with ConfirmToolExecution and
// the generation goes on. Events go out through emit; the final state and status message are
// returned. Run returns promptly once ctx is done, after asking the agent to Cancel.
func (b *Bridge) Run(ctx context.Context, info a2a.TaskInfo, msg *a2a.Message, emit func(a2a.Event)) (a2a.TaskState, *a2a.Message) {
	fail := func(err error) (a2a.TaskState, *a2a.Message) {
		return a2a.TaskStateFailed, a2a.NewMessageForTask(a2a.MessageRoleAgent, info, a2a.NewTextPart(err.Error()))
	}
	s, err := b.session(ctx, info.ContextID, msg)
	if err != nil {
		return fail(err)
	}
	b.mu.Lock()
	s.tasks[info.TaskID] = struct{}{}
	b.mu.Unlock()
	b.sweep(info.ContextID)
	select {
	case s.turn <- struct{}{}:
	case <-ctx.Done():
		return a2a.TaskStateCanceled, nil
	}
	defer func() { <-s.turn }()
	if _, auto := settingsOf(msg); auto != nil {
		s.auto = *auto
	}
	emit(stateEvent(info))
	if g := s.gen; g != nil {
		if g.task == info.TaskID {
			return b.answer(ctx, s, g, info, msg, emit)
		}
		if st, ok := b.lookup(g.task); ok && !st.Terminal() {
			return fail(fmt.Errorf("task %s of this context waits for approval of tool call %s: answer it or cancel it first", g.task, g.pending.id))
		}
		s.gen = nil
		b.abandon(g)
	}
	text := promptText(msg)
	if text == "" {
		return fail(errNoText)
	}
	g, err := b.start(ctx, s, info.TaskID, text)
	if err != nil {
		return fail(err)
	}
	return b.pump(ctx, s, g, info, emit)
}

func (b *Bridge) lookup(id a2a.TaskID) (a2a.TaskState, bool) {
	if b.cfg.Lookup == nil {
		return a2a.TaskStateWorking, true
	}
	return b.cfg.Lookup(id)
}

// start opens the generation: for A3S Code's shape first the event subscription (confirmations
// arrive there), then StreamGenerate.
func (b *Bridge) start(ctx context.Context, s *session, task a2a.TaskID, text string) (*generation, error) {
	pctx, cancel := b.call(ctx)
	d, err := b.c.probe(pctx)
	cancel()
	if err != nil {
		return nil, b.c.grpcErr("ConfirmToolExecution (dialect probe)", err)
	}
	gctx, stop := context.WithCancel(b.base)
	g := &generation{task: task, session: s.id, stop: stop, items: make(chan item, 64), calls: map[string]*callState{}}
	if d == A3S {
		b.subscribe(gctx, g)
	}
	stream, err := b.c.generate(gctx, d, s.id, text)
	if err != nil {
		stop()
		return nil, b.c.grpcErr("StreamGenerate", err)
	}
	go func() {
		for {
			raw, err := recv(stream)
			if err != nil {
				g.put(gctx, item{err: err})
				return
			}
			d, err := chunkDialect(raw)
			if errors.Is(err, errNoType) {
				continue // type unknown in both shapes: nothing to act on
			}
			if err == nil {
				err = b.c.learn(d)
			}
			var c *chunk
			if err == nil {
				c, err = decodeChunk(raw, d)
			}
			if err != nil {
				g.put(gctx, item{err: fmt.Errorf("A3S agent %s: %w", b.cfg.Addr, err)})
				stop()
				return
			}
			if !g.put(gctx, item{c: c}) {
				return
			}
		}
	}()
	return g, nil
}

func (g *generation) put(ctx context.Context, it item) bool {
	select {
	case g.items <- it:
		return true
	case <-ctx.Done():
		return false
	}
}

// subscribe follows the session's AgentEvents for confirmation requests. It waits for the
// stream's headers (the agent has subscribed by then) so that no event of the generation about
// to start is missed; an agent without SubscribeEvents simply never asks.
func (b *Bridge) subscribe(ctx context.Context, g *generation) {
	sid := g.session
	es, err := b.c.api.SubscribeEvents(ctx, &a3spb.SubscribeEventsRequest{SessionId: &sid})
	if err != nil {
		b.logf("A3S session %s: %v", sid, b.c.grpcErr("SubscribeEvents", err))
		return
	}
	// Bounded: an agent that sends its headers only with the first event would otherwise hold up every
	// generation; after the bound, a confirmation asked at once may be missed.
	hctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	ready := make(chan struct{})
	go func() {
		defer close(ready)
		_, _ = es.Header() //nolint:errcheck // an error shows again on Recv
	}()
	select {
	case <-ready:
	case <-hctx.Done():
	}
	go func() {
		for {
			ev, err := es.Recv()
			if err != nil {
				return
			}
			if ev.GetType() != a3spb.AgentEvent_EVENT_TYPE_CONFIRMATION_REQUIRED {
				continue
			}
			if ev.SessionId != nil && ev.GetSessionId() != sid {
				continue
			}
			d := ev.GetData()
			cs := &callState{id: d["tool_id"], name: d["tool_name"], args: d["args"]}
			if cs.id == "" || !g.put(ctx, item{confirm: cs}) {
				return
			}
		}
	}()
}

// abandon ends a generation nobody will read again: Cancel on the agent, then the streams.
func (b *Bridge) abandon(g *generation) {
	ctx, cancel := b.call(context.Background())
	defer cancel()
	if _, err := b.c.api.Cancel(ctx, &a3spb.CancelRequest{SessionId: g.session}); err != nil {
		b.logf("A3S session %s: %v", g.session, b.c.grpcErr("Cancel", err))
	}
	g.stop()
}

// call returns the state of tool call id, making it on first sight.
func (g *generation) call(id, name string) *callState {
	cs := g.calls[id]
	if cs == nil {
		cs = &callState{id: id, name: name, status: statusPending}
		g.calls[id] = cs
		g.order = append(g.order, id)
	}
	if cs.name == "" {
		cs.name = name
	}
	return cs
}

// open is the call a result without an id belongs to: the oldest one not finished (A3S Code
// runs the calls of a generation one after another and its ToolResult has no id).
func (g *generation) open() *callState {
	for _, id := range g.order {
		if cs := g.calls[id]; cs.status == statusPending || cs.status == statusExecuting {
			return cs
		}
	}
	return nil
}

// pump turns the generation's items into events until it ends or waits for an approval.
func (b *Bridge) pump(ctx context.Context, s *session, g *generation, info a2a.TaskInfo, emit func(a2a.Event)) (a2a.TaskState, *a2a.Message) {
	end := func(state a2a.TaskState, text string) (a2a.TaskState, *a2a.Message) {
		s.gen = nil
		g.stop()
		for _, id := range g.order {
			if cs := g.calls[id]; cs.rejected && cs.status != statusCancelled {
				cs.status, cs.errMsg = statusCancelled, "rejected"
				emit(toolEvent(info, cs))
			}
		}
		if g.artifact != "" {
			ev := a2a.NewArtifactUpdateEvent(info, g.artifact, a2a.NewTextPart(""))
			ev.Append, ev.LastChunk = true, true
			emit(ev)
		}
		if text == "" {
			return state, nil
		}
		return state, a2a.NewMessageForTask(a2a.MessageRoleAgent, info, a2a.NewTextPart(text))
	}
	ask := func(conf *callState) (a2a.TaskState, *a2a.Message) {
		cs := g.call(conf.id, conf.name)
		if conf.args != "" {
			cs.args = conf.args
		}
		cs.confirm, cs.status = true, statusPending
		emit(toolEvent(info, cs))
		g.pending = cs
		s.gen = g
		return a2a.TaskStateInputRequired, nil
	}
	if s.auto {
		// The client said auto_execute: announce each confirmation and approve it at once.
		inner := ask
		ask = func(conf *callState) (a2a.TaskState, *a2a.Message) {
			inner(conf) // announces the call; its input-required gives way to the answer
			return b.confirm(ctx, s, g, info, g.pending, true, optionApprove, emit)
		}
	}
	// A confirmation comes on the event stream, the chunks before it on the generation's: a request
	// for a call the chunks have not announced yet waits for that tool_call chunk (so the text
	// before it is not left for the next turn), or for confirmWait when the agent never announces it.
	var deferred *callState
	var timer <-chan time.Time
	for {
		var it item
		select {
		case <-ctx.Done():
			s.gen = nil
			b.abandon(g)
			return a2a.TaskStateCanceled, nil
		case <-timer:
			return ask(deferred)
		case it = <-g.items:
		}
		switch {
		case it.err != nil:
			if errors.Is(it.err, io.EOF) {
				return end(a2a.TaskStateFailed, fmt.Sprintf("A3S agent %s ended the stream without a done chunk", b.cfg.Addr))
			}
			if ctx.Err() != nil {
				continue // our own cancel: the case above reports it
			}
			return end(a2a.TaskStateFailed, b.c.grpcErr("StreamGenerate", it.err).Error())
		case it.confirm != nil:
			if _, seen := g.calls[it.confirm.id]; seen {
				return ask(it.confirm)
			}
			deferred, timer = it.confirm, time.After(confirmWait)
			continue
		}
		if state, text, done := b.apply(g, it.c, info, emit); done {
			return end(state, text)
		}
		if deferred != nil && it.c.kind == "tool_call" && it.c.call != nil && it.c.call.id == deferred.id {
			return ask(deferred)
		}
	}
}

// artifactName names the artifact of a generation's text.
const artifactName = "response"

// confirmWait bounds the wait for the tool_call chunk of a confirmation request.
const confirmWait = 2 * time.Second

// apply maps one chunk to events; done reports the end of the generation with its outcome.
func (b *Bridge) apply(g *generation, c *chunk, info a2a.TaskInfo, emit func(a2a.Event)) (state a2a.TaskState, text string, done bool) {
	switch c.kind {
	case "content":
		b.content(g, info, c.content, emit)
	case "tool_call":
		if c.call == nil || c.call.id == "" {
			return "", "", false
		}
		cs := g.call(c.call.id, c.call.name)
		if c.call.args != "" && c.call.args != "{}" || cs.args == "" {
			cs.args = c.call.args
		}
		if c.call.result != nil {
			finishCall(cs, c.call.result)
		}
		emit(toolEvent(info, cs))
	case "tool_output_delta":
		if cs := g.open(); cs != nil {
			cs.status = statusExecuting
			cs.live += c.content
			emit(toolEvent(info, cs))
		}
	case "tool_result":
		cs := g.resultCall(c)
		if cs == nil || c.result == nil {
			return "", "", false
		}
		finishCall(cs, c.result)
		emit(toolEvent(info, cs))
	case "metadata":
		if r := reasoning(c.meta); r != "" {
			emit(thoughtEvent(info, r))
		}
	case "done":
		if !g.text && c.content != "" {
			b.content(g, info, c.content, emit) // A3S Code repeats the whole text in done: only when nothing streamed
		}
		state, text = outcome(c)
		return state, text, true
	}
	return "", "", false
}

// resultCall finds the call a tool_result belongs to: by an id in its metadata, else the oldest
// open call.
func (g *generation) resultCall(c *chunk) *callState {
	if c.result != nil {
		for _, k := range []string{"tool_call_id", "tool_id", "id"} {
			if id := c.result.meta[k]; id != "" {
				return g.call(id, "")
			}
		}
	}
	if c.call != nil && c.call.id != "" {
		return g.call(c.call.id, c.call.name)
	}
	return g.open()
}

func finishCall(cs *callState, r *toolResult) {
	cs.output, cs.errMsg = r.output, r.error
	switch {
	case cs.rejected:
		cs.status = statusCancelled
		if cs.errMsg == "" {
			cs.errMsg = "rejected"
		}
	case r.success:
		cs.status = statusSucceeded
	default:
		cs.status = statusFailed
		if cs.errMsg == "" {
			cs.errMsg = "the tool failed"
		}
	}
}

func (b *Bridge) content(g *generation, info a2a.TaskInfo, text string, emit func(a2a.Event)) {
	if text == "" {
		return
	}
	g.text = true
	if g.artifact == "" {
		ev := a2a.NewArtifactEvent(info, a2a.NewTextPart(text))
		ev.Artifact.Name = artifactName
		g.artifact = ev.Artifact.ID
		emit(ev)
		return
	}
	ev := a2a.NewArtifactUpdateEvent(info, g.artifact, a2a.NewTextPart(text))
	ev.Artifact.Name = artifactName // a client that joins later (the answer of another process) sees its name
	ev.Append = true
	emit(ev)
}

// outcome maps the done chunk's finish reason to the task's end.
func outcome(c *chunk) (a2a.TaskState, string) {
	switch c.finish {
	case "", "stop", "tool_calls", "end_turn":
		return a2a.TaskStateCompleted, ""
	case "error":
		msg := c.meta["error"]
		if msg == "" {
			msg = c.content
		}
		if msg == "" {
			msg = "the A3S agent reported an error without a message"
		}
		return a2a.TaskStateFailed, msg
	case "length":
		return a2a.TaskStateCompleted, "stopped early: the model reached its output length limit (finish_reason length)"
	case "content_filter":
		return a2a.TaskStateCompleted, "stopped early: the model's content filter ended the answer (finish_reason content_filter)"
	}
	return a2a.TaskStateCompleted, fmt.Sprintf("stopped: finish_reason %s", c.finish)
}

// answer sends the answer to the waiting tool call and goes on with the generation. A message
// that is not that answer leaves the task waiting, saying what it waits for.
func (b *Bridge) answer(ctx context.Context, s *session, g *generation, info a2a.TaskInfo, msg *a2a.Message, emit func(a2a.Event)) (a2a.TaskState, *a2a.Message) {
	cs := g.pending
	id, option, ok := answerOf(msg)
	if !ok || cs == nil || id != cs.id {
		emit(toolEvent(info, cs))
		text := fmt.Sprintf("tool call %s (%s) waits for approval: answer with {\"tool_call_id\":%q,\"selected_option_id\":%q} or %q",
			cs.id, cs.name, cs.id, optionApprove, optionReject)
		return a2a.TaskStateInputRequired, a2a.NewMessageForTask(a2a.MessageRoleAgent, info, a2a.NewTextPart(text))
	}
	return b.confirm(ctx, s, g, info, cs, !rejects(option), option, emit)
}

// confirm sends the decision on the waiting call cs with ConfirmToolExecution and goes on with the generation.
func (b *Bridge) confirm(ctx context.Context, s *session, g *generation, info a2a.TaskInfo, cs *callState, approved bool, option string, emit func(a2a.Event)) (a2a.TaskState, *a2a.Message) {
	req := &a3spb.ConfirmToolExecutionRequest{SessionId: s.id, ToolId: cs.id, Approved: approved}
	if !approved {
		reason := "rejected by the user (A2A option " + option + ")"
		req.Reason = &reason
	}
	cctx, cancel := b.call(ctx)
	resp, err := b.c.api.ConfirmToolExecution(cctx, req)
	cancel()
	if err != nil {
		s.gen = nil
		b.abandon(g)
		return a2a.TaskStateFailed, a2a.NewMessageForTask(a2a.MessageRoleAgent, info,
			a2a.NewTextPart(b.c.grpcErr("ConfirmToolExecution", err).Error()))
	}
	if !resp.GetSuccess() {
		b.logf("A3S session %s: ConfirmToolExecution %s: %s", s.id, cs.id, resp.GetError())
	}
	g.pending = nil
	s.gen = nil
	if approved {
		cs.status = statusExecuting
		emit(toolEvent(info, cs))
	} else {
		// Reported when the agent's result comes (with its reason), or at the end of the generation.
		cs.rejected = true
	}
	return b.pump(ctx, s, g, info, emit)
}

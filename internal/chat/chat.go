package chat

import (
	"context"
	"errors"
	"fmt"
	"io"
	"iter"
	"strings"
	"time"

	"github.com/a2acli/a2a/internal/client"
	"github.com/a2acli/a2a/internal/coder"
	"github.com/a2acli/a2a/internal/follow"
	"github.com/a2acli/a2a/internal/output"
	"github.com/a2aproject/a2a-go/v2/a2a"
)

// Help is the chat's own commands, printed by /help.
const Help = `/new    start a new conversation (new context)
/quit   leave (also /exit, Ctrl-D, or Ctrl-C twice)
/help   this text
Ctrl-C cancels the running turn. At a permission prompt: y (yes once, Enter), a (always), n (no), or a number.`

// Session is one chat: where it reads and writes, how a turn is made, and the ids that carry over between turns.
// The caller owns the terminal (raw mode, size): a Session only reads In's events and writes through Err and the
// turn's printer.
type Session struct {
	// URL names the agent, for the hints a turn prints.
	URL string
	// In is the input line; it also answers permission prompts.
	In *coder.ChatInput
	// Err gets the session's own lines (greeting, notes, errors); Log is the -v log.
	Err io.Writer
	Log *client.Log
	// Tenant goes on CancelTask.
	Tenant string
	// TaskID and ContextID start the chat in a task or context (empty: new ones).
	TaskID    a2a.TaskID
	ContextID string
	// Prepare, if set, edits each outgoing message (the development-tool AgentSettings).
	Prepare func(*a2a.Message)
	// NewTurn makes a turn on c that renders through the printer it returns; the session closes the printer.
	NewTurn func(c *client.Conn) (*follow.Turn, *output.Printer)
	// shownTask is the task whose header was printed last: a later turn of it prints only its state.
	shownTask a2a.TaskID
	// prior is TaskID's status at the end of the last turn: the state a follow-up's answer may start with, which is
	// not the agent's answer (follow.FollowUp).
	prior *a2a.TaskStatus
}

// Run greets, then reads lines until the user leaves: a line is a message, a /word a chat command.
func (s *Session) Run(ctx context.Context, c *client.Conn) error {
	name := "agent"
	if c.Card != nil && c.Card.Name != "" {
		name = c.Card.Name
	}
	fmt.Fprintf(s.Err, "chatting with %s; /help for help, Ctrl-D to leave\n", output.Line(name))
	lastCtrlC := false
	for {
		s.In.Prompt("> ")
		ev, err := s.In.Next(ctx)
		if err != nil {
			return err
		}
		switch ev.Kind {
		case coder.InputEOF:
			return nil
		case coder.InputCtrlC:
			if lastCtrlC {
				return nil
			}
			lastCtrlC = true
			fmt.Fprintln(s.Err, "(Ctrl-C again, Ctrl-D or /quit to leave)")
			continue
		}
		lastCtrlC = false
		line := strings.TrimSpace(ev.Line)
		if line == "" {
			continue
		}
		if strings.HasPrefix(line, "/") {
			if quit := s.command(line); quit {
				return nil
			}
			continue
		}
		if s.turn(ctx, c, line) {
			lastCtrlC = true
		}
	}
}

// command runs a chat command; it reports whether to leave.
func (s *Session) command(line string) bool {
	switch strings.Fields(line)[0] {
	case "/quit", "/exit", "/q":
		return true
	case "/new":
		s.TaskID, s.ContextID, s.prior = "", "", nil
		fmt.Fprintln(s.Err, "(new conversation)")
	case "/help", "/?":
		fmt.Fprintln(s.Err, Help)
	default:
		fmt.Fprintf(s.Err, "unknown command %s: /help lists them\n", output.Sanitize(strings.Fields(line)[0]))
	}
	return false
}

// turn sends one message and streams the reply, answering permission prompts inline. It reports whether Ctrl-C
// cancelled it (so that a second Ctrl-C at the prompt leaves).
func (s *Session) turn(ctx context.Context, c *client.Conn, text string) (cancelled bool) {
	msg := a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart(text))
	msg.TaskID, msg.ContextID = s.TaskID, s.ContextID
	if s.Prepare != nil {
		s.Prepare(msg)
	}
	req := &a2a.SendMessageRequest{Message: msg, Tenant: s.Tenant}

	tctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	s.In.Busy.Store(true)
	defer s.In.Busy.Store(false)
	s.In.Prompt("") // a read must be outstanding for Ctrl-C to be seen
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		select {
		case <-s.In.Intr:
			cancel(errTurnCancelled)
		case <-stop:
		}
	}()

	t, p := s.NewTurn(c)
	t.Ask = s.In
	if msg.TaskID != "" {
		t.FollowUp = &follow.FollowUp{MsgID: msg.ID, Prior: s.prior}
	}
	emit := t.Emit
	t.Emit = func(ev a2a.Event) error {
		// A later turn of the same task starts with the task again: show its state, not the whole header; and not
		// even that while it is the state from before this message (the question the user just answered).
		if task, ok := ev.(*a2a.Task); ok {
			if task.ID == s.shownTask && t.Held() {
				return nil
			}
			if task.ID == s.shownTask {
				ev = &a2a.TaskStatusUpdateEvent{TaskID: task.ID, ContextID: task.ContextID, Status: task.Status}
			}
			s.shownTask = task.ID
		}
		return emit(ev)
	}
	sent := time.Now()
	err := t.Run(tctx, func(ctx context.Context) iter.Seq2[a2a.Event, error] {
		return c.SendStreamingMessage(ctx, req)
	})
	if err != nil && msg.TaskID != "" && t.View.Task == nil && t.View.Message == nil {
		err = s.afterRefusal(tctx, t, msg.TaskID, sent, err)
	}
	p.Close() //nolint:errcheck // a broken terminal shows up on the next write
	s.remember(&t.View)
	switch {
	case errors.Is(context.Cause(tctx), errTurnCancelled):
		fmt.Fprintln(s.Err, "(turn cancelled)")
		s.cancelTask(ctx, c)
		return true
	case err != nil:
		fmt.Fprintf(s.Err, "error: %s\n", output.Sanitize(oneLine(err.Error())))
	case t.Stopped:
		fmt.Fprintln(s.Err, "(tool calls left waiting: your next message goes to the agent as is)")
	}
	return false
}

var errTurnCancelled = errors.New("turn cancelled")

// afterRefusal follows the task of a follow-up the agent refused while the task waited for credentials (A2A §7.6),
// as send --task does: an agent that goes on by itself once it has them answers with the task's end.
func (s *Session) afterRefusal(ctx context.Context, t *follow.Turn, id a2a.TaskID, sent time.Time, sendErr error) error {
	var announced bool
	final, err, followed := t.Env.AfterRefusal(ctx, t.C, follow.Refusal{URL: t.URL, ID: id, Sent: sent, Err: sendErr}, func(task *a2a.Task) {
		if !announced {
			announced = true
			fmt.Fprintf(s.Err, "(the agent did not take the message; task %s, which waited for credentials, goes on)\n", output.Sanitize(string(id)))
		}
		_ = t.Emit(&a2a.TaskStatusUpdateEvent{TaskID: task.ID, ContextID: task.ContextID, Status: task.Status})
	})
	if !followed {
		return sendErr
	}
	if err != nil {
		if errors.Is(err, follow.ErrStillWaitsForCredentials) {
			fmt.Fprintf(s.Err, "(task %s still waits for credentials: a2a auth login, then a new chat with --task %s)\n",
				output.Sanitize(string(id)), output.Sanitize(string(id)))
		}
		return err
	}
	t.View.Task = final
	if err := t.Emit(&a2a.TaskStatusUpdateEvent{TaskID: final.ID, ContextID: final.ContextID, Status: final.Status}); err != nil {
		return err
	}
	for _, a := range final.Artifacts {
		if err := t.Emit(&a2a.TaskArtifactUpdateEvent{TaskID: final.ID, ContextID: final.ContextID, Artifact: a}); err != nil {
			return err
		}
	}
	return nil
}

// remember keeps the ids for the next turn: the context always, the task while it can take more input.
func (s *Session) remember(v *follow.View) {
	switch {
	case v.Task != nil:
		s.ContextID = v.Task.ContextID
		s.TaskID = v.Task.ID
		st := v.Task.Status
		s.prior = &st
		if v.Task.Status.State.Terminal() {
			s.TaskID, s.prior = "", nil
		}
	case v.Message != nil:
		if v.Message.ContextID != "" {
			s.ContextID = v.Message.ContextID
		}
		s.TaskID, s.prior = "", nil
	}
}

// cancelTask asks the agent to cancel the abandoned task (best effort: an agent like the Gemini CLI server already
// aborted it when the stream's connection closed).
func (s *Session) cancelTask(ctx context.Context, c *client.Conn) {
	if s.TaskID == "" {
		return
	}
	_, err := client.Unary(ctx, c, func(ctx context.Context) (*a2a.Task, error) {
		return c.CancelTask(ctx, &a2a.CancelTaskRequest{ID: s.TaskID, Tenant: s.Tenant})
	})
	if err != nil {
		s.Log.Printf("cancel task %s: %v", s.TaskID, err)
	}
	s.TaskID, s.prior = "", nil
}

// oneLine folds an error's text onto one line.
func oneLine(s string) string {
	return strings.Join(strings.Fields(strings.ReplaceAll(s, "\n", " ")), " ")
}

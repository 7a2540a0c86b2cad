package cli

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"strings"

	"github.com/a2acli/a2a/internal/client"
	"github.com/a2acli/a2a/internal/coder"
	"github.com/a2acli/a2a/internal/follow"
	"github.com/a2acli/a2a/internal/output"
	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/spf13/cobra"
	"golang.org/x/term"
)

type chatOptions struct {
	f         *factory
	url       string
	contextID string
	taskID    string
	dt        devtoolOptions
}

const chatHelp = `/new    start a new conversation (new context)
/quit   leave (also /exit, Ctrl-D, or Ctrl-C twice)
/help   this text
Ctrl-C cancels the running turn. At a permission prompt: y (yes once, Enter), a (always), n (no), or a number.`

func newChatCmd(f *factory, runF func(context.Context, *chatOptions) error) *cobra.Command {
	o := &chatOptions{f: f}
	cmd := &cobra.Command{
		Use:   "chat <url>",
		Short: "Talk to an agent interactively on a terminal",
		Long: `An interactive session with an agent on a terminal: each line you type is a message; the context and the task
carry over between turns. Replies render as send --stream does, coding agents included: permission prompts are
asked inline. Line editing and history (arrow keys) work. Ctrl-C cancels the running turn, a second Ctrl-C (or
Ctrl-D, or /quit) leaves. Needs a terminal on stdin and stdout; scripts use 'a2a send'.

` + chatHelp,
		Example: `  a2a chat localhost:8080
  a2a chat localhost:41242 --workspace .`,
		Args: exactArgs("<url>"),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.url = args[0]
			if !f.io.InTTY || !f.io.OutTTY {
				return client.WithHint(&client.UsageError{Msg: "chat needs a terminal on stdin and stdout", Cmd: cmd.CommandPath()},
					"use 'a2a send' in scripts and pipes")
			}
			if err := o.dt.check(o.taskID); err != nil {
				return err
			}
			if runF != nil {
				return runF(cmd.Context(), o)
			}
			return runChat(cmd.Context(), o)
		},
	}
	cmd.Flags().StringVar(&o.contextID, "context", "", "continue a conversation: start in this context")
	cmd.Flags().StringVar(&o.taskID, "task", "", "continue an existing task")
	addDevtoolFlags(cmd, &o.dt, false)
	return cmd
}

func runChat(ctx context.Context, o *chatOptions) error {
	in, ok := o.f.io.In.(coder.FDReader)
	if !ok {
		return client.Usagef("chat needs a terminal on stdin")
	}
	state, err := term.MakeRaw(int(in.Fd()))
	if err != nil {
		return fmt.Errorf("terminal raw mode: %w", err)
	}
	defer term.Restore(int(in.Fd()), state) //nolint:errcheck // nothing better to do on the way out
	ci := coder.NewChatInput(in, o.f.io.Out)
	go ci.Loop()
	defer close(ci.Want)
	if o.f.io.Width > 0 {
		ci.Term.SetSize(o.f.io.Width, 0) //nolint:errcheck // only the width matters to line editing
	}
	defer coder.FollowResize(int(in.Fd()), ci.Term)()
	// Everything goes through the terminal writer: it turns \n into \r\n (raw mode) and keeps the input line intact.
	cf := *o.f
	cf.io = &Streams{In: in, Out: ci.Term, Err: ci.Term, InTTY: true, OutTTY: true, ErrTTY: true, Getenv: o.f.io.Getenv, Width: o.f.io.Width}
	cf.log = &client.Log{W: ci.Term, Enabled: o.f.log != nil && o.f.log.Enabled}
	cf.dial = nil // the chat's own dialer logs and warns through the terminal writer
	cs := &chatSession{o: o, f: &cf, in: ci, taskID: a2a.TaskID(o.taskID), contextID: o.contextID}
	return cf.withClient(ctx, o.url, cs.run)
}

// chatSession is one chat: the ids that carry over between turns.
type chatSession struct {
	o         *chatOptions
	f         *factory
	in        *coder.ChatInput
	taskID    a2a.TaskID
	contextID string
	// shownTask is the task whose header was printed last: a later turn of it prints only its state.
	shownTask a2a.TaskID
}

func (s *chatSession) run(ctx context.Context, c *client.Conn) error {
	name := "agent"
	if c.Card != nil && c.Card.Name != "" {
		name = c.Card.Name
	}
	fmt.Fprintf(s.f.io.Err, "chatting with %s; /help for help, Ctrl-D to leave\n", output.Sanitize(name))
	lastCtrlC := false
	for {
		s.in.Prompt("> ")
		ev, err := s.in.Next(ctx)
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
			fmt.Fprintln(s.f.io.Err, "(Ctrl-C again, Ctrl-D or /quit to leave)")
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
func (s *chatSession) command(line string) bool {
	switch strings.Fields(line)[0] {
	case "/quit", "/exit", "/q":
		return true
	case "/new":
		s.taskID, s.contextID = "", ""
		fmt.Fprintln(s.f.io.Err, "(new conversation)")
	case "/help", "/?":
		fmt.Fprintln(s.f.io.Err, chatHelp)
	default:
		fmt.Fprintf(s.f.io.Err, "unknown command %s: /help lists them\n", output.Sanitize(strings.Fields(line)[0]))
	}
	return false
}

// turn sends one message and streams the reply, answering permission prompts inline. It reports whether Ctrl-C
// cancelled it (so that a second Ctrl-C at the prompt leaves).
func (s *chatSession) turn(ctx context.Context, c *client.Conn, text string) (cancelled bool) {
	msg := a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart(text))
	msg.TaskID, msg.ContextID = s.taskID, s.contextID
	s.o.dt.applySettings(msg)
	req := &a2a.SendMessageRequest{Message: msg, Tenant: s.f.opts.Tenant}

	tctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	s.in.Busy.Store(true)
	defer s.in.Busy.Store(false)
	s.in.Prompt("") // a read must be outstanding for Ctrl-C to be seen
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		select {
		case <-s.in.Intr:
			cancel(errTurnCancelled)
		case <-stop:
		}
	}()

	p := s.f.printer()
	t := s.f.newTurn(c, s.o.url, &s.o.dt, p)
	t.Ask = s.in
	emit := t.Emit
	t.Emit = func(ev a2a.Event) error {
		// A later turn of the same task starts with the task again: show its state, not the whole header.
		if task, ok := ev.(*a2a.Task); ok {
			if task.ID == s.shownTask {
				ev = &a2a.TaskStatusUpdateEvent{TaskID: task.ID, ContextID: task.ContextID, Status: task.Status}
			}
			s.shownTask = task.ID
		}
		return emit(ev)
	}
	err := t.Run(tctx, func(ctx context.Context) iter.Seq2[a2a.Event, error] {
		return c.SendStreamingMessage(ctx, req)
	})
	p.Close() //nolint:errcheck // a broken terminal shows up on the next write
	s.remember(&t.View)
	switch {
	case errors.Is(context.Cause(tctx), errTurnCancelled):
		fmt.Fprintln(s.f.io.Err, "(turn cancelled)")
		s.cancelTask(ctx, c)
		return true
	case err != nil:
		fmt.Fprintf(s.f.io.Err, "error: %s\n", output.Sanitize(oneLine(err.Error())))
	case t.Stopped:
		fmt.Fprintln(s.f.io.Err, "(tool calls left waiting: your next message goes to the agent as is)")
	}
	return false
}

var errTurnCancelled = errors.New("turn cancelled")

// remember keeps the ids for the next turn: the context always, the task while it can take more input.
func (s *chatSession) remember(v *follow.View) {
	switch {
	case v.Task != nil:
		s.contextID = v.Task.ContextID
		s.taskID = v.Task.ID
		if v.Task.Status.State.Terminal() {
			s.taskID = ""
		}
	case v.Message != nil:
		if v.Message.ContextID != "" {
			s.contextID = v.Message.ContextID
		}
		s.taskID = ""
	}
}

// cancelTask asks the agent to cancel the abandoned task (best effort: an agent like the Gemini CLI server already
// aborted it when the stream's connection closed).
func (s *chatSession) cancelTask(ctx context.Context, c *client.Conn) {
	if s.taskID == "" {
		return
	}
	_, err := client.Unary(ctx, c, func(ctx context.Context) (*a2a.Task, error) {
		return c.CancelTask(ctx, &a2a.CancelTaskRequest{ID: s.taskID, Tenant: s.f.opts.Tenant})
	})
	if err != nil {
		s.f.log.Printf("cancel task %s: %v", s.taskID, err)
	}
	s.taskID = ""
}

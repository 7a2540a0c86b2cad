package chat

import (
	"context"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/a2acli/a2a/internal/client"
	"github.com/a2acli/a2a/internal/coder"
	"github.com/a2acli/a2a/internal/follow"
	"github.com/a2acli/a2a/internal/output"
	"github.com/a2acli/a2a/internal/syncbuf"
	"github.com/a2acli/a2a/internal/testagent"
	"github.com/a2acli/a2a/internal/testagent/wire"
	"github.com/a2aproject/a2a-go/v2/a2a"
)

// chatRun is one chat session run in process: a reference agent, the typed keys as a terminal in raw mode would
// send them, and everything the terminal would show.
type chatRun struct {
	agent   *testagent.Agent
	screen  string
	err     error
	session *Session
}

// runChat runs a session against a reference agent with behaviour b, typing keys, until the session ends.
func runChat(t *testing.T, b testagent.Behavior, keys string, edit func(*Session)) *chatRun {
	t.Helper()
	agent := testagent.Start(t, testagent.Options{Behavior: b})
	r := runChatAt(t, agent.URL, keys, edit)
	r.agent = agent
	return r
}

// runChatAt runs a session against the agent at url.
func runChatAt(t *testing.T, url, keys string, edit func(*Session)) *chatRun {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var screen syncbuf.Buffer
	log := &client.Log{W: io.Discard}
	c, err := client.NewDialer(&client.Options{}, log, io.Discard).Connect(ctx, url)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	defer c.Destroy() //nolint:errcheck // test cleanup

	pr, pw := io.Pipe()
	defer pw.Close()
	ci := coder.NewChatInput(pr, &screen)
	go ci.Loop()
	defer close(ci.Want)
	go func() {
		// A key script holds steps split by waitMark: a step after the mark waits until its first line shows on
		// the screen, then types the rest (a user types after seeing something).
		for i, step := range strings.Split(keys, waitMark) {
			if i > 0 {
				show, rest, _ := strings.Cut(step, "\n")
				tick := time.NewTicker(time.Millisecond) // polling the screen: there is no event for "shown"
				for !strings.Contains(screen.String(), show) {
					select {
					case <-ctx.Done():
						tick.Stop()
						return
					case <-tick.C:
					}
				}
				tick.Stop()
				step = rest
			}
			if _, err := pw.Write([]byte(step)); err != nil {
				return // the session left before reading it all
			}
		}
		pw.Close()
	}()
	s := &Session{
		URL: url, In: ci, Err: ci.Term, Log: log,
		NewTurn: func(c *client.Conn) (*follow.Turn, *output.Printer) {
			p := output.New(ci.Term, output.Options{Width: 80, NoRestate: true})
			return follow.New(&follow.Env{Log: log}, c, url, follow.Answers{Timeout: 10 * time.Second}, p), p
		},
	}
	if edit != nil {
		edit(s)
	}
	err = s.Run(ctx, c)
	return &chatRun{screen: strings.ReplaceAll(screen.String(), "\r", ""), err: err, session: s}
}

// waitMark in a key script: wait until the text up to the next newline shows, then type what follows.
const waitMark = "\x00wait:"

func (r *chatRun) want(t *testing.T, subs ...string) {
	t.Helper()
	for _, sub := range subs {
		if !strings.Contains(r.screen, sub) {
			t.Errorf("screen lacks %q; it shows:\n%s", sub, r.screen)
		}
	}
}

// TestChatTurnsAndLeaving: a line is a message whose reply is rendered; the greeting names the agent; Ctrl-D (the
// end of input) leaves without an error.
func TestChatTurnsAndLeaving(t *testing.T) {
	r := runChat(t, testagent.Echo, "hello\r\r   \rsecond\r", nil)
	if r.err != nil {
		t.Fatalf("Run = %v, want nil at the end of input", r.err)
	}
	r.want(t, "chatting with Test Agent echo; /help for help", "echo: hello", "echo: second")
	sends := 0
	for _, c := range r.agent.Calls() {
		if c.Method == "SendStreamingMessage" {
			sends++
		}
	}
	if sends != 2 {
		t.Errorf("the agent got %d streamed messages, want 2 (blank lines send nothing); calls %+v", sends, r.agent.Calls())
	}
	// The echo tasks completed: the next message starts a new task in the same context.
	if r.session.TaskID != "" || r.session.ContextID == "" {
		t.Errorf("after completed turns TaskID=%q ContextID=%q, want no task and the context kept", r.session.TaskID, r.session.ContextID)
	}
}

// TestChatHeaderOncePerTask: the second turn of an input-required task continues it (same task id) and shows its
// state, not the task's header again (a2a-go's server streams only updates for a follow-up; see
// TestChatHeaderOncePerTaskResent for an agent that resends the task).
func TestChatHeaderOncePerTask(t *testing.T) {
	r := runChat(t, testagent.InputRequired, "hi\rBob\r", nil)
	if r.err != nil {
		t.Fatalf("Run = %v", r.err)
	}
	r.want(t, testagent.Question, "hello, Bob")
	if n := strings.Count(r.screen, "Task ID:"); n != 1 {
		t.Errorf("the task header shows %d times, want once:\n%s", n, r.screen)
	}
	if n := strings.Count(r.screen, "State: input-required"); n != 1 {
		t.Errorf("input-required shows %d times, want once:\n%s", n, r.screen)
	}
}

// TestChatHeaderOncePerTaskResent: an agent that starts every answer with the whole task (as the Gemini CLI
// server does) still gets the task's header shown once; the later turn shows the task's state instead.
func TestChatHeaderOncePerTaskResent(t *testing.T) {
	r := runChatAt(t, wire.TaskEveryTurn(t), "hi\r"+waitMark+"what is your name?\nBob\r", nil)
	if r.err != nil {
		t.Fatalf("Run = %v", r.err)
	}
	r.want(t, "what is your name?", "hello, Bob", "State: working", "State: completed")
	if n := strings.Count(r.screen, "Task ID:"); n != 1 {
		t.Errorf("the task header shows %d times, want once:\n%s", n, r.screen)
	}
}

// TestChatFollowUpShowsTheAnswer: an agent that answers the next turn by first sending the task as it stands (still
// input-required with the question, as a2a-js agents do) gets only its answer shown: the question the user just
// answered is not shown again.
func TestChatFollowUpShowsTheAnswer(t *testing.T) {
	r := runChatAt(t, wire.StartAsker(t, true).URL, "ask\r"+waitMark+"what is your name?\nBob\r"+waitMark+"hello, Bob\n/quit\r", nil)
	if r.err != nil {
		t.Fatalf("Run = %v", r.err)
	}
	r.want(t, "what is your name?", "State: working", "hello, Bob", "State: completed")
	if n := strings.Count(r.screen, "what is your name?"); n != 1 {
		t.Errorf("the question shows %d times, want once:\n%s", n, r.screen)
	}
}

// TestChatCommands: /help prints the help, an unknown command is named, /new forgets the conversation, /quit
// leaves before the lines after it are sent.
func TestChatCommands(t *testing.T) {
	r := runChat(t, testagent.InputRequired, "hi\r/help\r/bogus\r/new\r/quit\rnever sent\r", nil)
	if r.err != nil {
		t.Fatalf("Run = %v", r.err)
	}
	r.want(t, Help, "unknown command /bogus: /help lists them", "(new conversation)")
	if r.session.TaskID != "" || r.session.ContextID != "" {
		t.Errorf("after /new TaskID=%q ContextID=%q, want both empty", r.session.TaskID, r.session.ContextID)
	}
	if strings.Contains(r.screen, "never sent") {
		t.Errorf("a line after /quit was read:\n%s", r.screen)
	}
	for _, c := range r.agent.Calls() {
		if c.Method == "SendStreamingMessage" || c.Method == "SendMessage" {
			continue
		}
		t.Errorf("unexpected call %s", c.Method)
	}
}

// TestChatCtrlCTwiceLeaves: one Ctrl-C at the prompt says how to leave, a second one leaves.
func TestChatCtrlCTwiceLeaves(t *testing.T) {
	r := runChat(t, testagent.Echo, "\x03\x03never sent\r", nil)
	if r.err != nil {
		t.Fatalf("Run = %v", r.err)
	}
	r.want(t, "(Ctrl-C again, Ctrl-D or /quit to leave)")
	if n := len(r.agent.Calls()); n != 0 {
		t.Errorf("the agent got %d calls, want none", n)
	}
}

// TestChatPrepareAndStart: Prepare sees every message, which carries the ids the chat started with.
func TestChatPrepareAndStart(t *testing.T) {
	var seen []*a2a.Message
	r := runChat(t, testagent.Echo, "one\r", func(s *Session) {
		s.ContextID = "ctx-given"
		s.Prepare = func(m *a2a.Message) { seen = append(seen, m) }
	})
	if r.err != nil {
		t.Fatalf("Run = %v", r.err)
	}
	if len(seen) != 1 || seen[0].ContextID != "ctx-given" {
		t.Fatalf("Prepare saw %+v, want one message in context ctx-given", seen)
	}
	if r.session.ContextID != "ctx-given" {
		t.Errorf("ContextID = %q, want the agent's context ctx-given kept", r.session.ContextID)
	}
}

// TestChatFailedTaskKeepsGoing: a failed task is shown and the next line starts a new task.
func TestChatFailedTaskKeepsGoing(t *testing.T) {
	r := runChat(t, testagent.Fail, "one\rtwo\r", nil)
	if r.err != nil {
		t.Fatalf("Run = %v", r.err)
	}
	r.want(t, "State: failed", "Status Message: boom")
	if n := strings.Count(r.screen, "Task ID:"); n != 2 {
		t.Errorf("%d task headers, want 2 (a failed task is over: a new one starts):\n%s", n, r.screen)
	}
}

// TestChatCtrlCCancelsTurn: Ctrl-C during a turn cancels it, not the chat; a second Ctrl-C then leaves at once.
func TestChatCtrlCCancelsTurn(t *testing.T) {
	r := runChat(t, testagent.Slow, "wait\r\x03"+waitMark+"(turn cancelled)\n\x03never sent\r", nil)
	if r.err != nil {
		t.Fatalf("Run = %v", r.err)
	}
	r.want(t, "(turn cancelled)")
	if strings.Contains(r.screen, "Ctrl-C again") || strings.Contains(r.screen, "never sent") {
		t.Errorf("the Ctrl-C after a cancelled turn did not leave:\n%s", r.screen)
	}
}

package e2e

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"

	"github.com/a2acli/a2a/internal/testagent/wire"
)

// The permission prompt and chat driven through a real pseudo-terminal: a2a sees a terminal on stdin, stdout and
// stderr, as a user's shell gives it.

// ptyProc is the binary running on a pseudo-terminal, with everything it wrote so far.
type ptyProc struct {
	t       *testing.T
	cmd     *exec.Cmd
	tty     *os.File
	mu      sync.Mutex
	screen  bytes.Buffer
	changed chan struct{} // closed and replaced on every write to screen
	mark    int           // waitFor searches from here
	done    chan struct{}
	err     error
}

func startPTY(t *testing.T, args ...string) *ptyProc {
	t.Helper()
	return startPTYWith(t, []string{"TERM=xterm", "NO_COLOR=1"}, args...)
}

// startPTYWith is startPTY with the given environment variables instead of TERM=xterm and NO_COLOR=1.
func startPTYWith(t *testing.T, env []string, args ...string) *ptyProc {
	t.Helper()
	return startPTYSize(t, 120, env, args...)
}

// startPTYSize is startPTYWith on a terminal cols columns wide.
func startPTYSize(t *testing.T, cols uint16, env []string, args ...string) *ptyProc {
	t.Helper()
	return startPTYCommand(t, cols, env, bin, args...)
}

// startPTYCommand runs name with args on a pseudo-terminal cols columns wide, in a session of its own (its process
// group is its pid), which is killed whole at cleanup: the command and whatever it started in the background.
func startPTYCommand(t *testing.T, cols uint16, env []string, name string, args ...string) *ptyProc {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Env = cmdEnv(env...)
	tty, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 50, Cols: cols})
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	p := &ptyProc{t: t, cmd: cmd, tty: tty, changed: make(chan struct{}), done: make(chan struct{})}
	go p.read()
	t.Cleanup(func() {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) //nolint:errcheck // gone already when it ended well
		<-p.done
		cancel()
		tty.Close()
	})
	return p
}

func (p *ptyProc) read() {
	buf := make([]byte, 4096)
	for {
		n, err := p.tty.Read(buf)
		p.mu.Lock()
		p.screen.Write(buf[:n])
		close(p.changed)
		p.changed = make(chan struct{})
		p.mu.Unlock()
		if err != nil {
			// EIO: the process exited and closed the terminal.
			p.err = p.cmd.Wait()
			close(p.done)
			return
		}
	}
}

// waitFor waits until sub appears after the previous match, and moves past it.
func (p *ptyProc) waitFor(sub string) {
	p.t.Helper()
	deadline := time.NewTimer(30 * time.Second)
	defer deadline.Stop()
	for {
		p.mu.Lock()
		s, changed := p.screen.String(), p.changed
		if i := strings.Index(s[p.mark:], sub); i >= 0 {
			p.mark += i + len(sub)
			p.mu.Unlock()
			return
		}
		p.mu.Unlock()
		select {
		case <-changed:
		case <-p.done:
			p.mu.Lock()
			s = p.screen.String()
			p.mu.Unlock()
			if !strings.Contains(s[p.mark:], sub) {
				p.t.Fatalf("a2a exited (%v) without writing %q; screen:\n%s", p.err, sub, s)
			}
		case <-deadline.C:
			p.t.Fatalf("no %q within 30s; screen:\n%s", sub, s)
		}
	}
}

func (p *ptyProc) write(s string) {
	p.t.Helper()
	if _, err := p.tty.WriteString(s); err != nil {
		p.t.Fatal(err)
	}
}

// wait waits for the process to exit and returns its exit code.
func (p *ptyProc) wait() int {
	p.t.Helper()
	select {
	case <-p.done:
	case <-time.After(30 * time.Second):
		p.t.Fatalf("a2a did not exit within 30s; screen:\n%s", p.text())
	}
	var ee *exec.ExitError
	if errors.As(p.err, &ee) {
		return ee.ExitCode()
	}
	if p.err != nil {
		p.t.Fatal(p.err)
	}
	return 0
}

// wantSuccess waits for the process to exit and fails the test, showing the screen, unless it exited 0.
func (p *ptyProc) wantSuccess() {
	p.t.Helper()
	if code := p.wait(); code != 0 {
		p.t.Fatalf("exit %d, want 0; screen:\n%s", code, p.text())
	}
}

// answer waits for prompt, then types line.
func (p *ptyProc) answer(prompt, line string) {
	p.t.Helper()
	p.waitFor(prompt)
	p.write(line)
}

func (p *ptyProc) text() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.screen.String()
}

func TestPermissionPromptPTY(t *testing.T) {
	t.Parallel()
	tests := []struct{ recording, answer, want string }{
		{"gemini-approve-write", "y", "WriteFile hello.txt - succeeded"},
		{"gemini-approve-write", "", "WriteFile hello.txt - succeeded"}, // Enter approves once
		{"gemini-reject-write", "n", "WriteFile hello.txt - cancelled"},
		{"rfc-approve-write", "1", "hello.txt - succeeded"}, // the agent's own option, by number
		{"rfc-reject-write", "n", "hello.txt - cancelled"},
	}
	for _, tt := range tests {
		t.Run(tt.recording+"/"+tt.answer, func(t *testing.T) {
			t.Parallel()
			srv := replayAgent(t, tt.recording)
			p := startPTY(t, "send", srv.url, "--workspace", t.TempDir(), "Please write hello.txt")
			p.waitFor("[Y]es once / [a]lways / [n]o")
			p.write(tt.answer + "\n")
			p.waitFor(tt.want)
			p.wantSuccess()
			if strings.Contains(p.text(), "permission needed") {
				t.Errorf("stopped at the prompt although the answer was given on the terminal:\n%s", p.text())
			}
		})
	}
}

// TestChatPTY holds a chat for several turns: a permission approved inline, /help, a new conversation whose
// permission is rejected, then Ctrl-D leaves.
func TestChatPTY(t *testing.T) {
	t.Parallel()
	srv := replayAgent(t, "gemini-approve-write", "gemini-reject-write")
	p := startPTY(t, "chat", srv.url, "--workspace", t.TempDir())
	p.waitFor("chatting with")
	p.answer("> ", "Please write hello.txt\r")
	p.answer("[Y]es once / [a]lways / [n]o", "y\r")
	p.waitFor("WriteFile hello.txt - succeeded")
	p.waitFor("your turn")
	p.answer("> ", "/help\r")
	p.answer("start a new conversation", "/new\r")
	p.answer("(new conversation)", "Please write hello.txt\r")
	p.answer("[Y]es once / [a]lways / [n]o", "n\r")
	p.waitFor("WriteFile hello.txt - cancelled")
	p.waitFor("> ")
	p.write("\x04") // Ctrl-D
	p.wantSuccess()
}

// TestChatCtrlCTwiceLeaves checks that Ctrl-C (byte 0x03 in raw mode, not a signal) at the prompt warns first and
// leaves the second time.
func TestChatCtrlCTwiceLeaves(t *testing.T) {
	t.Parallel()
	srv := startServe(t, "--echo")
	p := startPTY(t, "chat", srv.url)
	p.answer("> ", "hello there\r")
	p.waitFor("hello there") // the echo
	p.answer("> ", "\x03")
	p.answer("Ctrl-C again", "\x03")
	p.wantSuccess()
}

// TestChatCtrlCCancelsTurn: Ctrl-C during a running turn cancels that turn only; the chat goes on with the next
// message and Ctrl-D leaves.
func TestChatCtrlCCancelsTurn(t *testing.T) {
	t.Parallel()
	srv := startServe(t, "--exec", `read x; [ "$x" = slow ] && sleep 300; echo "got $x"`, "--chunk=\n", "--quiet")
	p := startPTY(t, "chat", srv.url)
	p.answer("> ", "slow\r")
	p.answer("State: working", "\x03")
	p.waitFor("(turn cancelled)")
	p.answer("> ", "quick\r")
	p.waitFor("got quick")
	p.waitFor("State: completed")
	p.answer("> ", "\x04")
	p.wantSuccess()
}

// TestChatHeaderOncePerTask: a task that takes several chat turns shows its header (Task ID,
// Context ID) once, even from an agent that sends the whole task at the start of every answer; its later turns
// show its state only.
func TestChatHeaderOncePerTask(t *testing.T) {
	t.Parallel()
	p := startPTY(t, "chat", wire.TaskEveryTurn(t))
	p.answer("> ", "hi\r")
	p.waitFor("what is your name?")
	p.answer("> ", "world\r")
	p.waitFor("hello, world")
	p.answer("> ", "\x04")
	p.wantSuccess()
	screen := p.text()
	if n := strings.Count(screen, "Task ID:"); n != 1 {
		t.Fatalf("the task header was shown %d times over two turns of one task, want once; screen:\n%s", n, screen)
	}
	if !strings.Contains(screen, "State: completed") {
		t.Fatalf("the second turn does not show the task's state; screen:\n%s", screen)
	}
}

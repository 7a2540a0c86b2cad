package exec

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	osexec "os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// defaultGrace is the SIGTERM to SIGKILL delay used when Cmd.Grace is zero.
const defaultGrace = 2 * time.Second

// closeMargin is how long after SIGKILL the pipes are closed by force, for descendants that left the group
// and still hold them.
const closeMargin = 200 * time.Millisecond

// Cmd describes a command to run.
type Cmd struct {
	Command string        // run as `/bin/sh -c Command`
	Env     []string      // appended to the inherited environment; nil inherits it unchanged
	Dir     string        // working directory; empty means the current one
	Stdin   []byte        // written to stdin, which is then closed; nil gives the child /dev/null
	Grace   time.Duration // SIGTERM to SIGKILL delay for the process group on stop; 0 means 2s

	// StderrTail is how many bytes at the end of stderr are kept for Result.StderrTail; 0 means 4096.
	StderrTail int
	// OnStderrLine, when not nil, is called with each non-empty stderr line, newline removed and cut into
	// pieces of at most 4 KiB. The slice is valid only during the call. Calls come one at a time but, on
	// Linux, from the goroutine shared by the stderr and exit of every process (the last line may come from
	// the one that stops the process), so it must return quickly: copy the line and hand it off, never block.
	OnStderrLine func(line []byte)
	// Drop, when not nil, leaves out the inherited variables whose name it returns true for (Env still sets them).
	Drop func(name string) bool
}

// Result describes how a process ended.
type Result struct {
	ExitCode   int           // exit status, or -1 when killed by a signal
	Signal     string        // the signal that killed the process ("terminated", "killed"), or empty
	StderrTail string        // the last Cmd.StderrTail bytes of stderr, possibly invalid UTF-8
	Duration   time.Duration // from start to exit
}

// Process is a running command, the leader of its own process group.
type Process struct {
	cmd   *osexec.Cmd
	grace time.Duration
	begin time.Time
	tail  *tail

	stdout, stdin closer  // our ends of the pipes
	stderr        errPipe // our end of stderr, and its draining
	stdinDone     chan struct{}
	exited        chan struct{} // closed once the child is reaped; then exitedAt and waitErr are set
	exitedAt      time.Time
	waitErr       error
	stopCtx       func() bool

	termOnce              sync.Once // the group was sent SIGTERM and the timers below were armed
	termAt                time.Time
	killTimer, closeTimer *time.Timer
	stopReq, forced       atomic.Bool

	pidfd int    // the child's pidfd (Linux, from clone) until watchExit hands it on; -1 when none
	scope string // the child's ScopeEnv value; empty without Guard

	waitOnce sync.Once
	res      Result
	err      error
}

// closer closes a file at most once, whoever asks first.
type closer struct {
	f    *os.File
	once sync.Once
}

func (c *closer) close() {
	if c.f != nil {
		c.once.Do(func() { _ = c.f.Close() }) // a pipe end: nothing useful to do about a close error
	}
}

// Start starts the command in its own process group. When ctx is done the process is stopped as by Stop.
// The caller must read Stdout to its end (or call Stop) and then call Wait.
func Start(ctx context.Context, c Cmd) (*Process, error) {
	p := &Process{
		grace:     c.Grace,
		tail:      &tail{max: c.StderrTail},
		stdinDone: make(chan struct{}),
		exited:    make(chan struct{}),
		pidfd:     -1,
	}
	if p.grace <= 0 {
		p.grace = defaultGrace
	}
	if p.tail.max <= 0 {
		p.tail.max = defaultStderrTail
	}
	p.stderr = errPipe{tail: p.tail, onLine: c.OnStderrLine, lines: lineSplitter{on: c.OnStderrLine},
		done: make(chan struct{}), fd: -1}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("start command: %w", err)
	}
	// Not exec.CommandContext: its watcher goroutine per process would only duplicate the context.AfterFunc
	// below, and the SIGKILL timer of terminate also kills a leader that left its group.
	cmd := osexec.Command("/bin/sh", "-c", c.Command)
	cmd.Dir = c.Dir
	p.scope = newScope()
	if len(c.Env) > 0 || p.scope != "" || c.Drop != nil {
		cmd.Env = append(inherited(c.Drop), c.Env...)
		if p.scope != "" {
			cmd.Env = append(cmd.Env, ScopeEnv+"="+p.scope)
		}
	}
	cmd.SysProcAttr = newSysProcAttr(&p.pidfd)
	p.cmd = cmd

	// Our own pipes, not os/exec's: its copying goroutines would make cmd.Wait wait for every descendant
	// holding a pipe open, while we want to learn at once that the leader exited.
	childEnds, err := p.pipes(cmd, c.Stdin != nil)
	if err != nil {
		return nil, err
	}
	p.begin = time.Now()
	spawn.RLock() // until tracked: a sweep must not take the new child for an orphan
	err = startCmd(cmd)
	for _, f := range childEnds {
		_ = f.Close() // the child has its copies (or was never started); close errors change nothing
	}
	cmd.Env = nil // the child has its copy; the Cmd lives as long as the child, the environment need not
	if err != nil {
		p.stdout.close()
		p.stdin.close()
		p.stderr.close()
		spawn.RUnlock()
		return nil, fmt.Errorf("start command: %w", err)
	}
	track(cmd.Process.Pid)
	spawn.RUnlock()
	p.stderr.start()
	if p.stdin.f != nil {
		go p.writeStdin(c.Stdin)
	} else {
		close(p.stdinDone)
	}
	p.watchExit()
	p.stopCtx = context.AfterFunc(ctx, p.Stop) // also after the leader exits, while descendants may linger
	return p, nil
}

// pipes creates the stdout, stderr and (if withStdin) stdin pipes, keeps our ends in p, attaches the child's
// ends to cmd and returns them, to be closed once the child has started.
func (p *Process) pipes(cmd *osexec.Cmd, withStdin bool) ([]*os.File, error) {
	var child []*os.File
	fail := func(err error) ([]*os.File, error) {
		for _, f := range child {
			_ = f.Close() // cleaning up after a failure already reported
		}
		p.stdout.close()
		p.stderr.close()
		return nil, fmt.Errorf("create pipe: %w", err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		return fail(err)
	}
	p.stdout.f, cmd.Stdout, child = outR, outW, append(child, outW)
	errW, err := p.stderr.open()
	if err != nil {
		return fail(err)
	}
	cmd.Stderr, child = errW, append(child, errW)
	if withStdin {
		inR, inW, err := os.Pipe()
		if err != nil {
			return fail(err)
		}
		p.stdin.f, cmd.Stdin, child = inW, inR, append(child, inR)
	}
	return child, nil
}

// writeStdin writes data to the child's stdin and closes it.
func (p *Process) writeStdin(data []byte) {
	defer close(p.stdinDone)
	_, _ = p.stdin.f.Write(data) // EPIPE when the child exits without reading it all: not our failure
	p.stdin.close()
}

// reap waits for the leader to exit, terminates what is left of its group, and reaps the leader. It is the
// way without the shared watcher: a goroutine for as long as the child runs.
func (p *Process) reap() {
	p.reaped(waitExited(p.cmd.Process.Pid, p.pidfd))
}

// reaped terminates what is left of the group of the leader, which exited, reaps the leader and, after Guard,
// stops what the command left outside its group. When early is true the leader is known to be an unreaped
// zombie, which keeps its group id from being reused, so the group is signalled first.
func (p *Process) reaped(early bool) {
	if early {
		p.terminate()
	}
	err := p.cmd.Wait()
	if !early {
		p.terminate()
	}
	p.exitedAt, p.waitErr = time.Now(), err
	if p.scope != "" {
		// What left the group (setsid) is adopted by us once its parents in the group are gone: stop it now,
		// not at Wait, since it may hold stdout open and so keep the caller from ever reaching Wait.
		p.awaitGroupGone()
		sweepScope(p.scope, p.grace)
	}
	close(p.exited)
}

// PID returns the process id of the child, which is also its process group id.
func (p *Process) PID() int { return p.cmd.Process.Pid }

// Stdout returns the child's stdout. Reading it to io.EOF is the caller's job; after Stop or Wait, a read
// returns io.EOF.
func (p *Process) Stdout() io.Reader { return stdoutReader{p.stdout.f} }

// stdoutReader turns "file closed" (Stop, Wait) into io.EOF.
type stdoutReader struct{ f *os.File }

func (r stdoutReader) Read(b []byte) (int, error) {
	n, err := r.f.Read(b)
	if errors.Is(err, os.ErrClosed) {
		err = io.EOF
	}
	return n, err
}

// inherited is this process's environment without the variables drop names.
func inherited(drop func(name string) bool) []string {
	env := os.Environ()
	if drop == nil {
		return env
	}
	kept := env[:0]
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		if !drop(name) {
			kept = append(kept, kv)
		}
	}
	return kept
}

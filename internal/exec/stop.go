package exec

import (
	"fmt"
	"syscall"
	"time"
)

// Stop terminates the whole process group now: SIGTERM, then SIGKILL after the grace period, then the pipes
// are closed by force. It is idempotent, safe to call concurrently with Wait, and does nothing after the
// group was already terminated (for instance after the leader exited) except to close stdout.
func (p *Process) Stop() {
	p.stopReq.Store(true)
	p.terminate()
	if p.forced.Load() {
		p.stdout.close()
	}
}

// terminate sends SIGTERM to the group once and arms the SIGKILL and forced-close timers.
func (p *Process) terminate() {
	p.termOnce.Do(func() {
		p.termAt = time.Now()
		p.signalGroup(syscall.SIGTERM)
		p.killTimer = time.AfterFunc(p.grace, p.kill)
		p.closeTimer = time.AfterFunc(p.grace+closeMargin, p.forceClose)
	})
}

// kill sends SIGKILL to the group, and to the leader in case it left the group. Process.Kill is safe to race
// with the reaping: once the leader is reaped it signals nothing.
func (p *Process) kill() {
	p.signalGroup(syscall.SIGKILL)
	_ = p.cmd.Process.Kill() // os.ErrProcessDone after reaping: nothing left to kill
}

// signalGroup sends sig to every process of the group.
func (p *Process) signalGroup(sig syscall.Signal) {
	killGroup(p.cmd.Process.Pid, sig)
}

// forceClose closes our pipe ends after the group kill, so that descendants that escaped the group cannot
// keep the drain goroutines (or, after Stop, the stdout reader) waiting forever. Stdout is left open after a
// normal exit: the caller may still be reading output the child wrote before exiting.
func (p *Process) forceClose() {
	p.forced.Store(true)
	p.stdin.close()
	p.stderr.close()
	if p.stopReq.Load() {
		p.stdout.close()
	}
}

// Wait waits for the leader to exit and for the rest of its group to be gone (bounded by the grace period
// plus a small margin), reaps the child and releases everything. Call it after Stdout reached io.EOF or
// after Stop: it closes stdout, so a child still writing gets SIGPIPE. The error is only for a wait that
// went wrong; an exit status or a signal is reported in Result. Wait may be called more than once.
func (p *Process) Wait() (Result, error) {
	p.waitOnce.Do(p.wait)
	return p.res, p.err
}

func (p *Process) wait() {
	p.stdout.close() // unblocks a group member stuck writing to a full pipe nobody reads any more
	<-p.exited       // after Guard, what left the group is gone too (see reaped)
	<-p.stderr.done
	p.awaitGroupGone()
	untrack(p.cmd.Process.Pid)
	p.killTimer.Stop()
	p.closeTimer.Stop()
	p.stdin.close()
	p.stderr.close()
	<-p.stdinDone
	p.stopCtx()
	p.res, p.err = p.result()
}

// awaitGroupGone polls until no live process is left in the group, or until the SIGKILL sent after the grace
// period had time to work.
func (p *Process) awaitGroupGone() {
	deadline := p.termAt.Add(p.grace + closeMargin)
	for d := time.Millisecond; groupAlive(p.cmd.Process.Pid) && time.Now().Before(deadline); d = min(2*d, 50*time.Millisecond) {
		time.Sleep(d)
	}
}

// result builds the Result from the reaped leader's state.
func (p *Process) result() (Result, error) {
	st := p.cmd.ProcessState
	if st == nil {
		return Result{ExitCode: -1}, fmt.Errorf("wait for command: %w", p.waitErr)
	}
	r := Result{ExitCode: st.ExitCode(), StderrTail: p.tail.String(), Duration: p.exitedAt.Sub(p.begin)}
	if ws, ok := st.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		r.ExitCode, r.Signal = -1, ws.Signal().String()
	}
	return r, nil
}

package exec

import (
	"bytes"
	"os"
	osexec "os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

func becomeSubreaper() error { return unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) }

// undumpable makes this process not dumpable: its commands, run as its user, can no longer read its environment
// (/proc/PID/environ) or memory (mem, maps), nor ptrace it. See Guard.
func undumpable() error { return unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0) }

// forker is the goroutine that starts every child, locked to its OS thread for good. PR_SET_PDEATHSIG fires
// when the *thread* that forked the child exits, not the process (golang/go#27505), and the Go runtime ends
// a thread whenever a goroutine locked to it returns: children forked from an arbitrary goroutine could be
// killed at any time. This thread never exits, so the signal comes only when the process dies. Forks are
// serialised by syscall.ForkLock anyway, so one thread costs no throughput; it also keeps the deep stack a
// fork needs off the callers' goroutines.
var forker struct {
	once sync.Once
	reqs chan forkReq
}

type forkReq struct {
	cmd  *osexec.Cmd
	errc chan error
}

func startCmd(cmd *osexec.Cmd) error {
	forker.once.Do(func() {
		forker.reqs = make(chan forkReq)
		go func() {
			runtime.LockOSThread() // never unlocked, and the goroutine never returns: see forker
			for r := range forker.reqs {
				r.errc <- r.cmd.Start()
			}
		}()
	})
	errc := make(chan error, 1)
	forker.reqs <- forkReq{cmd: cmd, errc: errc}
	return <-errc
}

// sweepScope stops what is left of the command with ScopeEnv value scope once its group is gone: children
// of this process (adopted after their parent died) whose environment carries scope, and their descendants.
func sweepScope(scope string, grace time.Duration) {
	if scope == "" {
		return
	}
	want := []byte("\x00" + ScopeEnv + "=" + scope + "\x00")
	sweep(func(pid int) bool {
		env, err := readEnviron(pid)
		return err == nil && bytes.Contains(append([]byte{0}, env...), want) // entries are NUL-terminated
	}, grace, false)
}

// readEnviron reads the environment of process pid. A process in the middle of execve shows an empty one for a
// moment (the new image is mapped before its environment is copied in): one that just exec'd (a shell's "exec
// sleep") would then escape the sweep, which ends at its first pass without a match. An empty read is asked again,
// for at most about 20 ms.
func readEnviron(pid int) ([]byte, error) {
	path := "/proc/" + strconv.Itoa(pid) + "/environ"
	for try := 0; ; try++ {
		env, err := os.ReadFile(path)
		if err != nil || len(env) > 0 || try == 20 {
			return env, err
		}
		time.Sleep(time.Millisecond) // nothing to wait on: the kernel fills the environment in as execve goes on
	}
}

// sweep sends SIGTERM to the unaccounted children of this process that match, and to all their descendants,
// reaps the children that exited (see orphans), and repeats (new adoptions included) until none is left;
// after grace the signal is SIGKILL, and after grace plus a second it gives up.
func sweep(match func(pid int) bool, grace time.Duration, reapAll bool) {
	self := os.Getpid()
	start := time.Now()
	sent := map[int]syscall.Signal{}
	for d := time.Millisecond; ; d = min(2*d, 50*time.Millisecond) {
		roots := orphans(self, match, reapAll)
		if len(roots) == 0 {
			return
		}
		elapsed := time.Since(start)
		if elapsed > grace+time.Second {
			return
		}
		sig := syscall.SIGTERM
		if elapsed >= grace {
			sig = syscall.SIGKILL
		}
		for _, pid := range descendants(roots) {
			if sent[pid] != sig {
				sent[pid] = sig
				_ = syscall.Kill(pid, sig) // ESRCH: gone meanwhile, which is the goal
			}
		}
		time.Sleep(d)
	}
}

// adopted holds the children of this process that a sweep took for a command's leftovers: once they exit,
// they are ours to reap. Guarded by spawn.
var adopted = map[int]struct{}{}

// orphans returns the live unaccounted children of self's main thread that match, and reaps the ones that
// exited: all of them when reapAll, else only those an earlier call matched. The main thread is where the
// kernel puts the orphans a subreaper adopts (the first live thread, and a Go program never ends its main
// thread); children forked by other code of the program (os/exec) mostly hang off other threads, and a
// command's scope never matches them, so a command's sweep never steals their exit status.
func orphans(self int, match func(pid int) bool, reapAll bool) []int {
	if !reapAll && !strayChild(self) {
		return nil // the common case at a command's end: not even the lock is taken
	}
	spawn.Lock()
	defer spawn.Unlock()
	var out []int
	for _, pid := range mainThreadChildren(self) {
		if accounted(pid) {
			continue
		}
		state, _, ok := procStat(strconv.Itoa(pid))
		if !ok {
			continue
		}
		if state == 'Z' {
			if _, ours := adopted[pid]; ours || reapAll {
				var ws syscall.WaitStatus
				_, _ = syscall.Wait4(pid, &ws, syscall.WNOHANG, nil) // ours to reap; ECHILD if someone was faster
				delete(adopted, pid)
			}
			continue
		}
		if match(pid) {
			adopted[pid] = struct{}{}
			out = append(out, pid)
		}
	}
	return out
}

// strayChild reports whether the main thread of self has a child that is not accounted for, without the
// spawn lock (a child between fork and tracking counts as stray: the caller looks again under the lock).
func strayChild(self int) bool {
	for _, pid := range mainThreadChildren(self) {
		if !accounted(pid) {
			return true
		}
	}
	return false
}

// mainThreadChildren returns the children of the main thread of process pid.
func mainThreadChildren(pid int) []int {
	id := strconv.Itoa(pid)
	return parsePids("/proc/" + id + "/task/" + id + "/children")
}

// killOrphans sends SIGKILL to every unaccounted child of this process and its descendants, without waiting.
func killOrphans() {
	self := os.Getpid()
	for _, pid := range descendants(orphans(self, func(int) bool { return true }, true)) {
		_ = syscall.Kill(pid, syscall.SIGKILL) // ESRCH: already gone
	}
}

// descendants returns roots and all their descendants, parents before children.
func descendants(roots []int) []int {
	out := append([]int(nil), roots...)
	for i := 0; i < len(out) && len(out) < 1<<16; i++ {
		out = append(out, children(out[i])...)
	}
	return out
}

// children returns the children of process pid, from /proc/pid/task/*/children (every thread has its own).
func children(pid int) []int {
	tasks, _ := filepath.Glob("/proc/" + strconv.Itoa(pid) + "/task/*/children") // only ErrBadPattern
	var out []int
	for _, f := range tasks {
		out = append(out, parsePids(f)...)
	}
	return out
}

// parsePids reads the space-separated pids of a /proc children file; nil when it cannot be read.
func parsePids(file string) []int {
	b, err := os.ReadFile(file)
	if err != nil {
		return nil
	}
	var out []int
	for _, field := range bytes.Fields(b) {
		if n, err := strconv.Atoi(string(field)); err == nil {
			out = append(out, n)
		}
	}
	return out
}

package exec

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	osexec "os/exec"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// ScopeEnv names the variable Start adds to every command's environment once Guard was called: a token
// unique to this process and to the command. Descendants inherit it, which is how processes that left the
// command's process group (setsid) are still found: by the sweep when the command ends, and by the
// watchdog when this process dies.
const ScopeEnv = "A2A_EXEC_SCOPE"

// guard is the state Guard sets up, for the whole process.
var guard struct {
	once  sync.Once
	on    atomic.Bool
	token string // ScopeEnv's value is token + "." + a sequence number
	seq   atomic.Uint64
	grace time.Duration // how long a swept process has between SIGTERM and SIGKILL

	// w is the watchdog's stdin; nil when there is none. Written under live.mu, so that the watchdog hears
	// of groups in the order they were tracked and untracked.
	w    *os.File
	wpid int
}

// spawn is held for reading from the fork of a child to its tracking, and for writing by a sweep while it
// decides which children of this process are not tracked: a sweep never mistakes a child just started for
// an orphan it adopted.
var spawn sync.RWMutex

// Guard makes sure that no process started by Start, nor any of its descendants, outlives this process or
// the command it belongs to, as far as the system allows. It is for long-running programs (a server); call
// it once before starting commands; later calls do nothing. On Linux:
//
//   - every child gets PR_SET_PDEATHSIG=SIGKILL (set by Start, Guard or not), from a thread that never exits;
//   - this process becomes a child subreaper (PR_SET_CHILD_SUBREAPER): a descendant whose parent dies is
//     adopted by it, not by init, so when a command ends (exit, Stop, ctx) the processes it left in another
//     session or group are found among this process's children by their ScopeEnv, stopped (SIGTERM, then
//     SIGKILL after the command's grace period) and reaped; Sweep does the same for every child left;
//   - a watchdog (a small /bin/sh loop, in its own process group) learns of every process group started and
//     ended. When this process dies, even by SIGKILL, its pipe closes and the watchdog sends SIGKILL to the
//     groups still running and to every process whose environment carries this process's ScopeEnv token.
//
// It also keeps this process out of its commands' reach, which run as its user: on Linux it becomes not dumpable
// (PR_SET_DUMPABLE 0), so the /proc files of it that the kernel guards with ptrace's access check (environ, mem,
// maps, fd, ...) refuse every process of its user, and none may attach to it, unless privileged (root is). Its
// command line and status stay readable. Commands are dumpable again from their execve on, so the sweep and the
// watchdog still read theirs. A process that is not dumpable leaves no core dump.
//
// What nothing reaches: a descendant that both leaves its process group and clears its environment survives
// a SIGKILL of this process (a normal end or Sweep still stops it while it is our descendant), and so does
// everything if the watchdog is killed first.
//
// Sweep and KillAll reap every child that exited and was not started by Start: a program that calls them
// must not have children of its own waiting to be reaped.
func Guard() error {
	var err error
	guard.once.Do(func() {
		// First, and whatever else fails: a command must not see this process's secrets.
		if herr := undumpable(); herr != nil {
			err = fmt.Errorf("guard: hide this process from its commands: %w", herr)
		}
		err = errors.Join(err, guardProcesses())
	})
	return err
}

// guardProcesses is the part of Guard that keeps commands from outliving what they belong to.
func guardProcesses() error {
	var b [12]byte
	if _, err := rand.Read(b[:]); err != nil {
		return fmt.Errorf("guard: %w", err)
	}
	guard.token = hex.EncodeToString(b[:])
	guard.grace = defaultGrace
	if err := becomeSubreaper(); err != nil {
		return fmt.Errorf("guard: become a child subreaper: %w", err)
	}
	guard.on.Store(true)
	if err := startWatchdog(); err != nil {
		return fmt.Errorf("guard: start watchdog: %w", err)
	}
	return nil
}

// newScope returns the ScopeEnv value for a new command, or "" without Guard.
func newScope() string {
	if !guard.on.Load() {
		return ""
	}
	return guard.token + "." + strconv.FormatUint(guard.seq.Add(1), 10)
}

// watchdogScript keeps the set of live process groups it is told about on stdin ("+pgid", "-pgid"), and on
// end of input (its parent died or closed the pipe) kills what is left, then every process whose environment
// carries the token $1. It ignores the signals a terminal or a service manager sends to stop its parent.
const watchdogScript = `trap '' INT TERM HUP QUIT
g=' '
while read -r op id; do
	case $op in
	+) g="$g$id " ;;
	-) case $g in *" $id "*) g="${g%%" $id "*} ${g#*" $id "}" ;; esac ;;
	esac
done
for id in $g; do kill -s KILL -- "-$id" 2>/dev/null; done
for f in $(grep -l -s -a -F -e "$1" /proc/[0-9]*/environ 2>/dev/null); do
	f=${f#/proc/}
	kill -s KILL -- "${f%/environ}" 2>/dev/null
done
exit 0`

// startWatchdog starts the watchdog and keeps the write end of its stdin. The pipe is close-on-exec, so no
// command inherits it: only this process's death (or exit) closes it.
func startWatchdog() error {
	r, w, err := os.Pipe()
	if err != nil {
		return err
	}
	defer r.Close() // the watchdog has its copy
	cmd := osexec.Command("/bin/sh", "-c", watchdogScript, "a2a-exec-watchdog", ScopeEnv+"="+guard.token+".")
	cmd.Stdin = r
	// Only what it needs to find grep: it runs as our user and, unlike us, is dumpable, so the commands could
	// read an environment it inherited (our secrets) in its /proc/PID/environ.
	cmd.Env = []string{} // not nil, which would pass ours on
	if path, ok := os.LookupEnv("PATH"); ok {
		cmd.Env = append(cmd.Env, "PATH="+path)
	}
	cmd.SysProcAttr = ownGroup() // not in our group: a Ctrl-C meant for us spares it
	if err := cmd.Start(); err != nil {
		w.Close()
		return err
	}
	live.mu.Lock()
	guard.w, guard.wpid = w, cmd.Process.Pid
	live.mu.Unlock()
	return nil
}

// tellWatchdog writes "+pgid" or "-pgid" to the watchdog. The caller holds live.mu. A watchdog that is gone
// (EPIPE) is forgotten.
func tellWatchdog(op byte, pgid int) {
	if guard.w == nil {
		return
	}
	b := make([]byte, 0, 16)
	b = append(b, op)
	b = strconv.AppendInt(b, int64(pgid), 10)
	b = append(b, '\n')
	if _, err := guard.w.Write(b); err != nil {
		_ = guard.w.Close() // the watchdog died: nothing left to tell
		guard.w = nil
	}
}

// Sweep stops every child of this process's main thread that Start is not tracking (descendants adopted
// after their parent died, whatever their session or group, land there) and their descendants: SIGTERM, then SIGKILL once grace (0: 2s) has
// passed, and reaps them. It returns when they are gone or after grace plus a margin. It does nothing without
// Guard. A server calls it once its commands were stopped, before it exits.
func Sweep(grace time.Duration) {
	if !guard.on.Load() {
		return
	}
	if grace <= 0 {
		grace = defaultGrace
	}
	sweep(func(int) bool { return true }, grace, true)
}

//go:build windows

package exec

import (
	"os"
	osexec "os/exec"
	"strconv"
	"syscall"
)

// Windows has no process groups to signal: a command's tree is stopped with taskkill /T, which ends the process
// and every descendant it started (found by parent id, so while the leader lives). There is no graceful SIGTERM
// for console programs either: both signals end the tree at once.

// readFD is never called: descriptors are not watched on Windows (errPipe reads from a goroutine).
func readFD(int, []byte) (int, error) { return 0, syscall.EINVAL }

// closeFD is never called on Windows (see readFD).
func closeFD(int) {}

// ownGroup starts a child in a new process group, so a Ctrl-C meant for us does not reach it.
func ownGroup() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{CreationFlags: syscall.CREATE_NEW_PROCESS_GROUP}
}

// killGroup ends process pid and its descendants, whatever sig is.
func killGroup(pid int, _ syscall.Signal) {
	kill := osexec.Command("taskkill", "/T", "/F", "/PID", strconv.Itoa(pid))
	_ = kill.Run() // the tree may be gone already, which is the goal
}

// waitExited reports false: the tree is stopped just after reaping instead.
func waitExited(int, int) bool { return false }

// watchExit starts the goroutine that waits for the leader to exit.
func (p *Process) watchExit() { go p.reap() }

// groupAlive reports false: Windows has no group to ask; taskkill /T already waited for the tree.
func groupAlive(int) bool { return false }

// pidAlive reports whether process pid exists.
func pidAlive(pid int) bool {
	pr, err := os.FindProcess(pid)
	if err != nil {
		return false
	}
	_ = pr.Release() // only the handle: the process is not ours to end here
	return true
}

// newSysProcAttr starts the child in a new process group; there is no pidfd here.
func newSysProcAttr(*int) *syscall.SysProcAttr { return ownGroup() }

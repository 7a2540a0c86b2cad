//go:build unix && !linux

package exec

import "syscall"

// waitExited does not wait where waitid(WNOWAIT) is not used; it reports false, so the group is signalled
// just after reaping instead.
func waitExited(int, int) bool { return false }

// watchExit starts the goroutine that waits for the leader to exit.
func (p *Process) watchExit() { go p.reap() }

// groupAlive reports whether process group pgid has a member (zombies included).
func groupAlive(pgid int) bool { return syscall.Kill(-pgid, 0) == nil }

// pidAlive reports whether process pid exists (zombies included).
func pidAlive(pid int) bool { return syscall.Kill(pid, 0) == nil }

// newSysProcAttr puts the child in its own process group; there is no pidfd here.
func newSysProcAttr(*int) *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }

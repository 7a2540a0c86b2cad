//go:build unix

package exec

import "syscall"

// readFD reads from a raw descriptor (the watcher's way of draining stderr).
func readFD(fd int, b []byte) (int, error) { return syscall.Read(fd, b) }

// closeFD closes a raw descriptor.
func closeFD(fd int) { _ = syscall.Close(fd) } // a pipe end: nothing to do about a close error

// ownGroup puts a child in a process group of its own.
func ownGroup() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }

// killGroup sends sig to every process of group pgid.
func killGroup(pgid int, sig syscall.Signal) {
	_ = syscall.Kill(-pgid, sig) // ESRCH: the group is already gone, which is the goal
}

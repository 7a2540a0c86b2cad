package exec

import (
	"bytes"
	"os"
	"strconv"
	"syscall"
	"unsafe"

	"github.com/a2acli/a2a/internal/fdwatch"
)

// watchExit arranges for the leader's exit to be handled. The shared watcher watches its pidfd, which turns
// readable when the leader exits, and only then is a goroutine started, briefly, to finish the job: a running
// child costs no goroutine. Without a pidfd or a watcher, a goroutine waits as long as the child runs.
func (p *Process) watchExit() {
	if pid, pidfd := p.cmd.Process.Pid, p.pidfd; pidfd >= 0 {
		_, err := fdwatch.Watch(pidfd, fdwatch.Readable, func(fdwatch.Events) bool {
			if !exited(pid) {
				return true // not yet (a pidfd is readable only once its process exited): wait again
			}
			_ = syscall.Close(pidfd) // ours alone; the os package closes its own copy
			go p.reaped(true)
			return false
		})
		if err == nil {
			return
		}
	}
	go p.reap()
}

// waitExited blocks until the process pid has exited, without reaping it. While the exited child is an
// unreaped zombie its pid, and so its process group id, cannot be reused, which makes the group signal that
// follows safe. It reports true: the caller signals the group before reaping.
//
// With a pidfd (pidfd >= 0, which waitExited closes) the wait parks the goroutine in the runtime's network
// poller until the pidfd becomes readable, so a thousand waiting children do not hold a thousand OS threads.
// Without one, or where the pidfd cannot be polled, it blocks a thread in waitid.
func waitExited(pid, pidfd int) bool {
	if pidfd >= 0 && pollExit(pid, pidfd) {
		return true
	}
	var info [128]byte // siginfo_t
	for {
		_, _, errno := syscall.Syscall6(syscall.SYS_WAITID, pPID, uintptr(pid),
			uintptr(unsafe.Pointer(&info)), syscall.WEXITED|syscall.WNOWAIT, 0, 0)
		if errno != syscall.EINTR {
			return true
		}
	}
}

const pPID = 1 // waitid's P_PID

// pollExit waits for pid to exit through the netpoller and closes pidfd. It reports false when the pidfd
// could not be polled, leaving the wait to the caller.
func pollExit(pid, pidfd int) bool {
	if err := syscall.SetNonblock(pidfd, true); err != nil { // os.NewFile polls only non-blocking descriptors
		_ = syscall.Close(pidfd)
		return false
	}
	f := os.NewFile(uintptr(pidfd), "pidfd")
	defer f.Close() // also removes it from the poller; a close error changes nothing
	rc, err := f.SyscallConn()
	if err != nil {
		return false
	}
	// Read calls the function, and while it reports false waits for the descriptor to be readable: a pidfd
	// is readable once its process exited. An error means the descriptor is not pollable after all.
	return rc.Read(func(uintptr) bool { return exited(pid) }) == nil
}

// exited reports whether pid has exited (or cannot be waited for), without blocking and without reaping it.
func exited(pid int) bool {
	var info [32]int32 // siginfo_t; si_signo, its first field, stays 0 when no child is waitable
	for {
		_, _, errno := syscall.Syscall6(syscall.SYS_WAITID, pPID, uintptr(pid),
			uintptr(unsafe.Pointer(&info)), syscall.WEXITED|syscall.WNOWAIT|syscall.WNOHANG, 0, 0)
		switch errno {
		case syscall.EINTR:
			continue
		case 0:
			return info[0] != 0
		default:
			return true // ECHILD: nothing to wait for here; the caller's Wait reports it
		}
	}
}

// groupAlive reports whether process group pgid has a member that is not a zombie. Orphaned zombies count as
// gone: where the init process does not reap them they would otherwise look alive forever.
func groupAlive(pgid int) bool {
	if syscall.Kill(-pgid, 0) != nil {
		return false
	}
	dir, err := os.Open("/proc")
	if err != nil {
		return true
	}
	defer dir.Close()
	names, err := dir.Readdirnames(-1)
	if err != nil {
		return true
	}
	for _, name := range names {
		if name[0] < '0' || name[0] > '9' {
			continue
		}
		state, pg, ok := procStat(name)
		if ok && pg == pgid && state != 'Z' && state != 'X' {
			return true
		}
	}
	return false
}

// procStat returns the state and process group of the process /proc/<pid>.
func procStat(pid string) (state byte, pgrp int, ok bool) {
	b, err := os.ReadFile("/proc/" + pid + "/stat")
	if err != nil {
		return 0, 0, false
	}
	// "pid (comm) S ppid pgrp ...": comm may hold spaces and parentheses, so parse after the last ')'.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, 0, false
	}
	f := bytes.Fields(b[i+1:])
	if len(f) < 3 || len(f[0]) != 1 {
		return 0, 0, false
	}
	pg, err := strconv.Atoi(string(f[2]))
	return f[0][0], pg, err == nil
}

// pidAlive reports whether process pid exists and is not a zombie.
func pidAlive(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	state, _, ok := procStat(strconv.Itoa(pid))
	return !ok || (state != 'Z' && state != 'X')
}

// newSysProcAttr puts the child in its own process group, asks the kernel to SIGKILL it when we die (see
// forker for why that holds) and asks clone for a pidfd, stored in *pidfd (-1 where the kernel has none).
// The os package keeps its own copy, so this one is ours to close.
func newSysProcAttr(pidfd *int) *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL, PidFD: pidfd}
}

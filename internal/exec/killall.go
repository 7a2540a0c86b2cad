package exec

import (
	"sync"
	"syscall"
)

// live holds the process groups started by this process that may still have members. It exists for KillAll:
// a program that must exit at once (a second Ctrl-C) still owes it to the user to leave no process behind.
// It counts: a group id reused while the old entry is still tracked is not lost when the old one goes.
var live struct {
	mu     sync.Mutex
	groups map[int]int
}

func track(pgid int) {
	live.mu.Lock()
	defer live.mu.Unlock()
	if live.groups == nil {
		live.groups = map[int]int{}
	}
	live.groups[pgid]++
	tellWatchdog('+', pgid)
}

func untrack(pgid int) {
	live.mu.Lock()
	defer live.mu.Unlock()
	if live.groups[pgid]--; live.groups[pgid] <= 0 {
		delete(live.groups, pgid)
	}
	tellWatchdog('-', pgid)
}

// accounted reports whether pid is a child this package waits for itself: a tracked group leader or the
// watchdog. The caller holds spawn, so that no child is between its fork and its tracking.
func accounted(pid int) bool {
	live.mu.Lock()
	defer live.mu.Unlock()
	return live.groups[pid] > 0 || (pid == guard.wpid && pid != 0)
}

// KillAll sends SIGKILL to every process group started by Start whose Wait has not finished and, after
// Guard, to every other child of this process and their descendants. It does not wait.
func KillAll() {
	live.mu.Lock()
	for pgid := range live.groups {
		killGroup(pgid, syscall.SIGKILL)
	}
	live.mu.Unlock()
	if guard.on.Load() {
		killOrphans()
	}
}

package exec

import (
	"sync"
	"syscall"
)

// live holds the process groups started by this process that may still have members. It exists for KillAll:
// a program that must exit at once (a second Ctrl-C) still owes it to the user to leave no process behind.
var live struct {
	mu     sync.Mutex
	groups map[int]struct{}
}

func track(pgid int) {
	live.mu.Lock()
	defer live.mu.Unlock()
	if live.groups == nil {
		live.groups = map[int]struct{}{}
	}
	live.groups[pgid] = struct{}{}
}

func untrack(pgid int) {
	live.mu.Lock()
	defer live.mu.Unlock()
	delete(live.groups, pgid)
}

// KillAll sends SIGKILL to every process group started by Start whose Wait has not finished. It does not wait.
func KillAll() {
	live.mu.Lock()
	defer live.mu.Unlock()
	for pgid := range live.groups {
		_ = syscall.Kill(-pgid, syscall.SIGKILL) // ESRCH: already gone, which is the goal
	}
}

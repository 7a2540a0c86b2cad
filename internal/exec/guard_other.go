//go:build !linux

package exec

import (
	osexec "os/exec"
	"time"
)

// becomeSubreaper does nothing: only Linux has child subreapers.
func becomeSubreaper() error { return nil }

// undumpable does nothing: PR_SET_DUMPABLE is Linux's.
func undumpable() error { return nil }

// startCmd starts cmd from a short-lived goroutine. Forking needs a deep stack, and a goroutine keeps the
// stack it grew while it lives: the caller, which goes on to wait on the child's output for as long as the
// child runs, keeps a small one.
func startCmd(cmd *osexec.Cmd) error {
	errc := make(chan error, 1)
	go func() { errc <- cmd.Start() }()
	return <-errc
}

// sweepScope does nothing: without a subreaper, what left the group is not ours to find.
func sweepScope(string, time.Duration) {}

// sweep does nothing: without a subreaper, what left the group is not ours to find.
func sweep(func(int) bool, time.Duration, bool) {}

// killOrphans does nothing: without a subreaper, what left the group is not ours to find.
func killOrphans() {}

package pgtest

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/a2acli/a2a/internal/testskip"
)

// TestStopStart checks the server takes connections, refuses them once stopped, and takes them again on the same
// port after Start: the store-down tests rely on it.
func TestStopStart(t *testing.T) {
	s, err := New()
	if err != nil {
		if err == ErrMissing && os.Getenv("CI") != "1" {
			testskip.Missing(t, testskip.PostgreSQL, err.Error())
		}
		t.Fatal(err)
	}
	defer s.Close()
	u, err := s.NewDB()
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	s.Stop()
	if c, err := pgx.Connect(ctx, u); err == nil {
		c.Close(ctx)
		t.Fatal("connected to a stopped server")
	}
	if err := s.Start(); err != nil {
		t.Fatal(err)
	}
	c, err := pgx.Connect(ctx, u)
	if err != nil {
		t.Fatalf("connect after restart: %v", err)
	}
	c.Close(ctx)
}

// TestNoOrphanServer guards against a server outliving a test binary that dies without Close (a panic, a
// timeout): the child test below starts one and exits at once; the server must go with it.
func TestNoOrphanServer(t *testing.T) {
	if os.Getenv("PGTEST_CHILD") == "1" {
		s, err := New()
		if err != nil {
			fmt.Println("error", err)
			os.Exit(1)
		}
		fmt.Println("pid", s.cmd.Process.Pid, s.dir)
		os.Exit(0) // no Close
	}
	if _, err := Bin(); err != nil && os.Getenv("CI") != "1" {
		testskip.Missing(t, testskip.PostgreSQL, err.Error())
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestNoOrphanServer$")
	cmd.Env = append(os.Environ(), "PGTEST_CHILD=1")
	out, err := cmd.Output()
	var pid int
	var dir string
	if _, serr := fmt.Sscanf(string(out), "pid %d %s", &pid, &dir); serr != nil {
		t.Fatalf("child: %v %v: %s", err, serr, out)
	}
	defer os.RemoveAll(dir) // the child could not: it exited without Close
	deadline := time.After(30 * time.Second)
	tick := time.NewTicker(20 * time.Millisecond) // polling for the exit of a process that is not our child
	defer tick.Stop()
	for syscall.Kill(pid, 0) == nil {
		select {
		case <-deadline:
			syscall.Kill(-pid, syscall.SIGKILL)
			t.Fatalf("postgres %d still running 30s after its test binary exited", pid)
		case <-tick.C:
		}
	}
}

package exec

import (
	"context"
	"runtime"
	"testing"
	"time"
)

// TestGoroutinesPerChild starts many children that keep running and checks how many goroutines each one
// costs while it runs: none of its own, since the exit and stderr watches live on the shared watcher. It is
// not parallel, so no other test's goroutines come and go meanwhile.
func TestGoroutinesPerChild(t *testing.T) {
	n := 500
	if testing.Short() {
		n = 50
	}
	runLines(t, context.Background(), Cmd{Command: "echo warm >&2"}) // starts the shared watcher, if any
	before := runtime.NumGoroutine()
	procs := make([]*Process, 0, n)
	defer func() {
		for _, p := range procs {
			p.Stop()
		}
		for _, p := range procs {
			if res, err := p.Wait(); err != nil || res.Signal != "terminated" {
				t.Errorf("Wait() = %+v, %v, want signal terminated", res, err)
			}
		}
	}()
	for range n {
		p, err := Start(context.Background(), Cmd{Command: "exec sleep 60", Grace: 100 * time.Millisecond})
		if err != nil {
			t.Fatalf("Start() error = %v", err)
		}
		procs = append(procs, p)
	}
	per := float64(runtime.NumGoroutine()-before) / float64(n)
	t.Logf("%d running children: %.3f goroutines per child", n, per)
	if per > 0.05 {
		t.Errorf("%d running children cost %.3f goroutines each, want ~0", n, per)
	}
}

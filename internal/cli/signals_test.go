package cli

import (
	"os"
	"os/signal"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestRunsCommand(t *testing.T) {
	for _, tt := range []struct {
		args string
		want bool
	}{
		{"", false}, {"--help", false}, {"-h", false}, {"send -h", false}, {"get task --help", false},
		{"--version", false}, {"help send", false}, {"completion bash", false}, {"__complete send ''", false},
		{"__completeNoDesc list", false}, {"version", true}, {"send x hi", true}, {"-o json send x hi", true},
		{"send x -- --help", true}, {"serve --echo", true},
	} {
		if got := runsCommand(strings.Fields(tt.args)); got != tt.want {
			t.Errorf("runsCommand(%q) = %v, want %v", tt.args, got, tt.want)
		}
	}
}

// TestSignalsCaughtOnceWaited: once wait returns (what a command does before it runs), SIGINT reaches the run's
// channel; after stop it does not; a run that never started catching stops at once.
func TestSignalsCaughtOnceWaited(t *testing.T) {
	// The test catches SIGINT itself, so that one a2a does not catch cannot end it.
	guard := make(chan os.Signal, 4)
	signal.Notify(guard, syscall.SIGINT)
	defer signal.Stop(guard)

	interrupt := func() {
		t.Helper()
		if err := syscall.Kill(os.Getpid(), syscall.SIGINT); err != nil {
			t.Fatal(err)
		}
		select {
		case <-guard:
		case <-time.After(10 * time.Second):
			t.Fatal("SIGINT never arrived")
		}
		// os/signal delivers a signal to every channel holding its lock, which Stop takes: once this returns, the
		// run's channel has it if it is to.
		signal.Stop(make(chan os.Signal))
	}
	for _, early := range []bool{true, false} {
		ch := make(chan os.Signal, 2)
		s := startSignals(ch)
		if early {
			s.start()
		}
		s.wait()
		select {
		case <-s.ready: // closed once signal.Notify returned
		default:
			t.Fatalf("started early %v: wait returned before the signals were caught", early)
		}
		interrupt()
		select {
		case sig := <-ch:
			if sig != syscall.SIGINT {
				t.Errorf("got %v", sig)
			}
		default:
			t.Fatalf("started early %v: SIGINT did not reach the run once wait returned", early)
		}
		s.stop()
		interrupt()
		if len(ch) > 0 {
			t.Errorf("started early %v: SIGINT reached the run after stop", early)
		}
	}

	ch := make(chan os.Signal, 2)
	s := startSignals(ch)
	s.start()
	s.stop() // waits for the start under way, then stops
	interrupt()
	if len(ch) > 0 {
		t.Error("SIGINT reached a run stopped while it started catching")
	}
	s = startSignals(ch)
	done := make(chan struct{})
	go func() { s.stop(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("stop of a run that never caught signals blocked")
	}
}

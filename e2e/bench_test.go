package e2e

import (
	"os"
	"os/exec"
	"syscall"
	"testing"

	"github.com/a2acli/a2a/internal/testagent"
)

// BenchmarkStartup runs the binary as whole processes, the way a shell does, beside /bin/true as the floor of
// starting any process here. Target: `a2a --help`, `discover` and `send` no slower than the upstream a2a-go CLI's:
// with A2A_UPSTREAM_BIN naming that binary (`make bench` builds it into bin/ref/upstream), its --help, discover and
// send run in the same benchmark, against the same agent.
func BenchmarkStartup(b *testing.B) {
	ag := testagent.Start(b, testagent.Options{})
	cases := []struct {
		name string
		cmd  []string
	}{
		{"true", []string{"/bin/true"}},
		{"help", []string{bin, "--help"}},
		{"version", []string{bin, "version"}},
		{"discover", []string{bin, "discover", ag.URL}},
		{"send", []string{bin, "send", ag.URL, "hi"}},
	}
	if up := os.Getenv("A2A_UPSTREAM_BIN"); up != "" {
		cases = append(cases, []struct {
			name string
			cmd  []string
		}{
			{"upstream-help", []string{up, "--help"}},
			{"upstream-discover", []string{up, "discover", ag.URL}},
			{"upstream-send", []string{up, "send", ag.URL, "hi"}},
		}...)
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			var faults, cpu int64
			for b.Loop() {
				cmd := exec.Command(c.cmd[0], c.cmd[1:]...)
				if out, err := cmd.CombinedOutput(); err != nil {
					b.Fatalf("%v: %v\n%s", c.cmd, err, out)
				}
				if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
					faults += ru.Minflt + ru.Majflt
					cpu += syscall.TimevalToNsec(ru.Utime) + syscall.TimevalToNsec(ru.Stime)
				}
			}
			// Page faults and CPU time of the child alone: steadier than wall time on a shared machine.
			b.ReportMetric(float64(faults)/float64(b.N), "faults/op")
			b.ReportMetric(float64(cpu)/float64(b.N), "cpu-ns/op")
		})
	}
}

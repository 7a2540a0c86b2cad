package e2e

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/a2acli/a2a/internal/testagent"
)

// BenchmarkStartup runs the binary as whole processes, the way a shell does, beside /bin/true as the floor of
// starting any process here. Target: `a2a --help`, `discover` and `send` no slower than the upstream a2a-go CLI's:
// with A2A_UPSTREAM_BIN naming that binary (`make bench` builds it into bin/ref/upstream), its --help, discover and
// send run in the same benchmark, against the same agent.
//
// Both binaries run from fresh copies: a binary just written by the Go linker (through mmap) starts 1-5 ms slower
// here than a copy of the same bytes until its pages are written back, which would count against whichever binary
// was built last.
func BenchmarkStartup(b *testing.B) {
	ag := testagent.Start(b, testagent.Options{})
	bin := copyBinary(b, bin)
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
		up = copyBinary(b, up)
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

// copyBinary copies the executable at path into a temporary directory and returns the copy's path.
func copyBinary(b *testing.B, path string) string {
	b.Helper()
	in, err := os.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	defer in.Close()
	dst := filepath.Join(b.TempDir(), filepath.Base(path))
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o755)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		b.Fatal(err)
	}
	if err := out.Close(); err != nil {
		b.Fatal(err)
	}
	return dst
}

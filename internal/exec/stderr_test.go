package exec

import (
	"bytes"
	"context"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// splitLines feeds in to a lineSplitter in writes of step bytes and returns the lines.
func splitLines(in []byte, step int) []string {
	var got []string
	s := lineSplitter{on: func(l []byte) { got = append(got, string(l)) }}
	for len(in) > 0 {
		n := min(step, len(in))
		s.write(in[:n])
		in = in[n:]
	}
	s.flush()
	return got
}

// FuzzLineSplitter checks that the lines cut as stderr arrives, in writes of any size, are the chunks a
// Chunker splitting at "\n" with max maxStderrLine would return.
func FuzzLineSplitter(f *testing.F) {
	f.Add([]byte("a\nb\n\nc"), uint16(1), uint16(1))
	f.Add([]byte("x"), uint16(5000), uint16(4095))
	f.Add([]byte("€"), uint16(1400), uint16(4096))
	f.Add([]byte("ab€\n"), uint16(1100), uint16(333))
	f.Add([]byte("yy😀"), uint16(700), uint16(4097))
	f.Add([]byte(strings.Repeat("z", 4096)+"\n"), uint16(3), uint16(2048))
	f.Fuzz(func(t *testing.T, pattern []byte, reps, step uint16) {
		in := bytes.Repeat(pattern, int(reps%3000))
		if len(in) > 1<<20 {
			in = in[:1<<20]
		}
		want := collect(t, bytes.NewReader(in), "\n", maxStderrLine)
		got := splitLines(in, int(step%9000)+1)
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("lines of %q x %d in writes of %d mismatch (-chunker +splitter):\n%s", pattern, reps, step, diff)
		}
	})
}

func TestLineSplitter(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("x", 4095) + "€" // the rune would straddle the 4 KiB cut
	tests := []struct {
		name string
		in   string
		want []string
	}{
		{"lines", "a\nbb\n\n\nccc\n", []string{"a", "bb", "ccc"}},
		{"unterminated", "a\nlast", []string{"a", "last"}},
		{"cut", strings.Repeat("y", 5000) + "\n", []string{strings.Repeat("y", 4096), strings.Repeat("y", 904)}},
		{"cut at a rune start", long + "\n", []string{strings.Repeat("x", 4095), "€"}},
		{"exactly 4 KiB", strings.Repeat("w", 4096) + "\nz", []string{strings.Repeat("w", 4096), "z"}},
	}
	for _, tt := range tests {
		for _, step := range []int{1, 7, 4096, 1 << 20} {
			if got := splitLines([]byte(tt.in), step); !cmp.Equal(tt.want, got) {
				t.Errorf("%s: split(%.40q...) in writes of %d = %.80q, want %.80q", tt.name, tt.in, step, got, tt.want)
			}
		}
	}
}

// TestStderrForcedClose has the command leave a descendant outside its group that holds stderr open: Wait must
// close our end by force after the grace period, while the watcher may be reading from it, and pass on the
// unterminated line written before.
func TestStderrForcedClose(t *testing.T) {
	t.Parallel()
	const grace = 100 * time.Millisecond
	tests := []struct {
		name, holder string
		wantLines    []string // nil: the holder writes all along, so only more lines than printf's are wanted
	}{
		{"silent holder", "sleep 300", []string{"first", "partial"}},
		{"busy holder", "yes err", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var lines []string
			c := Cmd{
				// The fifo makes the command wait until the holder has left the group, then print its pid. Without
				// its environment, the holder cannot be found by a Guard's sweep either (when another test ran Guard).
				Command: "printf 'first\\npartial' >&2; mkfifo f; setsid env -i sh -c 'echo $$ >f; exec " + tt.holder +
					"' >&2 & read pid <f; echo $pid",
				Dir:          t.TempDir(),
				Grace:        grace,
				OnStderrLine: func(l []byte) { lines = append(lines, string(l)) },
			}
			// The bound is measured from the pid line, printed just before the command exits: the shell's own start
			// on a loaded machine is no part of it. Without the forced close, Run would wait for the holder (300 s,
			// or for ever).
			begin := time.Now()
			var got []string
			var pidAt time.Time
			res, err := Run(context.Background(), c, []byte("\n"), 0, func(b []byte) error {
				got, pidAt = append(got, strings.TrimSuffix(string(b), "\n")), time.Now()
				return nil
			})
			elapsed, afterPid := time.Since(begin), time.Since(pidAt)
			if err != nil {
				t.Fatalf("Run(%q) error = %v, want nil", c.Command, err)
			}
			if len(got) == 1 {
				if pid, err := strconv.Atoi(got[0]); err == nil {
					_ = syscall.Kill(pid, syscall.SIGKILL) // it left the group: ours to clean up
				}
			}
			if len(got) != 1 {
				t.Fatalf("Run(%q) chunks = %q, want one pid", c.Command, got)
			}
			if elapsed < grace || afterPid > grace+3*time.Second {
				t.Errorf("Run(%q) took %v (%v after the command's last line), want at least %v and at most %v after that line",
					c.Command, elapsed, afterPid, grace, grace+3*time.Second)
			}
			if tt.wantLines == nil {
				if len(lines) < 3 || lines[0] != "first" {
					t.Errorf("Run(%q) stderr lines = %.60q..., want first then many", c.Command, lines)
				}
				return
			}
			if diff := cmp.Diff(tt.wantLines, lines); diff != "" {
				t.Errorf("Run(%q) stderr lines mismatch (-want +got):\n%s", c.Command, diff)
			}
			if want := "first\npartial"; res.StderrTail != want {
				t.Errorf("Run(%q) stderr tail = %q, want %q", c.Command, res.StderrTail, want)
			}
		})
	}
}

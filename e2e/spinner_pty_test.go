package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// spinnerFrames are the spinner's frame characters.
const spinnerFrames = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"

// TestSpinnerPTY runs an interactive send on a real pseudo-terminal while the agent (serve --exec, its command held
// on a FIFO the test writes once a frame is on the screen) takes longer than a frame. The answer must start on a
// line of its own: the spinner used to be erased only after the answer, so the screen showed
// "⠙ 1.4s task … workingTask ID: …". In a pane narrower than the spinner's line, each frame is cut to the width
// (a frame that wrapped scrolled a new line by on every tick).
func TestSpinnerPTY(t *testing.T) {
	t.Parallel()
	for _, cols := range []uint16{120, 24} {
		t.Run(fmt.Sprint(cols), func(t *testing.T) {
			t.Parallel()
			fifo := filepath.Join(t.TempDir(), "answer")
			if err := syscall.Mkfifo(fifo, 0o600); err != nil {
				t.Fatal(err)
			}
			srv := startServe(t, "--exec", "cat "+fifo, "--quiet")
			p := startPTYSize(t, cols, []string{"TERM=xterm", "NO_COLOR=1"}, "send", srv.url, "hi")
			p.waitFor("\x1b[K⠋") // the first frame is on the screen
			p.waitFor("\x1b[K⠙") // and the next: the spinner is redrawing
			// Opening the FIFO waits for cat, which the agent started before the task was named.
			if err := os.WriteFile(fifo, []byte("the answer\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			p.wantSuccess()
			raw := p.text()
			lines := playScreen(raw, int(cols))
			joined := strings.Join(lines, "\n")
			if strings.ContainsAny(joined, spinnerFrames) {
				t.Errorf("a spinner frame is left on the screen:\n%s\nraw: %q", joined, raw)
			}
			if !strings.Contains(joined, "the answer") {
				t.Errorf("no answer on the screen:\n%s", joined)
			}
			for _, l := range lines {
				if strings.Contains(l, "ID:") && !strings.HasPrefix(strings.TrimLeft(l, " "), "Task ID:") &&
					!strings.HasPrefix(strings.TrimLeft(l, " "), "Context ID:") {
					t.Errorf("the answer does not start its line: %q\nscreen:\n%s", l, joined)
				}
			}
			// Every frame fits the pane: it never wraps.
			frames := 0
			for _, seg := range strings.Split(raw, "\r\x1b[K")[1:] {
				if !strings.ContainsAny(firstRune(seg), spinnerFrames) {
					continue
				}
				frames++
				frame, _, _ := strings.Cut(seg, "\r")
				if n := len([]rune(frame)); n >= int(cols) {
					t.Errorf("frame %q is %d cells in a %d-column pane", frame, n, cols)
				}
			}
			if frames < 2 {
				t.Errorf("%d frames drawn, want at least the two waited for; raw: %q", frames, raw)
			}
		})
	}
}

func firstRune(s string) string {
	for _, r := range s {
		return string(r)
	}
	return ""
}

// playScreen plays raw output as a terminal of cols columns shows it and returns its lines: \r returns to the start
// of the line, \n starts the next one, ESC [ K clears to the end of the line, other CSI sequences are dropped, and a
// character past the last column wraps to the next line. Every character is taken as one cell.
func playScreen(raw string, cols int) []string {
	lines := [][]rune{nil}
	row, col := 0, 0
	rs := []rune(raw)
	for i := 0; i < len(rs); i++ {
		switch r := rs[i]; {
		case r == '\r':
			col = 0
		case r == '\n':
			row++
			if row == len(lines) {
				lines = append(lines, nil)
			}
		case r == 0x1b && i+1 < len(rs) && rs[i+1] == '[':
			j := i + 2
			for j < len(rs) && (rs[j] < 0x40 || rs[j] > 0x7e) {
				j++
			}
			if j < len(rs) && rs[j] == 'K' && j == i+2 {
				if col < len(lines[row]) {
					lines[row] = lines[row][:col]
				}
			}
			i = j
		default:
			if col == cols {
				row, col = row+1, 0
				if row == len(lines) {
					lines = append(lines, nil)
				}
			}
			for len(lines[row]) < col {
				lines[row] = append(lines[row], ' ')
			}
			if col < len(lines[row]) {
				lines[row][col] = r
			} else {
				lines[row] = append(lines[row], r)
			}
			col++
		}
	}
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = string(l)
	}
	return out
}

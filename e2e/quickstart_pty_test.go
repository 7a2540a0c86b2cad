package e2e

import (
	"os"
	"strconv"
	"strings"
	"testing"
)

// The README's own commands, pasted into a shell on a terminal, as a new user runs them: serve in the background,
// then a client command, both writing to the one terminal.

// startShellPTY runs script with bash on a pseudo-terminal cols columns wide. At cleanup the script's process group
// (bash and whatever it started in the background) is killed.
func startShellPTY(t *testing.T, cols uint16, env []string, script string) *ptyProc {
	t.Helper()
	return startPTYCommand(t, cols, env, "bash", "-c", script)
}

// readmeLine returns the README's command line that contains all of subs, "a2a" made the built binary, its trailing
// "&" and comment dropped.
func readmeLine(t *testing.T, text string, subs ...string) string {
	t.Helper()
	for _, l := range strings.Split(text, "\n") {
		found := strings.Contains(l, "a2a ")
		for _, s := range subs {
			found = found && strings.Contains(l, s)
		}
		if !found {
			continue
		}
		l, _, _ = strings.Cut(l, "  #") // the comment
		l = strings.TrimSuffix(strings.TrimSpace(l), "&")
		l = strings.Replace(strings.TrimSpace(l), "./bin/a2a ", "a2a ", 1)
		return strings.Replace(l, "a2a ", bin+" ", 1)
	}
	t.Fatalf("README has no command line with %q", subs)
	return ""
}

// TestQuickStartOnTerminal: the README's first block (serve --echo on port 8080 in the background, then send to
// localhost:8080) on a terminal, with a token set the way serve and the client read it from the environment. serve's
// card names 127.0.0.1, the user typed localhost: the token reaches the agent (it used to be withheld, and send exited
// 4). Then the tour's slow agent (serve --exec "for i in 1 2 3 … sleep 0.5") and a send to it in a wide and a narrow
// pane, serve's traffic log on the same terminal: no frame is left, the answer starts its own line, frames fit the
// pane (serve's log line used to be appended to the last frame: "⠹ 1.5s task … working2026-11-27T… SendStreaming…").
func TestQuickStartOnTerminal(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	readme := string(data)

	t.Run("token", func(t *testing.T) {
		t.Parallel()
		serveLine := readmeLine(t, quickStart(t), "serve --echo", "8080")
		sendLine := readmeLine(t, quickStart(t), "send localhost:8080")
		port := strconv.Itoa(freePort(t))
		script := strings.ReplaceAll(serveLine+" &\n"+sendLine+"\nrc=$?\nkill $!\nwait\nexit $rc\n", "8080", port)
		const token = "qu1ck-st4rt-t0ken"
		// Without the client's half the agent refuses (exit 4): the token is in force.
		p := startShellPTY(t, 120, []string{"TERM=xterm", "NO_COLOR=1", "A2ACLI_SERVE_TOKEN=" + token}, script)
		if code := p.wait(); code != 4 {
			t.Fatalf("quick start without the client's token: exit %d, want 4 (refused)\n%s", code, p.text())
		}
		p = startShellPTY(t, 120, []string{"TERM=xterm", "NO_COLOR=1", "A2ACLI_SERVE_TOKEN=" + token,
			"A2ACLI_AUTH=Bearer " + token}, script)
		p.wantSuccess()
		screen := strings.Join(playScreen(p.text(), 120), "\n")
		wantContains(t, "screen", screen, "listening on http://127.0.0.1:"+port, "hello", "State: completed")
		if strings.Contains(screen, withheldNote) || strings.Contains(screen, token) {
			t.Fatalf("the token was withheld from localhost, or shown:\n%s", screen)
		}
	})

	for _, cols := range []uint16{120, 24} {
		t.Run("spinner-"+strconv.Itoa(int(cols)), func(t *testing.T) {
			t.Parallel()
			serveLine := readmeLine(t, readme, "serve --exec", "sleep 0.5")
			port := strconv.Itoa(freePort(t))
			script := strings.ReplaceAll(serveLine, "8082", port) + " &\n" +
				bin + " send localhost:" + port + " count\nrc=$?\nkill $!\nwait\nexit $rc\n"
			p := startShellPTY(t, cols, []string{"TERM=xterm", "NO_COLOR=1"}, script)
			p.waitFor("\x1b[K⠋") // the agent takes 1.5 s: frames are drawn
			p.wantSuccess()
			raw := p.text()
			lines := playScreen(raw, int(cols))
			screen := strings.Join(lines, "\n")
			if strings.ContainsAny(screen, spinnerFrames) {
				t.Errorf("a spinner frame is left on the screen:\n%s\nraw: %q", screen, raw)
			}
			wantContains(t, "screen", screen, "State: completed")
			for _, l := range lines {
				if strings.Contains(l, "ID:") && !strings.HasPrefix(strings.TrimLeft(l, " "), "Task ID:") &&
					!strings.HasPrefix(strings.TrimLeft(l, " "), "Context ID:") {
					t.Errorf("the answer does not start its line: %q\nscreen:\n%s", l, screen)
				}
			}
			for _, seg := range strings.Split(raw, "\r\x1b[K")[1:] {
				if frame, _, _ := strings.Cut(seg, "\r"); strings.ContainsAny(firstRune(frame), spinnerFrames) &&
					len([]rune(frame)) >= int(cols) {
					t.Errorf("frame %q is %d cells in a %d-column pane", frame, len([]rune(frame)), cols)
				}
			}
		})
	}
}

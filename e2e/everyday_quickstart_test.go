package e2e

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"
)

// quickStart returns the README's first sh block without the build line: `a2a serve … &` and the send after it.
func quickStart(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(data), "```sh\n")
	block, _, ok2 := strings.Cut(rest, "```")
	if !ok || !ok2 {
		t.Fatal("README has no sh block")
	}
	var lines []string
	for _, l := range strings.Split(block, "\n") {
		if strings.Contains(l, "a2a ") {
			lines = append(lines, l)
		}
	}
	if len(lines) != 2 || !strings.HasSuffix(strings.TrimSpace(strings.Split(lines[0], "#")[0]), "&") {
		t.Fatalf("README's first block is not `serve … &` then a command: %q", lines)
	}
	return strings.Join(lines, "\n")
}

// TestQuickStartCannotRace: the README's quick start pasted as one block (serve in the background, then send at once)
// works every time: the client waits a moment for a loopback agent that refuses connections while it starts.
func TestQuickStartCannotRace(t *testing.T) {
	t.Parallel()
	block := quickStart(t)
	for i := 0; i < 10; i++ {
		port := strconv.Itoa(freePort(t))
		script := strings.ReplaceAll(strings.ReplaceAll(block, "./bin/a2a", bin), "8080", port) +
			"\nrc=$?\nkill $! 2>/dev/null\nwait\nexit $rc\n"
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		cmd := exec.CommandContext(ctx, "sh", "-c", script)
		cmd.Env = cmdEnv()
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		err := cmd.Run()
		cancel()
		if err != nil {
			t.Fatalf("run %d: %v\n--- script:\n%s\n--- stdout:\n%s\n--- stderr:\n%s", i, err, script, out.String(), errb.String())
		}
		if !strings.Contains(out.String(), "hello") {
			t.Fatalf("run %d: no echo of hello:\n%s\n%s", i, out.String(), errb.String())
		}
	}
}

// A refused connection to a port nobody listens on still fails, as unreachable, within the retry's bound.
func TestRefusedStillFails(t *testing.T) {
	t.Parallel()
	port := strconv.Itoa(refusingPort(t))
	start := time.Now()
	r := run(t, "", "send", "127.0.0.1:"+port, "hi", "-v")
	wantCode(t, r, 3)
	wantContains(t, "stderr", r.stderr, "connection refused", "trying again")
	if d := time.Since(start); d > 20*time.Second {
		t.Fatalf("refused connection took %s to fail", d)
	}
}

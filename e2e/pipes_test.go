package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/a2acli/a2a/internal/testagent"

	"github.com/a2acli/a2a/internal/testskip"
)

// sh runs a shell pipeline with the built binary first on PATH.
func sh(t *testing.T, script string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "/bin/sh", "-c", script)
	cmd.WaitDelay = 5 * time.Second // a process the script left behind must not hold its pipes (and the test) open
	cmd.Env = append(cmdEnv(), "PATH="+filepath.Dir(bin)+string(os.PathListSeparator)+os.Getenv("PATH"))
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("sh -c %q: %v", script, err)
	}
	return result{stdout: out.String(), stderr: errb.String(), code: code}
}

func needJQ(t *testing.T) {
	if _, err := exec.LookPath("jq"); err != nil {
		testskip.Missing(t, testskip.JQ, "jq is not installed (.ci/run installs it)")
	}
}

// TestPipeIntoJQ checks the README's jq idioms against a real agent.
func TestPipeIntoJQ(t *testing.T) {
	t.Parallel()
	needJQ(t)
	ag := testagent.Start(t, testagent.Options{Behavior: testagent.Chunks, Chunks: 5})
	r := sh(t, "a2a send "+ag.URL+" hi -o json | jq -r .task.status.state")
	wantCode(t, r, 0)
	if strings.TrimSpace(r.stdout) != "TASK_STATE_COMPLETED" {
		t.Fatalf("jq .task.status.state = %q\n%s", r.stdout, r)
	}
	r = sh(t, "a2a send "+ag.URL+" count --stream -o json | jq -c 'select(.artifactUpdate) | .artifactUpdate.artifact.parts[0].text'")
	wantCode(t, r, 0)
	if got := strings.Count(r.stdout, "\n"); got != 5 {
		t.Fatalf("jq saw %d artifact updates, want 5\n%s", got, r)
	}
	r = sh(t, "a2a list tasks "+ag.URL+" -o json | jq -r '.tasks[] | [.id, .status.state] | @tsv'")
	wantCode(t, r, 0)
	if !strings.Contains(r.stdout, "\tTASK_STATE_COMPLETED") {
		t.Fatalf("list tasks | jq @tsv:\n%s", r)
	}
}

// TestPipeIntoWhileRead checks that a stream is line-delimited and flushed per event.
func TestPipeIntoWhileRead(t *testing.T) {
	t.Parallel()
	ag := testagent.Start(t, testagent.Options{Behavior: testagent.Chunks, Chunks: 7})
	r := sh(t, "a2a send "+ag.URL+" count --stream -o json | while read -r line; do printf 'event: %s\\n' \"$line\"; done")
	wantCode(t, r, 0)
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	if len(lines) < 9 {
		t.Fatalf("got %d lines, want task + working + 7 chunks + completed\n%s", len(lines), r)
	}
	for _, l := range lines {
		payload, ok := strings.CutPrefix(l, "event: ")
		if !ok || !json.Valid([]byte(payload)) {
			t.Fatalf("line %q is not one JSON event", l)
		}
	}
	// Text mode in a pipe: stable labels, no escape codes, greppable.
	r = sh(t, "a2a send "+ag.URL+" hi | grep '^State:' | tail -n 1")
	if strings.TrimSpace(r.stdout) != "State: completed" {
		t.Fatalf("grep State in a pipe = %q", r.stdout)
	}
}

// TestInterrupt checks Ctrl-C on a running stream: exit 130 at once, the events so far on stdout.
func TestInterrupt(t *testing.T) {
	t.Parallel()
	ag := testagent.Start(t, testagent.Options{Behavior: testagent.Slow, Delay: time.Minute})
	cmd := exec.Command(bin, "send", ag.URL, "wait", "--stream", "-o", "json")
	cmd.Env = cmdEnv()
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var errb strings.Builder
	cmd.Stderr = &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(stdout)
	if !sc.Scan() { // the first event proves the stream is open
		t.Fatalf("no event before the interrupt: %v %s", sc.Err(), errb.String())
	}
	start := time.Now()
	cmd.Process.Signal(syscall.SIGINT)
	var rest []string
	for sc.Scan() {
		rest = append(rest, sc.Text())
	}
	err = cmd.Wait()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 130 {
		t.Fatalf("exit = %v, want 130\nstderr: %s", err, errb.String())
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("took %s to stop after SIGINT", d)
	}
	if len(rest) == 0 || !strings.Contains(rest[len(rest)-1], "A2ANC_ERR_INTERRUPTED") {
		t.Fatalf("last line should be the interrupted error document, got %q", rest)
	}
}

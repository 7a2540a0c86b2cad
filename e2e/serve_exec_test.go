package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/google/go-cmp/cmp"
)

// streamChunks runs send --stream -o json and returns the artifact chunk texts and the last artifact update.
func streamChunks(t *testing.T, url string, args ...string) (chunks []string, last *a2a.TaskArtifactUpdateEvent, events []a2a.Event) {
	t.Helper()
	r := run(t, "", append([]string{"send", url, "--stream", "-o", "json"}, args...)...)
	wantCode(t, r, 0)
	events, errDoc := jsonLines(t, r.stdout)
	if errDoc != nil {
		t.Fatalf("stream ended with an error %v", errDoc)
	}
	for _, ev := range events {
		if s, ok := chunkText(ev); ok {
			chunks = append(chunks, s)
			last = ev.(*a2a.TaskArtifactUpdateEvent)
		}
	}
	if st := lastState(t, events); st != a2a.TaskStateCompleted {
		t.Fatalf("last state %s, want completed", st)
	}
	return chunks, last, events
}

// TestExecChunkArrivesWhileRunning: a chunk reaches the client while the command is still running.
func TestExecChunkArrivesWhileRunning(t *testing.T) {
	t.Parallel()
	srv := startServe(t, "--exec", `printf "1\n"; sleep 30`, "--chunk=\n", "--quiet")
	start := time.Now()
	c := startClient(t, "send", srv.url, "go", "--stream", "-o", "json")
	text, id := firstChunk(t, c, 10*time.Second)
	if d := time.Since(start); text != "1\n" || d > 10*time.Second {
		t.Fatalf("first chunk %q after %s, want %q while the command sleeps", text, d, "1\n")
	}
	wantCode(t, run(t, "", "cancel", srv.url, string(id)), 0)
}

// TestExecManyChunksInOrder streams 20000 lines: all arrive in order and the last update has lastChunk.
func TestExecManyChunksInOrder(t *testing.T) {
	t.Parallel()
	srv := startServe(t, "--exec", "seq 20000", "--chunk=\n", "--quiet")
	chunks, last, _ := streamChunks(t, srv.url, "count")
	if last == nil || !last.LastChunk {
		t.Fatalf("last artifact update %+v has no lastChunk", last)
	}
	if len(chunks) > 0 && chunks[len(chunks)-1] == "" {
		chunks = chunks[:len(chunks)-1] // the end marker
	}
	if len(chunks) != 20000 {
		t.Fatalf("got %d chunks, want 20000", len(chunks))
	}
	for i, s := range chunks {
		if s != strconv.Itoa(i+1)+"\n" {
			t.Fatalf("chunk %d = %q, want %d", i, s, i+1)
		}
	}
}

// TestExecDelimiters: multi-byte delimiters, output without any delimiter, output longer than a piece.
func TestExecDelimiters(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("x", 200000)
	tests := []struct {
		name, command string
		chunk         []string
		want          string // joined chunks
		minChunks     int
	}{
		{"multi-byte", `printf 'alpha--8<--beta--8<--gamma'`, []string{"--chunk", "--8<--"}, "alpha--8<--beta--8<--gamma", 3},
		{"no delimiter", `printf 'one piece only'`, []string{"--chunk=;"}, "one piece only", 1},
		{"longer than a piece", `head -c 200000 /dev/zero | tr '\0' x`, []string{"--chunk=;"}, long, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := startServe(t, append([]string{"--exec", tt.command, "--quiet"}, tt.chunk...)...)
			chunks, last, _ := streamChunks(t, srv.url, "x")
			if got := strings.Join(chunks, ""); got != tt.want {
				t.Fatalf("joined chunks = %q, want %q", trim(got), trim(tt.want))
			}
			if len(chunks) < tt.minChunks || !last.LastChunk {
				t.Fatalf("%d chunks %q (lastChunk %v), want at least %d and lastChunk", len(chunks), chunks, last.LastChunk, tt.minChunks)
			}
			if tt.name == "multi-byte" {
				if diff := cmp.Diff([]string{"alpha--8<--", "beta--8<--", "gamma"}, chunks[:3]); diff != "" {
					t.Fatalf("chunks (-want +got):\n%s", diff)
				}
			}
		})
	}
}

// TestExecBinaryOutput: invalid UTF-8 without --chunk becomes a file part saved byte for byte; with --chunk the
// chunks that are not UTF-8 travel as raw parts, and -o raw gives back every byte.
func TestExecBinaryOutput(t *testing.T) {
	t.Parallel()
	want := []byte{0xff, 0xfe, 0x00, 'a', 'b', 0x80, '\n', 0xc3}
	command := `printf '\377\376\000ab\200\n\303'`
	whole := startServe(t, "--exec", command, "--quiet")
	dir := t.TempDir()
	r := run(t, "", "send", whole.url, "bin", "--save", dir)
	wantCode(t, r, 0)
	wantContains(t, "stdout", r.stdout, "State: completed", "[file")
	files, err := os.ReadDir(dir)
	if err != nil || len(files) != 1 {
		t.Fatalf("--save wrote %v (%v), want one file\n%s", files, err, r)
	}
	got, err := os.ReadFile(filepath.Join(dir, files[0].Name()))
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("saved bytes %q (%v), want %q", got, err, want)
	}

	chunked := startServe(t, "--exec", command, "--chunk=\n", "--quiet")
	_, _, events := streamChunks(t, chunked.url, "bin")
	var kinds []string
	for _, ev := range events {
		if au, ok := ev.(*a2a.TaskArtifactUpdateEvent); ok {
			for _, p := range au.Artifact.Parts {
				if p.Raw() != nil {
					kinds = append(kinds, "raw:"+string(p.Raw()))
				} else {
					kinds = append(kinds, "text:"+p.Text())
				}
			}
		}
	}
	if diff := cmp.Diff([]string{"raw:\xff\xfe\x00ab\x80\n", "raw:\xc3", "text:"}, kinds); diff != "" {
		t.Fatalf("chunk parts (-want +got):\n%s", diff)
	}
	r = run(t, "", "send", chunked.url, "bin", "--stream", "-o", "raw")
	wantCode(t, r, 0)
	if r.stdout != string(want) {
		t.Fatalf("-o raw stdout %q, want %q", r.stdout, want)
	}
}

// TestExecHugeStderr: a command failing after 20 MB of stderr fails the task with its exit code and a bounded
// tail of stderr, and the server does not hold the whole stderr in memory.
func TestExecHugeStderr(t *testing.T) {
	t.Parallel()
	srv := startServe(t, "--exec", "yes err | head -c 20000000 >&2; exit 3", "--quiet")
	r := run(t, "", "send", srv.url, "x", "-o", "json")
	wantCode(t, r, 0)
	task := sendTask(t, r)
	if task.Status.State != a2a.TaskStateFailed || task.Status.Message == nil {
		t.Fatalf("task %s, want failed with a status message", task.Status.State)
	}
	msg := task.Status.Message.Parts[0].Text()
	if !strings.Contains(msg, "3") || !strings.Contains(msg, "err") || len(msg) > 8192 {
		t.Fatalf("status message (%d bytes) %q, want the exit code 3 and a short stderr tail", len(msg), trim(msg))
	}
	if kb := peakRSSKB(t, srv.cmd.Process.Pid); kb > 100<<10 {
		t.Fatalf("server peak RSS %d kB, want under 100 MB", kb)
	}
}

// peakRSSKB returns the peak resident set size (VmHWM) of pid in kB, or VmRSS when the peak is not reported.
func peakRSSKB(t testing.TB, pid int) int {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			n, err := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(v), " kB"))
			if err == nil {
				return n
			}
		}
	}
	return rssKB(t, pid)
}

// TestExecExitCodes: exit 0 completes, a non-zero exit fails with the code in the status message.
func TestExecExitCodes(t *testing.T) {
	t.Parallel()
	srv := startServe(t, "--exec", `code=$(cat); echo "ran $code"; exit "$code"`, "--quiet")
	for _, tt := range []struct {
		code  string
		state a2a.TaskState
	}{{"0", a2a.TaskStateCompleted}, {"1", a2a.TaskStateFailed}, {"42", a2a.TaskStateFailed}} {
		r := run(t, "", "send", srv.url, tt.code, "-o", "json")
		wantCode(t, r, 0)
		task := sendTask(t, r)
		if task.Status.State != tt.state {
			t.Fatalf("exit %s: state %s, want %s\n%s", tt.code, task.Status.State, tt.state, r)
		}
		if tt.code != "0" && !strings.Contains(task.Status.Message.Parts[0].Text(), tt.code) {
			t.Fatalf("exit %s: status message %q lacks the code", tt.code, task.Status.Message.Parts[0].Text())
		}
	}
	r := run(t, "", "send", srv.url, "6", "--fail")
	wantCode(t, r, 6)
}

// TestExecEnvironmentAndInput: A2A_* variables, --input json, and a follow-up message in the same context rerunning
// the command.
func TestExecEnvironmentAndInput(t *testing.T) {
	t.Parallel()
	env := startServe(t, "--exec", `printf '%s %s %s' "$A2A_TASK_ID" "$A2A_CONTEXT_ID" "$A2A_MESSAGE_ID"`, "--quiet")
	r := run(t, "", "send", env.url, "--json", `{"role":"ROLE_USER","messageId":"msg-123","parts":[{"text":"x"}]}`, "-o", "json")
	wantCode(t, r, 0)
	task := sendTask(t, r)
	if got, want := task.Artifacts[0].Parts[0].Text(), fmt.Sprintf("%s %s msg-123", task.ID, task.ContextID); got != want {
		t.Fatalf("environment %q, want %q", got, want)
	}

	js := startServe(t, "--exec", "cat", "--input", "json", "--quiet")
	r = run(t, "", "send", js.url, "as json", "-o", "json")
	wantCode(t, r, 0)
	var msg a2a.Message
	stdin := sendTask(t, r).Artifacts[0].Parts[0].Text()
	if err := json.Unmarshal([]byte(stdin), &msg); err != nil || len(msg.Parts) != 1 || msg.Parts[0].Text() != "as json" {
		t.Fatalf("--input json stdin %q (%v), want the message as JSON", stdin, err)
	}

	again := startServe(t, "--exec", `echo "run $(cat)"`, "--quiet")
	first := sendTask(t, run(t, "", "send", again.url, "one", "-o", "json"))
	// A task in a terminal state takes no more messages (UnsupportedOperationError, as the specification says)
	// and the command does not run again; a new task in the same context does.
	r = run(t, "", "send", again.url, "--task", string(first.ID), "two", "-o", "json")
	wantCode(t, r, 1)
	wantContains(t, "stdout", r.stdout, `"code":"UnsupportedOperationError"`)
	r = run(t, "", "send", again.url, "--context", first.ContextID, "two", "-o", "json")
	wantCode(t, r, 0)
	second := sendTask(t, r)
	if second.ID == first.ID || second.ContextID != first.ContextID || second.Status.State != a2a.TaskStateCompleted ||
		!strings.Contains(r.stdout, "run two") {
		t.Fatalf("follow-up: want a new task in the same context completed with the command's new output\n%s", r)
	}
}

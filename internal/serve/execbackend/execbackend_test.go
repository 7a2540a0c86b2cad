package execbackend

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/a2acli/a2a/internal/serve"
	"github.com/a2acli/a2a/internal/serve/servetest"
	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/google/go-cmp/cmp"
)

func execServer(t *testing.T, c Config) *servetest.Server {
	t.Helper()
	return startServer(t, serve.Config{Backend: New(c), Quiet: true, Transports: servetest.AllTransports})
}

func TestExecChunks(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name    string
		command string
		delim   string
		want    []string
	}{
		{"lines", "for i in 1 2 3; do echo $i; done", "\n", []string{"1\n", "2\n", "3\n", ""}},
		{"blank lines", "printf 'a\\n\\n\\nb'", "\n", []string{"a\n", "\n", "\n", "b", ""}},
		{"space", "printf 'alpha beta  gamma'", " ", []string{"alpha ", "beta ", " ", "gamma", ""}},
		{"multi-byte delimiter", "printf 'a\\n\\nb\\n\\nc'", "\n\n", []string{"a\n\n", "b\n\n", "c", ""}},
		{"invalid utf-8 as raw", "printf 'ok\\n\\377\\376x\\n'", "\n", []string{"ok\n", "raw:\xff\xfex\n", ""}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := execServer(t, Config{Command: tc.command, Chunk: []byte(tc.delim)})
			c := servetest.NewClient(t, srv.URL, a2a.TransportProtocolHTTPJSON)
			evs, err := servetest.Collect(t, c.SendStreamingMessage(context.Background(), servetest.TextMessage("x")))
			if err != nil {
				t.Fatalf("stream: %v", err)
			}
			texts, last, state := servetest.Chunks(evs)
			if diff := cmp.Diff(tc.want, texts); diff != "" {
				t.Errorf("chunks (-want +got):\n%s", diff)
			}
			if !last || state != a2a.TaskStateCompleted {
				t.Errorf("lastChunk=%v state=%v, want true completed", last, state)
			}
		})
	}
}

func TestExecManyChunksInOrder(t *testing.T) {
	t.Parallel()
	srv := execServer(t, Config{Command: "seq 1 5000", Chunk: []byte("\n")})
	c := servetest.NewClient(t, srv.URL, a2a.TransportProtocolGRPC)
	evs, err := servetest.Collect(t, c.SendStreamingMessage(context.Background(), servetest.TextMessage("x")))
	if err != nil {
		t.Fatalf("stream: %v", err)
	}
	texts, _, _ := servetest.Chunks(evs)
	for i := range 5000 {
		if texts[i] != strconv.Itoa(i+1)+"\n" {
			t.Fatalf("chunk %d = %q, want %d", i, texts[i], i+1)
		}
	}
	task, err := c.GetTask(context.Background(), &a2a.GetTaskRequest{ID: evs[0].TaskInfo().TaskID})
	if err != nil || len(task.Artifacts) != 1 {
		t.Fatalf("GetTask() artifacts = %v, %v; want one artifact", task, err)
	}
	// The stored task keeps the same text; past the first parts, chunks are joined (tasks.appendPart).
	var want, got strings.Builder
	for i := range 5000 {
		want.WriteString(strconv.Itoa(i+1) + "\n")
	}
	parts := task.Artifacts[0].Parts
	for _, p := range parts {
		got.WriteString(p.Text())
	}
	if got.String() != want.String() || len(parts) >= 5001 || parts[0].Text() != "1\n" {
		t.Fatalf("GetTask() keeps %d parts of %d bytes, want the %d bytes of seq's output in fewer than 5001 parts",
			len(parts), got.Len(), want.Len())
	}
}

func TestExecWholeOutput(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, command string
		wantText      string
		wantRaw       []byte
	}{
		{"text", "cat; printf ' done'", "in\n{\"a\":1} done", nil},
		{"binary", "printf '\\377\\000\\001'", "", []byte{0xff, 0, 1}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := execServer(t, Config{Command: tc.command})
			c := servetest.NewClient(t, srv.URL, a2a.TransportProtocolJSONRPC)
			req := &a2a.SendMessageRequest{Message: a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("in"), a2a.NewDataPart(map[string]any{"a": 1}))}
			res, err := c.SendMessage(context.Background(), req)
			if err != nil {
				t.Fatalf("SendMessage() = %v", err)
			}
			task := res.(*a2a.Task)
			if task.Status.State != a2a.TaskStateCompleted || len(task.Artifacts) != 1 {
				t.Fatalf("task = %v with %d artifacts, want completed with 1", task.Status.State, len(task.Artifacts))
			}
			p := task.Artifacts[0].Parts[0]
			if tc.wantRaw != nil {
				if diff := cmp.Diff(tc.wantRaw, p.Raw()); diff != "" {
					t.Errorf("raw part (-want +got):\n%s", diff)
				}
			} else if p.Text() != tc.wantText {
				t.Errorf("text = %q, want %q", p.Text(), tc.wantText)
			}
		})
	}
}

func TestExecFailure(t *testing.T) {
	t.Parallel()
	srv := execServer(t, Config{Command: "echo boom >&2; exit 3"})
	c := servetest.NewClient(t, srv.URL, a2a.TransportProtocolHTTPJSON)
	res, err := c.SendMessage(context.Background(), servetest.TextMessage("x"))
	if err != nil {
		t.Fatalf("SendMessage() = %v", err)
	}
	task := res.(*a2a.Task)
	msg := ""
	if task.Status.Message != nil {
		msg = servetest.PartsText(task.Status.Message.Parts)
	}
	if task.Status.State != a2a.TaskStateFailed || msg != "command exited with status 3: boom" {
		t.Errorf("task = %v %q, want failed with exit status and stderr", task.Status.State, msg)
	}
}

func TestExecTimeout(t *testing.T) {
	t.Parallel()
	srv := execServer(t, Config{Command: "sleep 30", Timeout: 100 * time.Millisecond, Grace: 100 * time.Millisecond})
	c := servetest.NewClient(t, srv.URL, a2a.TransportProtocolHTTPJSON)
	res, err := c.SendMessage(context.Background(), servetest.TextMessage("x"))
	if err != nil {
		t.Fatalf("SendMessage() = %v", err)
	}
	task := res.(*a2a.Task)
	if task.Status.State != a2a.TaskStateFailed || !strings.Contains(servetest.PartsText(task.Status.Message.Parts), "timed out") {
		t.Errorf("task = %v, want failed with timeout message", task.Status)
	}
}

// pidAlive reports whether a process still runs. A zombie counts as dead: once its parent was
// killed it waits for init (which may not reap in a container), but it no longer runs.
func pidAlive(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	_, rest, _ := strings.Cut(string(b), ") ")
	return !strings.HasPrefix(rest, "Z")
}

// waitPIDFile waits for the command to publish the PID of its grandchild.
func readPID(t *testing.T, path string) int {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read pid file: %v", err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatalf("pid file %q: %v", b, err)
	}
	return pid
}

// The first chunk must arrive while the command still runs; cancel must end the stream with
// canceled and kill the grandchild.
func TestExecFirstChunkThenCancel(t *testing.T) {
	t.Parallel()
	pidFile := filepath.Join(t.TempDir(), "pid")
	cmd := "sleep 30 & echo $! > " + pidFile + "; printf '1\\n'; wait"
	srv := execServer(t, Config{Command: cmd, Chunk: []byte("\n"), Grace: 200 * time.Millisecond})
	c := servetest.NewClient(t, srv.URL, a2a.TransportProtocolHTTPJSON)
	ctx := context.Background()
	var taskID a2a.TaskID
	var got []string
	var final a2a.TaskState
	for ev, err := range c.SendStreamingMessage(ctx, servetest.TextMessage("x")) {
		if err != nil {
			t.Fatalf("stream: %v", err)
		}
		switch v := ev.(type) {
		case *a2a.Task:
			taskID = v.ID
		case *a2a.TaskArtifactUpdateEvent:
			got = append(got, servetest.PartsText(v.Artifact.Parts))
			if len(got) == 1 {
				start := time.Now()
				task, err := c.CancelTask(ctx, &a2a.CancelTaskRequest{ID: taskID})
				if err != nil || task.Status.State != a2a.TaskStateCanceled {
					t.Fatalf("CancelTask() = %v, %v; want canceled", task, err)
				}
				if d := time.Since(start); d > 2*time.Second {
					t.Errorf("CancelTask took %v, want within the grace", d)
				}
			}
		case *a2a.TaskStatusUpdateEvent:
			final = v.Status.State
		}
	}
	if diff := cmp.Diff([]string{"1\n", ""}, got); diff != "" {
		t.Errorf("chunks (-want +got):\n%s", diff)
	}
	if final != a2a.TaskStateCanceled {
		t.Errorf("final state = %v, want canceled", final)
	}
	if pid := readPID(t, pidFile); pidAlive(pid) {
		t.Errorf("grandchild %d still alive after cancel", pid)
	}
}

func TestExecMaxConcurrentFIFO(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	order := filepath.Join(dir, "order")
	srv := execServer(t, Config{Command: "cat >> " + order, MaxConcurrent: 1})
	c := servetest.NewClient(t, srv.URL, a2a.TransportProtocolHTTPJSON)
	ctx := context.Background()
	var ids []a2a.TaskID
	for i := range 5 {
		req := servetest.TextMessage(strconv.Itoa(i))
		req.Config = &a2a.SendMessageConfig{ReturnImmediately: true}
		res, err := c.SendMessage(ctx, req)
		if err != nil {
			t.Fatalf("SendMessage(%d) = %v", i, err)
		}
		ids = append(ids, res.(*a2a.Task).ID)
	}
	for _, id := range ids {
		for ev, err := range c.SubscribeToTask(ctx, &a2a.SubscribeToTaskRequest{ID: id}) {
			if errors.Is(err, a2a.ErrUnsupportedOperation) {
				break // the task has already ended
			}
			if err != nil {
				t.Fatalf("subscribe %s: %v", id, err)
			}
			_ = ev // drained until the task ends
		}
	}
	b, err := os.ReadFile(order)
	if err != nil {
		t.Fatal(err)
	}
	if string(b) != "01234" {
		t.Errorf("run order = %q, want 01234", b)
	}
}

func TestShutdownEndsStreamAndKillsProcess(t *testing.T) {
	t.Parallel()
	pidFile := filepath.Join(t.TempDir(), "pid")
	cmd := "sleep 30 & echo $! > " + pidFile + "; printf 'go\\n'; wait"
	srv := execServer(t, Config{Command: cmd, Chunk: []byte("\n"), Grace: 200 * time.Millisecond})
	c := servetest.NewClient(t, srv.URL, a2a.TransportProtocolJSONRPC)
	var final a2a.TaskState
	shutdownErr := make(chan error, 1)
	for ev, err := range c.SendStreamingMessage(context.Background(), servetest.TextMessage("x")) {
		if err != nil {
			t.Fatalf("stream: %v", err)
		}
		switch v := ev.(type) {
		case *a2a.TaskArtifactUpdateEvent:
			if servetest.PartsText(v.Artifact.Parts) == "go\n" {
				go func() { shutdownErr <- srv.Shutdown() }()
			}
		case *a2a.TaskStatusUpdateEvent:
			final = v.Status.State
		}
	}
	if final != a2a.TaskStateCanceled {
		t.Errorf("final state = %v, want canceled", final)
	}
	if err := <-shutdownErr; err != nil {
		t.Errorf("Run() = %v, want nil", err)
	}
	if pid := readPID(t, pidFile); pidAlive(pid) {
		t.Errorf("grandchild %d still alive after shutdown", pid)
	}
}

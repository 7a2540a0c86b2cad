package follow

import (
	"bytes"
	"context"
	"errors"
	"iter"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/a2acli/a2a/internal/client"
	"github.com/a2acli/a2a/internal/output"
	"github.com/a2acli/a2a/internal/testagent"
	"github.com/a2aproject/a2a-go/v2/a2a"
)

// connect dials the in-process agent ag the way the CLI does, with --timeout d (0: none).
// The log is the run's one -v log (its writes are serialised); read the buffer only once the calls are over.
func connect(t *testing.T, ag *testagent.Agent, d time.Duration) (*client.Conn, *client.Log, *bytes.Buffer) {
	t.Helper()
	var buf bytes.Buffer
	log := &client.Log{W: &buf, Enabled: true}
	c, err := client.NewDialer(&client.Options{Timeout: d}, log, nil).Connect(context.Background(), ag.URL)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(func() { c.Destroy() }) //nolint:errcheck // closing a test client
	return c, log, &buf
}

func send(c *client.Conn, text string) func(context.Context) iter.Seq2[a2a.Event, error] {
	req := &a2a.SendMessageRequest{Message: a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart(text))}
	return func(ctx context.Context) iter.Seq2[a2a.Event, error] { return c.SendStreamingMessage(ctx, req) }
}

// TestTurnRecoversFromABrokenStream: the agent cuts the stream in the middle of the task; the turn resubscribes or
// polls and ends with the completed task, as send --stream does.
func TestTurnRecoversFromABrokenStream(t *testing.T) {
	t.Parallel()
	ag := testagent.Start(t, testagent.Options{Behavior: testagent.DieMidStream})
	c, log, logBuf := connect(t, ag, 0)
	var out bytes.Buffer
	turn := New(&Env{Log: log, Wait: &Wait{PollInterval: 10 * time.Millisecond}}, c, ag.URL, Answers{}, output.New(&out, output.Options{}))
	turn.Recover = true
	if err := turn.Run(context.Background(), send(c, "hi")); err != nil {
		t.Fatalf("Run() = %v\nlog:\n%s", err, logBuf)
	}
	if got := turn.View.State(); got != a2a.TaskStateCompleted {
		t.Errorf("final state = %s, want completed\nlog:\n%s", got, logBuf)
	}
	if !strings.Contains(logBuf.String(), "resubscribing") {
		t.Errorf("log does not say the turn resubscribed:\n%s", logBuf)
	}
	if turn.Stopped {
		t.Error("Stopped = true on a plain agent")
	}
}

// TestTurnWithoutRecoverReportsTheBreak: without Recover (chat), a broken stream is the turn's error.
func TestTurnWithoutRecoverReportsTheBreak(t *testing.T) {
	t.Parallel()
	ag := testagent.Start(t, testagent.Options{Behavior: testagent.DieMidStream})
	c, log, _ := connect(t, ag, 0)
	var out bytes.Buffer
	turn := New(&Env{Log: log}, c, ag.URL, Answers{}, output.New(&out, output.Options{}))
	if err := turn.Run(context.Background(), send(c, "hi")); err == nil {
		t.Fatalf("Run() = nil after the agent cut the stream, want an error (state %s)", turn.View.State())
	}
}

// TestTurnQuietRendersNothing: a quiet turn keeps the outcome but prints no event.
func TestTurnQuietRendersNothing(t *testing.T) {
	t.Parallel()
	ag := testagent.Start(t, testagent.Options{Behavior: testagent.Echo})
	c, _, _ := connect(t, ag, 0)
	var out bytes.Buffer
	turn := New(&Env{Log: &client.Log{}}, c, ag.URL, Answers{}, output.New(&out, output.Options{}))
	turn.Quiet()
	if err := turn.Run(context.Background(), send(c, "hi")); err != nil {
		t.Fatal(err)
	}
	if out.Len() != 0 {
		t.Errorf("a quiet turn printed %q", out.String())
	}
	if id, _ := turn.IDs(); id == "" || turn.View.State() != a2a.TaskStateCompleted {
		t.Errorf("IDs() = %q, state %s; want the completed task", id, turn.View.State())
	}
	if n := len(turn.Unanswered()); n != 0 {
		t.Errorf("Unanswered() = %d calls on a plain agent", n)
	}
}

// TestPollTaskUntilSettled: PollTask asks GetTask until the slow task completes, and reports the change of state.
func TestPollTaskUntilSettled(t *testing.T) {
	t.Parallel()
	ag := testagent.Start(t, testagent.Options{Behavior: testagent.Slow, Delay: 200 * time.Millisecond})
	c, log, logBuf := connect(t, ag, 0)
	ctx := context.Background()
	res, err := c.SendMessage(ctx, &a2a.SendMessageRequest{
		Message: a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("hi")),
		Config:  &a2a.SendMessageConfig{ReturnImmediately: true},
	})
	if err != nil {
		t.Fatal(err)
	}
	task, ok := res.(*a2a.Task)
	if !ok {
		t.Fatalf("SendMessage answered %T, want a task", res)
	}
	env := &Env{Log: log, Wait: &Wait{PollInterval: 10 * time.Millisecond}}
	final, err := env.PollTask(ctx, c, task.ID, a2a.TaskStateUnspecified, nil)
	if err != nil {
		t.Fatalf("PollTask() = %v\nlog:\n%s", err, logBuf)
	}
	if final.Status.State != a2a.TaskStateCompleted {
		t.Errorf("PollTask() state = %s, want completed", final.Status.State)
	}
}

// TestPollTaskGivesUpAtWait: --wait ends the polling with ErrWaitExpired; GiveUp turns it into a timeout with the
// commands that follow the task up.
func TestPollTaskGivesUpAtWait(t *testing.T) {
	t.Parallel()
	ag := testagent.Start(t, testagent.Options{Behavior: testagent.Slow, Delay: time.Minute})
	c, _, _ := connect(t, ag, 0)
	res, err := c.SendMessage(context.Background(), &a2a.SendMessageRequest{
		Message: a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("hi")),
		Config:  &a2a.SendMessageConfig{ReturnImmediately: true},
	})
	if err != nil {
		t.Fatal(err)
	}
	task := res.(*a2a.Task)
	w := &Wait{PollInterval: 10 * time.Millisecond, Wait: 50 * time.Millisecond}
	ctx, cancel := w.Context(context.Background())
	defer cancel()
	_, err = (&Env{Log: &client.Log{}, Wait: w}).PollTask(ctx, c, task.ID, task.Status.State, nil)
	if !errors.Is(err, ErrWaitExpired) {
		t.Fatalf("PollTask() = %v, want ErrWaitExpired", err)
	}
	err = (&Env{}).GiveUp("http://x", task.ID, a2a.TaskStateWorking, false, err)
	var lt *LiveTaskError
	if !errors.As(err, &lt) || lt.ID != task.ID || !errors.Is(err, client.ErrTimeout) {
		t.Fatalf("GiveUp() = %v, want a LiveTaskError for %s that is a timeout", err, task.ID)
	}
	if want := "still working when --wait expired"; !strings.Contains(err.Error(), want) {
		t.Errorf("GiveUp() = %q, want it to say %q", err, want)
	}
	var h *client.Hinted
	if !errors.As(err, &h) || !strings.Contains(h.Hint, "a2a subscribe http://x "+string(task.ID)) {
		t.Errorf("GiveUp() hint = %v, want the subscribe command", h)
	}
}

func TestWaitCheck(t *testing.T) {
	t.Parallel()
	tests := []struct {
		w    Wait
		want string
	}{
		{Wait{PollInterval: time.Second}, ""},
		{Wait{PollInterval: 0}, "--poll-interval must be positive"},
		{Wait{PollInterval: time.Second, Wait: -1}, "--wait must not be negative"},
	}
	for _, tt := range tests {
		err := tt.w.Check("a2a send")
		if tt.want == "" {
			if err != nil {
				t.Errorf("%+v: Check() = %v, want nil", tt.w, err)
			}
			continue
		}
		var ue *client.UsageError
		if !errors.As(err, &ue) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%+v: Check() = %v, want a usage error %q", tt.w, err, tt.want)
		}
	}
	if got := (&Wait{PollInterval: time.Minute}).maxPoll(); got != time.Minute {
		t.Errorf("maxPoll() with a 1m interval = %s, want 1m", got)
	}
	if got := (&Wait{PollInterval: time.Second}).maxPoll(); got != 8*time.Second {
		t.Errorf("maxPoll() with a 1s interval = %s, want 8s", got)
	}
}

func TestExpiredAndCause(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeoutCause(context.Background(), 0, ErrWaitExpired)
	defer cancel()
	<-ctx.Done()
	other := errors.New("boom")
	if err := Expired(ctx, other); !errors.Is(err, ErrWaitExpired) || !errors.Is(err, client.ErrTimeout) {
		t.Errorf("Expired() = %v, want ErrWaitExpired and ErrTimeout", err)
	}
	if err := Expired(context.Background(), other); err != other {
		t.Errorf("Expired() without --wait = %v, want the error itself", err)
	}
	if err := Cause(ctx, other); !errors.Is(err, ErrWaitExpired) {
		t.Errorf("Cause() = %v, want ErrWaitExpired", err)
	}
	if err := Cause(context.Background(), other); err != other {
		t.Errorf("Cause() of a live context = %v, want the error itself", err)
	}
}

func TestSaverKeepsFileArtifacts(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "out")
	var msgs bytes.Buffer
	s := NewSaver(&msgs, dir)
	emitted := 0
	emit := s.Wrap(func(a2a.Event) error { emitted++; return nil })
	info := a2a.TaskInfo{TaskID: "t", ContextID: "c"}
	file := a2a.NewRawPart([]byte("hello "))
	file.Filename = "../../greeting.txt"
	events := []a2a.Event{
		a2a.NewArtifactEvent(info, file),
		a2a.NewArtifactEvent(info, a2a.NewTextPart("notes")),
	}
	fileArt := events[0].(*a2a.TaskArtifactUpdateEvent).Artifact
	events = append(events, &a2a.TaskArtifactUpdateEvent{TaskID: "t", ContextID: "c", Append: true,
		Artifact: &a2a.Artifact{ID: fileArt.ID, Parts: a2a.ContentParts{a2a.NewTextPart("world")}}})
	for _, ev := range events {
		if err := emit(ev); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Finish(false); err != nil {
		t.Fatal(err)
	}
	if emitted != len(events) {
		t.Errorf("emitted %d events, want %d", emitted, len(events))
	}
	got, err := os.ReadFile(filepath.Join(dir, "greeting.txt"))
	if err != nil || string(got) != "hello world" {
		t.Fatalf("greeting.txt = %q, %v; want the joined chunks", got, err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("dir holds %d entries, want only the file artifact", len(entries))
	}
	if !strings.Contains(msgs.String(), "saved "+filepath.Join(dir, "greeting.txt")+" (11 bytes)") {
		t.Errorf("messages = %q", msgs.String())
	}
	if NewSaver(&msgs, "") != nil {
		t.Error("NewSaver without a dir is not nil")
	}
}

func TestSaveFiles(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var msgs bytes.Buffer
	raw := a2a.NewRawPart([]byte("abc"))
	raw.Filename = "sub/../a.txt"
	arts := []*a2a.Artifact{{ID: "a1", Parts: a2a.ContentParts{raw, a2a.NewTextPart("x")}}}
	for range 2 {
		if err := SaveFiles(&msgs, dir, arts); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range []string{"a.txt", "a-1.txt"} {
		if b, err := os.ReadFile(filepath.Join(dir, name)); err != nil || string(b) != "abc" {
			t.Errorf("%s = %q, %v", name, b, err)
		}
	}
	msgs.Reset()
	if err := SaveFiles(&msgs, dir, []*a2a.Artifact{{ID: "t", Parts: a2a.ContentParts{a2a.NewTextPart("x")}}}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(msgs.String(), "no file parts to save") {
		t.Errorf("messages = %q, want the no-file-parts note", msgs.String())
	}
}

// TestSilenceAsksGetTask: a stream silent longer than --timeout is not an error while GetTask says the task works;
// the turn waits on and ends with the completed task.
func TestSilenceAsksGetTask(t *testing.T) {
	t.Parallel()
	ag := testagent.Start(t, testagent.Options{Behavior: testagent.Slow, Delay: 3 * time.Second})
	c, log, logBuf := connect(t, ag, time.Second) // long enough for connecting on a loaded machine
	var out bytes.Buffer
	turn := New(&Env{Log: log}, c, ag.URL, Answers{}, output.New(&out, output.Options{}))
	turn.Recover = true
	if err := turn.Run(context.Background(), send(c, "hi")); err != nil {
		t.Fatalf("Run() = %v\nlog:\n%s", err, logBuf)
	}
	if got := turn.View.State(); got != a2a.TaskStateCompleted {
		t.Errorf("final state = %s, want completed", got)
	}
	if !strings.Contains(logBuf.String(), "asking the agent about task") {
		t.Errorf("log does not show the silence check:\n%s", logBuf)
	}
}

// TestSaveNamesUnnamedFiles: a file part without a file name is saved under its artifact's name (sanitised), else
// its id, with the extension of its media type, never as "_"; two of one name are kept apart.
func TestSaveNamesUnnamedFiles(t *testing.T) {
	part := func(b, mediaType string) *a2a.Part {
		p := a2a.NewRawPart([]byte(b))
		p.MediaType = mediaType
		return p
	}
	arts := []*a2a.Artifact{
		{ID: "a1", Name: "Q3 report", Parts: a2a.ContentParts{part("%PDF", "application/pdf")}},
		{ID: "a2", Name: "Q3 report", Parts: a2a.ContentParts{part("%PDF2", "application/pdf")}},
		{ID: "a3", Name: "../../etc/passwd", Parts: a2a.ContentParts{part("x", "text/plain; charset=utf-8")}},
		{ID: "a4", Parts: a2a.ContentParts{part("{}", "application/json")}},
		{ID: "a5", Name: "photo.jpg", Parts: a2a.ContentParts{part("jpeg", "image/jpeg")}},
		{ID: "a6", Parts: a2a.ContentParts{part("?", "")}},
		{ID: "a7", Name: "/", Parts: a2a.ContentParts{part("png", "image/png")}},
	}
	want := []string{"Q3 report-1.pdf", "Q3 report.pdf", "a4.json", "a6.bin", "a7.png", "passwd.txt", "photo.jpg"}
	for _, stream := range []bool{false, true} {
		dir := t.TempDir()
		var msgs strings.Builder
		if stream {
			s := NewSaver(&msgs, dir)
			emit := s.Wrap(func(a2a.Event) error { return nil })
			for _, a := range arts {
				if err := emit(&a2a.TaskArtifactUpdateEvent{TaskID: "t", Artifact: a}); err != nil {
					t.Fatal(err)
				}
			}
			if err := s.Finish(false); err != nil {
				t.Fatal(err)
			}
		} else if err := SaveFiles(&msgs, dir, arts); err != nil {
			t.Fatal(err)
		}
		entries, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, e := range entries {
			got = append(got, e.Name())
		}
		if !slices.Equal(got, want) {
			t.Errorf("stream=%v: saved %q, want %q\n%s", stream, got, want, msgs.String())
		}
	}
}

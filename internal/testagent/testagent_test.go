package testagent_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/a2acli/a2a/internal/testagent"
	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2aclient"
	"github.com/a2aproject/a2a-go/v2/a2aclient/agentcard"
	"github.com/a2aproject/a2a-go/v2/a2acompat/a2av0"
	grpcv0 "github.com/a2aproject/a2a-go/v2/a2agrpc/v0"
	grpcv1 "github.com/a2aproject/a2a-go/v2/a2agrpc/v1"
	"github.com/google/go-cmp/cmp"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
)

// modes is every transport in both protocol versions.
var modes = []testagent.Options{
	{Transport: a2a.TransportProtocolJSONRPC},
	{Transport: a2a.TransportProtocolHTTPJSON},
	{Transport: a2a.TransportProtocolGRPC},
	{Transport: a2a.TransportProtocolJSONRPC, V03: true},
	{Transport: a2a.TransportProtocolHTTPJSON, V03: true},
	{Transport: a2a.TransportProtocolGRPC, V03: true},
}

func modeName(o testagent.Options) string {
	if o.V03 {
		return string(o.Transport) + "-v0.3"
	}
	return string(o.Transport)
}

func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// connect resolves the agent's card and creates an a2aclient for it.
func connect(t *testing.T, ag *testagent.Agent, o testagent.Options) *a2aclient.Client {
	t.Helper()
	resolver := agentcard.NewResolver(&http.Client{Timeout: 10 * time.Second})
	resolver.CardParser = agentcard.DefaultCardParser
	if o.V03 {
		resolver.CardParser = a2av0.NewAgentCardParser()
	}
	card, err := resolver.Resolve(testCtx(t), ag.URL)
	if err != nil {
		t.Fatalf("Resolve(%q): %v", ag.URL, err)
	}
	dial := []grpc.DialOption{
		grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(64 << 20)),
	}
	opts := []a2aclient.FactoryOption{grpcv1.WithGRPCTransport(dial...)}
	if o.V03 {
		opts = append(opts,
			a2av0.WithJSONRPCTransport(a2av0.JSONRPCTransportConfig{}),
			a2av0.WithRESTTransport(a2av0.RESTTransportConfig{}),
			grpcv0.WithGRPCTransport(dial...))
	}
	c, err := a2aclient.NewFromCard(testCtx(t), card, opts...)
	if err != nil {
		t.Fatalf("NewFromCard(%+v): %v", card.SupportedInterfaces, err)
	}
	t.Cleanup(func() { _ = c.Destroy() })
	return c
}

func request(text string) *a2a.SendMessageRequest {
	return &a2a.SendMessageRequest{Message: a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart(text))}
}

// artifactText joins the text of every part of every artifact.
func artifactText(task *a2a.Task) string {
	var b strings.Builder
	for _, a := range task.Artifacts {
		for _, p := range a.Parts {
			b.WriteString(p.Text())
		}
	}
	return b.String()
}

func statusText(task *a2a.Task) string {
	if task.Status.Message == nil || len(task.Status.Message.Parts) == 0 {
		return ""
	}
	return task.Status.Message.Parts[0].Text()
}

// sendTask sends text and requires a Task back.
func sendTask(t *testing.T, c *a2aclient.Client, req *a2a.SendMessageRequest) *a2a.Task {
	t.Helper()
	res, err := c.SendMessage(testCtx(t), req)
	if err != nil {
		t.Fatalf("SendMessage: %v", err)
	}
	task, ok := res.(*a2a.Task)
	if !ok {
		t.Fatalf("SendMessage result = %T, want *a2a.Task", res)
	}
	return task
}

// collect streams a message and returns the events and the terminal error.
func collect(t *testing.T, c *a2aclient.Client, text string) ([]a2a.Event, error) {
	t.Helper()
	var evs []a2a.Event
	for ev, err := range c.SendStreamingMessage(testCtx(t), request(text)) {
		if err != nil {
			return evs, err
		}
		evs = append(evs, ev)
	}
	return evs, nil
}

// summary describes events compactly: "task", "working", "artifact+L" (append, last), ...
func summary(evs []a2a.Event) []string {
	var out []string
	for _, ev := range evs {
		switch e := ev.(type) {
		case *a2a.Task:
			out = append(out, "task")
		case *a2a.TaskStatusUpdateEvent:
			out = append(out, strings.ToLower(strings.TrimPrefix(string(e.Status.State), "TASK_STATE_")))
		case *a2a.TaskArtifactUpdateEvent:
			s := "artifact"
			if e.Append {
				s += "+"
			}
			if e.LastChunk {
				s += "L"
			}
			out = append(out, s)
		case *a2a.Message:
			out = append(out, "message")
		}
	}
	return out
}

func TestBehaviors(t *testing.T) {
	t.Parallel()
	for _, mode := range modes {
		t.Run(modeName(mode), func(t *testing.T) {
			t.Parallel()
			for _, tc := range behaviorCases {
				t.Run(tc.name, func(t *testing.T) {
					t.Parallel()
					o := mode
					o.Behavior, o.Chunks, o.Delay, o.BigSize = tc.behavior, 3, time.Minute, bigSize
					ag := testagent.Start(t, o)
					tc.check(t, connect(t, ag, o))
				})
			}
		})
	}
}

// bigSize keeps Big cheap under -race (20 MiB takes 10-25 s per call there).
const bigSize = 1<<20 + 7

var behaviorCases = []struct {
	name     string
	behavior testagent.Behavior
	check    func(t *testing.T, c *a2aclient.Client)
}{
	{"echo", testagent.Echo, func(t *testing.T, c *a2aclient.Client) {
		task := sendTask(t, c, request("hi"))
		if task.Status.State != a2a.TaskStateCompleted || artifactText(task) != "echo: hi" {
			t.Errorf("echo task = %s %q, want completed %q", task.Status.State, artifactText(task), "echo: hi")
		}
		evs, err := collect(t, c, "hi")
		if diff := cmp.Diff([]string{"task", "working", "artifact", "completed"}, summary(evs)); diff != "" || err != nil {
			t.Errorf("echo stream (err %v) mismatch (-want +got):\n%s", err, diff)
		}
	}},
	{"input-required", testagent.InputRequired, func(t *testing.T, c *a2aclient.Client) {
		task := sendTask(t, c, request("hi"))
		if task.Status.State != a2a.TaskStateInputRequired || statusText(task) != testagent.Question {
			t.Fatalf("first reply = %s %q, want input-required %q", task.Status.State, statusText(task), testagent.Question)
		}
		req := request("bob")
		req.Message.TaskID, req.Message.ContextID = task.ID, task.ContextID
		task = sendTask(t, c, req)
		if task.Status.State != a2a.TaskStateCompleted || artifactText(task) != "hello, bob" {
			t.Errorf("follow-up = %s %q, want completed %q", task.Status.State, artifactText(task), "hello, bob")
		}
	}},
	{"chunks", testagent.Chunks, func(t *testing.T, c *a2aclient.Client) {
		evs, err := collect(t, c, "hi")
		want := []string{"task", "working", "artifact", "artifact+", "artifact+L", "completed"}
		if diff := cmp.Diff(want, summary(evs)); diff != "" || err != nil {
			t.Errorf("chunks stream (err %v) mismatch (-want +got):\n%s", err, diff)
		}
		task := sendTask(t, c, request("hi"))
		if got, want := artifactText(task), "chunk 1\nchunk 2\nchunk 3\n"; got != want || len(task.Artifacts) != 1 {
			t.Errorf("chunks task has %d artifacts %q, want 1 %q", len(task.Artifacts), got, want)
		}
	}},
	{"fail", testagent.Fail, func(t *testing.T, c *a2aclient.Client) {
		task := sendTask(t, c, request("hi"))
		if task.Status.State != a2a.TaskStateFailed || statusText(task) != testagent.FailText {
			t.Errorf("fail task = %s %q, want failed %q", task.Status.State, statusText(task), testagent.FailText)
		}
	}},
	{"slow", testagent.Slow, checkSlow},
	{"big", testagent.Big, func(t *testing.T, c *a2aclient.Client) {
		task := sendTask(t, c, request("hi"))
		if got := len(artifactText(task)); got != bigSize {
			t.Errorf("big artifact length = %d, want %d", got, bigSize)
		}
		evs, err := collect(t, c, "hi")
		var n int
		for _, ev := range evs {
			if a, ok := ev.(*a2a.TaskArtifactUpdateEvent); ok {
				n += len(a.Artifact.Parts[0].Text())
			}
		}
		if err != nil || len(evs) != 8+3 || n != bigSize {
			t.Errorf("big stream = %d events with %d bytes, err %v; want 11 events, %d bytes", len(evs), n, err, bigSize)
		}
	}},
	{"escapes", testagent.Escapes, func(t *testing.T, c *a2aclient.Client) {
		if got := artifactText(sendTask(t, c, request("hi"))); got != testagent.EscapesText {
			t.Errorf("escapes artifact = %q, want %q", got, testagent.EscapesText)
		}
	}},
	{"message-only", testagent.MessageOnly, func(t *testing.T, c *a2aclient.Client) {
		res, err := c.SendMessage(testCtx(t), request("hi"))
		msg, ok := res.(*a2a.Message)
		if err != nil || !ok || msg.Parts[0].Text() != "echo: hi" {
			t.Errorf("SendMessage = %#v, %v; want agent message %q", res, err, "echo: hi")
		}
	}},
	{"die-mid-stream", testagent.DieMidStream, checkDie},
	{"files", testagent.Files, checkFiles},
}

func checkSlow(t *testing.T, c *a2aclient.Client) {
	req := request("hi")
	req.Config = &a2a.SendMessageConfig{ReturnImmediately: true}
	task := sendTask(t, c, req)
	if task.Status.State.Terminal() {
		t.Fatalf("slow task state = %s, want not terminal", task.Status.State)
	}
	ctx := testCtx(t)
	events := make(chan []string, 1)
	subscribed := make(chan struct{})
	go func() {
		var evs []a2a.Event
		for ev, err := range c.SubscribeToTask(ctx, &a2a.SubscribeToTaskRequest{ID: task.ID}) {
			if err != nil {
				break
			}
			if len(evs) == 0 {
				close(subscribed)
			}
			evs = append(evs, ev)
		}
		if len(evs) == 0 {
			close(subscribed)
		}
		events <- summary(evs)
	}()
	<-subscribed
	got, err := c.CancelTask(ctx, &a2a.CancelTaskRequest{ID: task.ID})
	if err != nil || got.Status.State != a2a.TaskStateCanceled {
		t.Fatalf("CancelTask = %v, %v; want canceled", got, err)
	}
	if sum := <-events; len(sum) == 0 || sum[len(sum)-1] != "canceled" {
		t.Errorf("subscription events = %q, want last canceled", sum)
	}
	if got, err := c.GetTask(ctx, &a2a.GetTaskRequest{ID: task.ID}); err != nil || got.Status.State != a2a.TaskStateCanceled {
		t.Errorf("GetTask = %v, %v; want canceled", got, err)
	}
	list, err := c.ListTasks(ctx, &a2a.ListTasksRequest{})
	if errors.Is(err, a2a.ErrUnsupportedOperation) {
		return // v0.3 JSON-RPC has no tasks/list method
	}
	if err != nil || len(list.Tasks) != 1 || list.Tasks[0].ID != task.ID {
		t.Errorf("ListTasks = %+v, %v; want the one task %s", list, err, task.ID)
	}
}

func checkDie(t *testing.T, c *a2aclient.Client) {
	evs, err := collect(t, c, "hi")
	if diff := cmp.Diff([]string{"task", "working", "artifact", "artifact+"}, summary(evs)); diff != "" {
		t.Errorf("die stream events mismatch (-want +got):\n%s", diff)
	}
	if err == nil {
		t.Errorf("die stream ended without error, want a broken-connection error")
	}
	if task := sendTask(t, c, request("hi")); artifactText(task) != "echo: hi" {
		t.Errorf("die non-streaming artifact = %q, want %q", artifactText(task), "echo: hi")
	}
}

func checkFiles(t *testing.T, c *a2aclient.Client) {
	task := sendTask(t, c, request("hi"))
	if len(task.Artifacts) != 1 || len(task.Artifacts[0].Parts) != 2 {
		t.Fatalf("files artifacts = %+v, want one with 2 parts", task.Artifacts)
	}
	file, data := task.Artifacts[0].Parts[0], task.Artifacts[0].Parts[1]
	got := fmt.Sprintf("%s %s %d %d", file.Filename, file.MediaType, len(file.Raw()), file.Raw()[999])
	if want := "report.bin application/octet-stream 1000 231"; got != want {
		t.Errorf("file part = %q, want %q", got, want)
	}
	if diff := cmp.Diff(map[string]any{"ok": true}, data.Data()); diff != "" {
		t.Errorf("data part mismatch (-want +got):\n%s", diff)
	}
}

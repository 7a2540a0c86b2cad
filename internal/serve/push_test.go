package serve

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/a2acli/a2a/internal/serve/servetest"
	"github.com/a2acli/a2a/internal/serve/tasks"
)

// webhook is a plain net/http receiver that keeps what it got.
type webhook struct {
	mu   sync.Mutex
	reqs []webhookReq
	srv  *httptest.Server
}

type webhookReq struct {
	header http.Header
	body   a2a.StreamResponse
}

func newWebhook(t *testing.T) *webhook {
	w := &webhook{}
	w.srv = httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body) // a short read shows up as a decode error below
		var sr a2a.StreamResponse
		if err := json.Unmarshal(b, &sr); err != nil {
			t.Errorf("webhook body %q: %v", b, err)
		}
		w.mu.Lock()
		w.reqs = append(w.reqs, webhookReq{header: r.Header.Clone(), body: sr})
		w.mu.Unlock()
	}))
	t.Cleanup(w.srv.Close)
	return w
}

func (w *webhook) got() []webhookReq {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]webhookReq(nil), w.reqs...)
}

// final reports whether the last notification carries a terminal state.
func (w *webhook) final() bool {
	r := w.got()
	if len(r) == 0 {
		return false
	}
	st, ok := r[len(r)-1].body.Event.(*a2a.TaskStatusUpdateEvent)
	return ok && st.Status.State.Terminal()
}

func TestPushConfigMethods(t *testing.T) {
	t.Parallel()
	srv := startServer(t, Config{Transports: servetest.AllTransports, Quiet: true})
	for _, tr := range servetest.AllTransports {
		t.Run(string(tr), func(t *testing.T) {
			ctx := context.Background()
			c := servetest.NewClient(t, srv.URL, tr)
			res, err := c.SendMessage(ctx, servetest.TextMessage("hi"))
			if err != nil {
				t.Fatal(err)
			}
			task := res.(*a2a.Task)
			cfg, err := c.CreateTaskPushConfig(ctx, &a2a.PushConfig{TaskID: task.ID, ID: "one", URL: "http://127.0.0.1:9/hook", Token: "tok"})
			if err != nil || cfg.ID != "one" || cfg.TaskID != task.ID || cfg.Token != "tok" {
				t.Fatalf("CreateTaskPushConfig = %+v, %v", cfg, err)
			}
			auto, err := c.CreateTaskPushConfig(ctx, &a2a.PushConfig{TaskID: task.ID, URL: "http://localhost:9/other"})
			if err != nil || auto.ID == "" {
				t.Fatalf("CreateTaskPushConfig without ID = %+v, %v (want a generated ID)", auto, err)
			}
			got, err := c.GetTaskPushConfig(ctx, &a2a.GetTaskPushConfigRequest{TaskID: task.ID, ID: "one"})
			if err != nil || got.URL != "http://127.0.0.1:9/hook" {
				t.Fatalf("GetTaskPushConfig = %+v, %v", got, err)
			}
			list, err := c.ListTaskPushConfigs(ctx, &a2a.ListTaskPushConfigRequest{TaskID: task.ID})
			if err != nil || len(list) != 2 || list[0].ID != "one" || list[1].ID != auto.ID {
				t.Fatalf("ListTaskPushConfigs = %+v, %v", list, err)
			}
			for range 2 { // idempotent
				if err := c.DeleteTaskPushConfig(ctx, &a2a.DeleteTaskPushConfigRequest{TaskID: task.ID, ID: "one"}); err != nil {
					t.Fatalf("DeleteTaskPushConfig = %v", err)
				}
			}
			if _, err := c.GetTaskPushConfig(ctx, &a2a.GetTaskPushConfigRequest{TaskID: task.ID, ID: "one"}); !servetest.ErrorIs(err, a2a.ErrTaskNotFound) {
				t.Fatalf("GetTaskPushConfig after delete = %v, want TaskNotFound", err)
			}
			if _, err := c.ListTaskPushConfigs(ctx, &a2a.ListTaskPushConfigRequest{TaskID: "nope"}); !servetest.ErrorIs(err, a2a.ErrTaskNotFound) {
				t.Fatalf("ListTaskPushConfigs(unknown task) = %v, want TaskNotFound", err)
			}
			_, err = c.CreateTaskPushConfig(ctx, &a2a.PushConfig{TaskID: task.ID, URL: "https://example.com/hook"})
			if !servetest.ErrorIs(err, a2a.ErrInvalidParams) || !strings.Contains(err.Error(), "--push-allow example.com") {
				t.Fatalf("CreateTaskPushConfig(example.com) = %v, want InvalidParams naming --push-allow example.com", err)
			}
		})
	}
}

// TestPushDelivery: every event reaches each webhook in order, with the token and authorization,
// and a webhook that never answers neither slows the task nor the other webhook.
func TestPushDelivery(t *testing.T) {
	t.Parallel()
	good := newWebhook(t)
	hang, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer hang.Close()
	go func() { // accepts and never answers
		var conns []net.Conn
		defer func() {
			for _, c := range conns {
				c.Close()
			}
		}()
		for {
			c, err := hang.Accept()
			if err != nil {
				return
			}
			conns = append(conns, c)
		}
	}()
	srv := startServer(t, Config{Transports: []a2a.TransportProtocol{a2a.TransportProtocolJSONRPC}, Quiet: true, Grace: time.Second})
	c := servetest.NewClient(t, srv.URL, a2a.TransportProtocolJSONRPC)
	ctx := context.Background()
	req := servetest.TextMessage("hello")
	req.Config = &a2a.SendMessageConfig{PushConfig: &a2a.PushConfig{URL: "http://" + hang.Addr().String() + "/hook"}}
	start := time.Now()
	res, err := c.SendMessage(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	task := res.(*a2a.Task)
	if _, err := c.CreateTaskPushConfig(ctx, &a2a.PushConfig{TaskID: task.ID, URL: good.srv.URL + "/x", Token: "secret",
		Auth: &a2a.PushAuthInfo{Scheme: "Bearer", Credentials: "cred"}}); err != nil {
		t.Fatal(err)
	}
	// A second turn on the same task (v0.3 reopens; v1 refuses completed tasks), so send a new
	// message carrying the good webhook and check its events in order.
	req2 := servetest.TextMessage("second")
	req2.Config = &a2a.SendMessageConfig{PushConfig: &a2a.PushConfig{URL: good.srv.URL + "/y", Token: "t2",
		Auth: &a2a.PushAuthInfo{Scheme: "Basic", Credentials: "dXNlcjpwdw=="}}}
	if _, err := c.SendMessage(ctx, req2); err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("tasks took %v with a hanging webhook", took)
	}
	if !servetest.Eventually(20*time.Second, good.final) {
		t.Fatalf("webhook got %d notifications, none final", len(good.got()))
	}
	reqs := good.got()
	var kinds []string
	for _, r := range reqs {
		if r.header.Get("X-A2A-Notification-Token") != "t2" || r.header.Get("Authorization") != "Basic dXNlcjpwdw==" {
			t.Errorf("headers %v, want token t2 and Basic authorization", r.header)
		}
		switch ev := r.body.Event.(type) {
		case *a2a.TaskStatusUpdateEvent:
			kinds = append(kinds, "status:"+tasks.ShortState(ev.Status.State))
		case *a2a.TaskArtifactUpdateEvent:
			kinds = append(kinds, "artifact:"+servetest.PartsText(ev.Artifact.Parts))
		}
	}
	if want := "status:working artifact:second status:completed"; strings.Join(kinds, " ") != want {
		t.Errorf("notifications %v, want %s", kinds, want)
	}
}

// TestPushRetention: a task's configs go when retention drops the task.
func TestPushRetention(t *testing.T) {
	t.Parallel()
	srv := startServer(t, Config{Quiet: true, MaxTasks: 1})
	c := servetest.NewClient(t, srv.URL, a2a.TransportProtocolHTTPJSON)
	ctx := context.Background()
	var ids []a2a.TaskID
	for _, text := range []string{"first", "second", "third"} { // each insert prunes the finished ones beyond 1
		res, err := c.SendMessage(ctx, servetest.TextMessage(text))
		if err != nil {
			t.Fatal(err)
		}
		id := res.(*a2a.Task).ID
		ids = append(ids, id)
		if _, err := c.CreateTaskPushConfig(ctx, &a2a.PushConfig{TaskID: id, ID: "c", URL: "http://127.0.0.1:9/"}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := c.ListTaskPushConfigs(ctx, &a2a.ListTaskPushConfigRequest{TaskID: ids[0]}); !servetest.ErrorIs(err, a2a.ErrTaskNotFound) {
		t.Errorf("configs of a dropped task: %v, want TaskNotFound", err)
	}
	if l, err := c.ListTaskPushConfigs(ctx, &a2a.ListTaskPushConfigRequest{TaskID: ids[2]}); err != nil || len(l) != 1 {
		t.Errorf("configs of the kept task: %v, %v", l, err)
	}
}

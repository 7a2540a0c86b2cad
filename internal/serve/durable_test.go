package serve

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/a2acli/a2a/internal/store/pgtest"
)

// pg is the PostgreSQL server of this package's store tests, started on first use, stopped by TestMain.
var pg pgtest.Shared

func TestMain(m *testing.M) {
	code := m.Run()
	pg.Stop()
	os.Exit(code)
}

func postgresURL(t testing.TB) string {
	t.Helper()
	return pg.NewDB(t)
}

// TestSQLiteKeepsTasks: tasks, their artifacts, history and push configs survive a restart on sqlite:, and
// ListTasks pages through them after it.
func TestSQLiteKeepsTasks(t *testing.T) {
	t.Parallel()
	cfg := Config{Store: "sqlite:" + filepath.Join(t.TempDir(), "tasks.db")}
	s := startServer(t, cfg)
	c := newClient(t, s.url, a2a.TransportProtocolHTTPJSON)
	ctx := context.Background()
	var ids []a2a.TaskID
	for i := range 3 {
		res, err := c.SendMessage(ctx, textMessage(fmt.Sprint("hello ", i)))
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, res.(*a2a.Task).ID)
	}
	if _, err := c.CreateTaskPushConfig(ctx, &a2a.PushConfig{TaskID: ids[0], ID: "hook", URL: "http://127.0.0.1:9/hook"}); err != nil {
		t.Fatal(err)
	}
	if err := s.shutdown(); err != nil {
		t.Fatal(err)
	}
	s2 := startServer(t, cfg)
	c2 := newClient(t, s2.url, a2a.TransportProtocolJSONRPC)
	got, err := c2.GetTask(ctx, &a2a.GetTaskRequest{ID: ids[1]})
	if err != nil {
		t.Fatal(err)
	}
	if got.Status.State != a2a.TaskStateCompleted || partsText(got.Artifacts[0].Parts) != "hello 1" || partsText(got.History[0].Parts) != "hello 1" {
		t.Fatalf("task after restart = %+v", got)
	}
	p, err := c2.GetTaskPushConfig(ctx, &a2a.GetTaskPushConfigRequest{TaskID: ids[0], ID: "hook"})
	if err != nil || p.URL != "http://127.0.0.1:9/hook" {
		t.Fatalf("push config after restart = %+v, %v", p, err)
	}
	page, err := c2.ListTasks(ctx, &a2a.ListTasksRequest{PageSize: 2})
	if err != nil {
		t.Fatal(err)
	}
	if page.TotalSize != 3 || len(page.Tasks) != 2 || page.Tasks[0].ID != ids[2] || page.NextPageToken == "" {
		t.Fatalf("ListTasks page 1 = %+v", page)
	}
	rest, err := c2.ListTasks(ctx, &a2a.ListTasksRequest{PageSize: 2, PageToken: page.NextPageToken})
	if err != nil || len(rest.Tasks) != 1 || rest.Tasks[0].ID != ids[0] || rest.NextPageToken != "" {
		t.Fatalf("ListTasks page 2 = %+v, %v", rest, err)
	}
	// A task continues after the restart, on the same history.
	msg := a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("again"))
	msg.TaskID = ids[2]
	if _, err := c2.SendMessage(ctx, &a2a.SendMessageRequest{Message: msg}); err == nil || !strings.Contains(err.Error(), "already completed") {
		t.Fatalf("SendMessage on a completed task after restart: %v, want it refused as completed", err)
	}
}

// TestReplicasShareTasks: two servers on one PostgreSQL; a task running on a answers on b for get, list,
// subscribe (live events) and cancel (a stops the turn).
func TestReplicasShareTasks(t *testing.T) {
	t.Parallel()
	url := postgresURL(t)
	exec := Exec(ExecConfig{Command: `echo one; read l; echo "$l"; sleep 60`, Chunk: []byte("\n")})
	a := startServer(t, Config{Store: url, Backend: exec})
	b := startServer(t, Config{Store: url, Backend: exec})
	ca := newClient(t, a.url, a2a.TransportProtocolHTTPJSON)
	cb := newClient(t, b.url, a2a.TransportProtocolHTTPJSON)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var id a2a.TaskID
	started := make(chan struct{})
	sendDone := make(chan []a2a.Event, 1)
	go func() {
		var evs []a2a.Event
		for ev, err := range ca.SendStreamingMessage(ctx, textMessage("two")) {
			if err != nil {
				break
			}
			evs = append(evs, ev)
			if _, ok := ev.(*a2a.TaskArtifactUpdateEvent); ok && id == "" {
				id = ev.TaskInfo().TaskID
				close(started)
			}
		}
		sendDone <- evs
	}()
	select {
	case <-started:
	case <-ctx.Done():
		t.Fatal("no chunk from a")
	}
	// Written behind: b sees the state a few milliseconds after a.
	var got *a2a.Task
	var err error
	if !eventually(10*time.Second, func() bool {
		got, err = cb.GetTask(ctx, &a2a.GetTaskRequest{ID: id})
		return err == nil && got.Status.State == a2a.TaskStateWorking
	}) {
		t.Fatalf("GetTask on b = %+v, %v", got, err)
	}
	list, err := cb.ListTasks(ctx, &a2a.ListTasksRequest{})
	if err != nil || list.TotalSize != 1 || list.Tasks[0].ID != id {
		t.Fatalf("ListTasks on b = %+v, %v", list, err)
	}
	var subEvents []a2a.Event
	subDone := make(chan error, 1)
	subStarted := make(chan struct{})
	go func() {
		for ev, err := range cb.SubscribeToTask(ctx, &a2a.SubscribeToTaskRequest{ID: id}) {
			if err != nil {
				subDone <- err
				return
			}
			subEvents = append(subEvents, ev)
			if len(subEvents) == 1 {
				close(subStarted)
			}
		}
		subDone <- nil
	}()
	<-subStarted
	task, err := cb.CancelTask(ctx, &a2a.CancelTaskRequest{ID: id})
	if err != nil || task.Status.State != a2a.TaskStateCanceled {
		t.Fatalf("CancelTask on b = %+v, %v", task, err)
	}
	if err := <-subDone; err != nil {
		t.Fatalf("SubscribeToTask on b: %v", err)
	}
	last := subEvents[len(subEvents)-1]
	if st, ok := last.(*a2a.TaskStatusUpdateEvent); !ok || st.Status.State != a2a.TaskStateCanceled {
		t.Fatalf("last event of the subscription on b = %#v", last)
	}
	evs := <-sendDone
	if st, ok := evs[len(evs)-1].(*a2a.TaskStatusUpdateEvent); !ok || st.Status.State != a2a.TaskStateCanceled {
		t.Fatalf("last event of the stream on a = %#v", evs[len(evs)-1])
	}
}

package serve

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/a2acli/a2a/internal/serve/servetest"
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
	c := servetest.NewClient(t, s.URL, a2a.TransportProtocolHTTPJSON)
	ctx := context.Background()
	var ids []a2a.TaskID
	for i := range 3 {
		res, err := c.SendMessage(ctx, servetest.TextMessage(fmt.Sprint("hello ", i)))
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, res.(*a2a.Task).ID)
	}
	if _, err := c.CreateTaskPushConfig(ctx, &a2a.PushConfig{TaskID: ids[0], ID: "hook", URL: "http://127.0.0.1:9/hook"}); err != nil {
		t.Fatal(err)
	}
	if err := s.Shutdown(); err != nil {
		t.Fatal(err)
	}
	s2 := startServer(t, cfg)
	c2 := servetest.NewClient(t, s2.URL, a2a.TransportProtocolJSONRPC)
	got, err := c2.GetTask(ctx, &a2a.GetTaskRequest{ID: ids[1]})
	if err != nil {
		t.Fatal(err)
	}
	if got.Status.State != a2a.TaskStateCompleted || servetest.PartsText(got.Artifacts[0].Parts) != "hello 1" || servetest.PartsText(got.History[0].Parts) != "hello 1" {
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

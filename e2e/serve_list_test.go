package e2e

import (
	"encoding/json"
	"sort"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/google/go-cmp/cmp"
)

// listIDs runs list tasks -o json with args and returns the ids listed and the next page token.
func listIDs(t *testing.T, url string, args ...string) (ids []string, next string) {
	t.Helper()
	r := run(t, "", append([]string{"list", "tasks", url, "-o", "json"}, args...)...)
	wantCode(t, r, 0)
	var resp a2a.ListTasksResponse
	if err := json.Unmarshal([]byte(r.stdout), &resp); err != nil {
		t.Fatalf("list tasks %v: %v\n%s", args, err, r)
	}
	for _, task := range resp.Tasks {
		ids = append(ids, string(task.ID))
	}
	return ids, resp.NextPageToken
}

func sorted(s []string) []string {
	s = append([]string(nil), s...)
	sort.Strings(s)
	return s
}

// TestServeListTasks: paging and every filter against the server's own task store.
func TestServeListTasks(t *testing.T) {
	t.Parallel()
	srv := startServe(t, "--exec", `read x; [ "$x" = fail ] && exit 1; echo "$x"`, "--transport", "rest,jsonrpc", "--quiet")
	send := func(args ...string) *a2a.Task {
		r := run(t, "", append([]string{"send", srv.url, "-o", "json"}, args...)...)
		wantCode(t, r, 0)
		return sendTask(t, r)
	}
	t1 := send("a")
	t2 := send("b", "--context", t1.ContextID)
	t3 := send("fail")
	t4 := send("d")
	if t3.Status.State != a2a.TaskStateFailed || t4.Status.State != a2a.TaskStateCompleted {
		t.Fatalf("states %s, %s; want failed, completed", t3.Status.State, t4.Status.State)
	}
	all := sorted([]string{string(t1.ID), string(t2.ID), string(t3.ID), string(t4.ID)})

	got, _ := listIDs(t, srv.url)
	if diff := cmp.Diff(all, sorted(got)); diff != "" {
		t.Errorf("list tasks (-want +got):\n%s", diff)
	}
	got, _ = listIDs(t, srv.url, "--status", "failed")
	if diff := cmp.Diff([]string{string(t3.ID)}, got); diff != "" {
		t.Errorf("--status failed (-want +got):\n%s", diff)
	}
	got, _ = listIDs(t, srv.url, "--context", t1.ContextID)
	if diff := cmp.Diff(sorted([]string{string(t1.ID), string(t2.ID)}), sorted(got)); diff != "" {
		t.Errorf("--context (-want +got):\n%s", diff)
	}
	// JSON-RPC carries the time to the nanosecond; a2a-go's REST client sends whole seconds.
	since := t3.Status.Timestamp.Add(time.Microsecond).UTC().Format(time.RFC3339Nano)
	got, _ = listIDs(t, srv.url, "--since", since, "--transport", "jsonrpc")
	if diff := cmp.Diff([]string{string(t4.ID)}, got); diff != "" {
		t.Errorf("--since %s (-want +got):\n%s", since, diff)
	}
	for _, tt := range []struct {
		since string
		want  []string
	}{{"2000-01-01T00:00:00Z", all}, {"2999-01-01T00:00:00Z", nil}} {
		got, _ = listIDs(t, srv.url, "--since", tt.since, "--transport", "rest")
		if diff := cmp.Diff(tt.want, sorted(got)); diff != "" {
			t.Errorf("--since %s over REST (-want +got):\n%s", tt.since, diff)
		}
	}

	page1, next := listIDs(t, srv.url, "--limit", "3")
	if len(page1) != 3 || next == "" {
		t.Fatalf("--limit 3: %d tasks, token %q; want 3 and a token", len(page1), next)
	}
	page2, next2 := listIDs(t, srv.url, "--limit", "3", "--page-token", next)
	if len(page2) != 1 || next2 != "" {
		t.Fatalf("second page: %d tasks, token %q; want 1 and no token", len(page2), next2)
	}
	if diff := cmp.Diff(all, sorted(append(page1, page2...))); diff != "" {
		t.Errorf("pages together (-want +got):\n%s", diff)
	}
	got, next = listIDs(t, srv.url, "--limit", "1", "--all")
	if diff := cmp.Diff(all, sorted(got)); diff != "" || next != "" {
		t.Errorf("--all (token %q) (-want +got):\n%s", next, diff)
	}
}

// TestServeRetention: --max-tasks 3 keeps only the three newest finished tasks.
func TestServeRetention(t *testing.T) {
	t.Parallel()
	srv := startServe(t, "--echo", "--max-tasks", "3", "--quiet")
	var ids []string
	for _, text := range []string{"1", "2", "3", "4", "5"} {
		r := run(t, "", "send", srv.url, text, "-o", "json")
		wantCode(t, r, 0)
		ids = append(ids, string(sendTask(t, r).ID))
	}
	got, _ := listIDs(t, srv.url)
	if diff := cmp.Diff(sorted(ids[2:]), sorted(got)); diff != "" {
		t.Errorf("tasks kept (-want +got):\n%s", diff)
	}
	r := run(t, "", "get", "task", srv.url, ids[0], "-o", "json")
	wantCode(t, r, 1)
	if doc := errorDoc(t, r); doc["code"] != "TaskNotFoundError" {
		t.Fatalf("evicted task: code %v, want TaskNotFoundError", doc["code"])
	}
}

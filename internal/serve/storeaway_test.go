package serve

import (
	"context"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/a2acli/a2a/internal/serve/servetest"
)

// TestStoreAwayTurnEnd: a turn that ends while PostgreSQL is stopped is not reported done: its blocking caller gets
// "task store unavailable … not saved yet" and its webhook hears nothing, until the store is back: then the end is
// written, the webhook hears it, and GetTask finds the task completed. Calls meanwhile fail fast with the generic
// error, never the store's (the store's URL and password stay in serve's log).
func TestStoreAwayTurnEnd(t *testing.T) {
	t.Parallel()
	srv, db := servetest.OwnPostgres(t) // skips without PostgreSQL
	hook := newWebhook(t)
	s := startServer(t, Config{Store: db, Transports: servetest.AllTransports, Quiet: true})
	ctx := context.Background()
	c := servetest.NewClient(t, s.URL, a2a.TransportProtocolJSONRPC)

	srv.Stop()
	req := servetest.TextMessage("during")
	req.Config = &a2a.SendMessageConfig{PushConfig: &a2a.PushConfig{URL: hook.srv.URL + "/hook"}}
	_, err := c.SendMessage(ctx, req)
	if err == nil || !strings.Contains(err.Error(), "task store unavailable") || !strings.Contains(err.Error(), "not saved yet") {
		t.Fatalf("SendMessage while the store is away: %v", err)
	}
	m := regexp.MustCompile(`task (\S+) ended`).FindStringSubmatch(err.Error())
	if m == nil {
		t.Fatalf("no task ID in %q", err)
	}
	id := a2a.TaskID(m[1])
	// Not JSON-RPC: a2a-go's JSON-RPC client reads a stream refused before its first event (answered as a unary
	// call's error) as an empty stream, whatever the refusal (a task already completed too).
	for _, tr := range []a2a.TransportProtocol{a2a.TransportProtocolHTTPJSON, a2a.TransportProtocolGRPC} {
		evs, err := servetest.Collect(t, servetest.NewClient(t, s.URL, tr).SendStreamingMessage(ctx, servetest.TextMessage("stream")))
		if err == nil || !strings.Contains(err.Error(), "task store unavailable") || strings.Contains(err.Error(), "postgres") {
			t.Fatalf("%s: stream while the store is away: %v %v", tr, evs, err)
		}
	}
	if hook.final() {
		t.Fatal("the webhook heard of an end that is not saved")
	}

	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	if !servetest.Eventually(30*time.Second, hook.final) {
		t.Fatalf("the webhook never heard of the end once the store was back: %v", hook.got())
	}
	got, err := c.GetTask(ctx, &a2a.GetTaskRequest{ID: id})
	if err != nil || got.Status.State != a2a.TaskStateCompleted {
		t.Fatalf("GetTask once the store is back: %v %v", got, err)
	}
}

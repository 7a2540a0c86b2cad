package serve_test

import (
	"context"
	"testing"

	"github.com/a2acli/a2a/internal/serve"
	"github.com/a2acli/a2a/internal/serve/execbackend"
	"github.com/a2acli/a2a/internal/serve/servetest"
	"github.com/a2aproject/a2a-go/v2/a2a"
)

// list tasks must work without authentication through a real client.
func TestListTasksOverTransports(t *testing.T) {
	t.Parallel()
	srv := startServer(t, serve.Config{Backend: execbackend.New(execbackend.Config{Command: "cat"}), Transports: servetest.AllTransports, Quiet: true})
	for _, tr := range servetest.AllTransports {
		c := servetest.NewClient(t, srv.URL, tr)
		if _, err := c.SendMessage(context.Background(), servetest.TextMessage(string(tr))); err != nil {
			t.Fatalf("%s: SendMessage() = %v", tr, err)
		}
	}
	c := servetest.NewClient(t, srv.URL, a2a.TransportProtocolJSONRPC)
	resp, err := c.ListTasks(context.Background(), &a2a.ListTasksRequest{Status: a2a.TaskStateCompleted})
	if err != nil || len(resp.Tasks) != 3 {
		t.Fatalf("ListTasks() = %v, %v; want 3 tasks", resp, err)
	}
}

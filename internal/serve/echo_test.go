package serve

import (
	"context"
	"testing"

	"github.com/a2acli/a2a/internal/serve/servetest"
	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/google/go-cmp/cmp"
)

func TestEchoTransports(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		served []a2a.TransportProtocol
		use    a2a.TransportProtocol
	}{
		{"rest", []a2a.TransportProtocol{a2a.TransportProtocolHTTPJSON}, a2a.TransportProtocolHTTPJSON},
		{"jsonrpc", []a2a.TransportProtocol{a2a.TransportProtocolJSONRPC}, a2a.TransportProtocolJSONRPC},
		{"grpc", []a2a.TransportProtocol{a2a.TransportProtocolGRPC}, a2a.TransportProtocolGRPC},
		{"all/rest", servetest.AllTransports, a2a.TransportProtocolHTTPJSON},
		{"all/jsonrpc", servetest.AllTransports, a2a.TransportProtocolJSONRPC},
		{"all/grpc", servetest.AllTransports, a2a.TransportProtocolGRPC},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := startServer(t, Config{Transports: tc.served, Backend: Echo(), Quiet: true})
			c := servetest.NewClient(t, srv.URL, tc.use)
			ctx := context.Background()
			req := &a2a.SendMessageRequest{Message: a2a.NewMessage(a2a.MessageRoleUser,
				a2a.NewTextPart("hello"), a2a.NewDataPart(map[string]any{"k": "v"}), a2a.NewRawPart([]byte{0, 1, 2}))}
			res, err := c.SendMessage(ctx, req)
			if err != nil {
				t.Fatalf("SendMessage() = %v", err)
			}
			task, ok := res.(*a2a.Task)
			if !ok || task.Status.State != a2a.TaskStateCompleted || len(task.Artifacts) != 1 {
				t.Fatalf("SendMessage() = %#v, want a completed task with one artifact", res)
			}
			if diff := cmp.Diff(req.Message.Parts, task.Artifacts[0].Parts); diff != "" {
				t.Errorf("echoed parts (-want +got):\n%s", diff)
			}
			if got, err := c.GetTask(ctx, &a2a.GetTaskRequest{ID: task.ID}); err != nil || got.Status.State != a2a.TaskStateCompleted {
				t.Errorf("GetTask(echo task) = %v, %v; want it completed", got, err)
			}
			evs, err := servetest.Collect(t, c.SendStreamingMessage(ctx, servetest.TextMessage("streamed")))
			if err != nil {
				t.Fatalf("SendStreamingMessage() = %v", err)
			}
			if got := echoedStream(evs); got != "streamed" {
				t.Errorf("stream echoed %q (%d events), want %q ending completed", got, len(evs), "streamed")
			}
		})
	}
}

// echoedStream returns the text an echo stream carried, or "" unless it ended completed.
func echoedStream(evs []a2a.Event) string {
	if len(evs) == 0 {
		return ""
	}
	if st, ok := evs[len(evs)-1].(*a2a.TaskStatusUpdateEvent); !ok || st.Status.State != a2a.TaskStateCompleted {
		return ""
	}
	var text string
	for _, ev := range evs {
		if au, ok := ev.(*a2a.TaskArtifactUpdateEvent); ok {
			text += servetest.PartsText(au.Artifact.Parts)
		}
	}
	return text
}

// echoedTask returns the text of a completed echo task's artifact, or "".
func echoedTask(res a2a.SendMessageResult) string {
	task, ok := res.(*a2a.Task)
	if !ok || task.Status.State != a2a.TaskStateCompleted || len(task.Artifacts) == 0 {
		return ""
	}
	return servetest.PartsText(task.Artifacts[0].Parts)
}

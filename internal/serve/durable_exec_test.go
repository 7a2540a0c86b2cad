package serve_test

import (
	"context"
	"testing"
	"time"

	"github.com/a2acli/a2a/internal/serve"
	"github.com/a2acli/a2a/internal/serve/execbackend"
	"github.com/a2acli/a2a/internal/serve/servetest"
	"github.com/a2aproject/a2a-go/v2/a2a"
)

// TestReplicasShareTasks: two servers on one PostgreSQL; a task running on a answers on b for get, list,
// subscribe (live events) and cancel (a stops the turn).
func TestReplicasShareTasks(t *testing.T) {
	t.Parallel()
	url := serve.PostgresURL(t)
	exec := execbackend.New(execbackend.Config{Command: `echo one; read l; echo "$l"; sleep 60`, Chunk: []byte("\n")})
	a := startServer(t, serve.Config{Store: url, Backend: exec})
	b := startServer(t, serve.Config{Store: url, Backend: exec})
	ca := servetest.NewClient(t, a.URL, a2a.TransportProtocolHTTPJSON)
	cb := servetest.NewClient(t, b.URL, a2a.TransportProtocolHTTPJSON)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var id a2a.TaskID
	started := make(chan struct{})
	sendDone := make(chan []a2a.Event, 1)
	go func() {
		var evs []a2a.Event
		for ev, err := range ca.SendStreamingMessage(ctx, servetest.TextMessage("two")) {
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
	if !servetest.Eventually(10*time.Second, func() bool {
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

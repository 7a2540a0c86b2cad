package a3sbackend

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/a2acli/a2a/internal/serve"
	"github.com/a2acli/a2a/internal/serve/servetest"
	"github.com/a2acli/a2a/internal/serve/tasks"
	"github.com/a2acli/a2a/internal/serve/traffic"
	"github.com/a2acli/a2a/internal/testagent/a3sagent"
)

// countingHint is a stream's FlushHint that counts the reports it gets.
type countingHint struct{ reports atomic.Int64 }

func (h *countingHint) SetWaiting(int) { h.reports.Add(1) }

// TestStreamsReportToFlushGate: the A3S backend's streams tell the hot path's flush gate how many events wait
// (serve.Env.FlushHints), as every backend on the task runner does; without it, every event of a coding agent's
// stream costs its own flush.
func TestStreamsReportToFlushGate(t *testing.T) {
	t.Parallel()
	agent := a3sagent.Start(t, a3sagent.Options{Shape: a3sagent.A3S})
	hint := &countingHint{}
	e := &serve.Env{
		Config:     &serve.Config{},
		Store:      tasks.NewStore(0, 0, nil),
		Log:        traffic.New(traffic.Config{Quiet: true}),
		FlushHints: func(context.Context) tasks.FlushHint { return hint },
	}
	parts, err := New(Config{Addr: agent.Addr}).Setup(e)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := parts.Shutdown(context.Background()); err != nil {
			t.Error(err)
		}
	})
	events, err := servetest.Collect(t, parts.Handler.SendStreamingMessage(t.Context(), servetest.TextMessage("hello")))
	if err != nil {
		t.Fatal(err)
	}
	last, ok := events[len(events)-1].(*a2a.TaskStatusUpdateEvent)
	if !ok || last.Status.State != a2a.TaskStateCompleted {
		t.Fatalf("the stream ended with %#v, want a completed status", events[len(events)-1])
	}
	if n := hint.reports.Load(); n == 0 {
		t.Errorf("%d events streamed and none reported to the flush gate", len(events))
	}
}

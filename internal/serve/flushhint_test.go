package serve

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/a2acli/a2a/internal/serve/hotpath"
	"github.com/a2acli/a2a/internal/serve/servetest"
	"github.com/a2acli/a2a/internal/serve/tasks"
	"github.com/a2acli/a2a/internal/serve/traffic"
)

// TestFlushHintsFindTheGate: the handlers' FlushHints (Env.FlushHints) find the flush gate the
// server's writer puts on a request that may stream, and none on a unary one.
func TestFlushHintsFindTheGate(t *testing.T) {
	t.Parallel()
	for path, want := range map[string]bool{"/message:stream": true, "/message:send": false} {
		var got tasks.FlushHint
		h := hotpath.GateFlushes(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) { got = flushHints(r.Context()) }))
		h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodPost, path, nil))
		if (got != nil) != want {
			t.Errorf("%s: flush hint %v, want one: %v", path, got, want)
		}
	}
}

// countingHint is a stream's FlushHint that counts the reports it gets.
type countingHint struct{ reports atomic.Int64 }

func (h *countingHint) SetWaiting(int) { h.reports.Add(1) }

// TestTaskPartsReportToFlushGate: the handler Env.TaskParts assembles tells the stream's flush hint how many
// events wait, so that no backend on the task runner can forget it.
func TestTaskPartsReportToFlushGate(t *testing.T) {
	t.Parallel()
	hint := &countingHint{}
	e := &Env{Config: &Config{}, Store: tasks.NewStore(0, 0, nil), Log: traffic.New(traffic.Config{Quiet: true}),
		FlushHints: func(context.Context) tasks.FlushHint { return hint }}
	_, parts := e.TaskParts(echoAgent{})
	defer parts.Shutdown(context.Background()) //nolint:errcheck // nothing runs after the stream ended
	events, err := servetest.Collect(t, parts.Handler.SendStreamingMessage(t.Context(), servetest.TextMessage("hi")))
	if err != nil {
		t.Fatal(err)
	}
	if n := hint.reports.Load(); n == 0 {
		t.Errorf("%d events streamed and none reported to the flush gate", len(events))
	}
}

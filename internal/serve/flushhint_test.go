package serve

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/a2acli/a2a/internal/serve/hotpath"
	"github.com/a2acli/a2a/internal/serve/tasks"
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

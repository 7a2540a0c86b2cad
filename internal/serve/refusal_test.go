package serve

import (
	"github.com/a2acli/a2a/internal/serve/servetest"
	"net/http"
	"testing"
)

// TestStreamRefusalIsUnary: a streaming call refused before its first event (an unknown task) is answered on
// the hot path (package hotpath, with conform.go's refusal) as a unary error, not as an event stream of one error
// event, on both HTTP bindings and for both streaming methods; the JSON-RPC answer carries the request's id.
func TestStreamRefusalIsUnary(t *testing.T) {
	t.Parallel()
	srv := startServer(t, Config{Quiet: true, Transports: servetest.AllTransports})
	hdr := map[string]string{"Content-Type": jsonCT, "Accept": "text/event-stream"}
	st, ct, body := rawPost(t, srv.URL+"/tasks/nope:subscribe", "", hdr)
	wantRESTError(t, "REST SubscribeToTask unknown", st, ct, body, http.StatusNotFound, "TASK_NOT_FOUND")
	send := `{"message":{"messageId":"m","taskId":"nope","role":"ROLE_USER","parts":[{"text":"hi"}]}}`
	st, ct, body = rawPost(t, srv.URL+"/message:stream", send, hdr)
	wantRESTError(t, "REST SendStreamingMessage unknown task", st, ct, body, http.StatusNotFound, "TASK_NOT_FOUND")
	for _, call := range []string{
		`{"jsonrpc":"2.0","id":7,"method":"SubscribeToTask","params":{"id":"nope"}}`,
		`{"jsonrpc":"2.0","id":7,"method":"SendStreamingMessage","params":` + send + `}`,
	} {
		st, ct, body = rawPost(t, srv.URL+"/jsonrpc", call, hdr)
		if r := wantRPCError(t, call, st, ct, body, -32001, "TASK_NOT_FOUND"); r.ID != float64(7) {
			t.Errorf("%s: id %v, want 7", call, r.ID)
		}
	}
}

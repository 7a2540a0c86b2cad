package e2e

import "testing"

// TestSubscribeUnknownTask: the server refuses a subscription to an unknown task before its stream starts (as a
// unary error, which the TCK requires); the client reports TaskNotFoundError on every transport, even where a2a-go's
// JSON-RPC client reads such an answer as an empty stream.
func TestSubscribeUnknownTask(t *testing.T) {
	t.Parallel()
	srv := startServe(t, "--echo", "--transport", "rest,jsonrpc,grpc", "--quiet")
	for _, tr := range []string{"rest", "jsonrpc", "grpc"} {
		r := run(t, "", "subscribe", srv.url, "no-such-task", "--transport", tr, "-o", "json")
		wantCode(t, r, 1)
		if doc := errorDoc(t, r); doc["code"] != "TaskNotFoundError" {
			t.Errorf("subscribe over %s to an unknown task: code %v, want TaskNotFoundError\n%s", tr, doc["code"], r)
		}
	}
}

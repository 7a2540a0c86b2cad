package hotpath

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv"
	"github.com/google/go-cmp/cmp"
)

// sendRecorder is an a2asrv request handler that only records the SendMessage request a2asrv decoded.
// Any other method panics (the embedded interface is nil): the fuzz targets catch that as a mismatch.
type sendRecorder struct {
	a2asrv.RequestHandler
	got *a2a.SendMessageRequest
}

var errRecorded = errors.New("recorded")

func (r *sendRecorder) SendMessage(_ context.Context, req *a2a.SendMessageRequest) (a2a.SendMessageResult, error) {
	r.got = req
	return nil, errRecorded
}

// a2asrvSend runs body through a2asrv's own handler h (built on a sendRecorder) and returns the request it
// handed to SendMessage, or nil; it fails the test if a2asrv called another method.
func a2asrvSend(t *testing.T, path string, body []byte, newHandler func(a2asrv.RequestHandler) http.Handler) *a2a.SendMessageRequest {
	t.Helper()
	rec := &sendRecorder{}
	defer func() {
		if p := recover(); p != nil {
			t.Fatalf("a2asrv took %q for another method than SendMessage (%v)", body, p)
		}
	}()
	req := httptest.NewRequest(http.MethodPost, path, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	newHandler(rec).ServeHTTP(httptest.NewRecorder(), req)
	return rec.got
}

// sameRequest fails unless a and b encode to the same JSON.
func sameRequest(t *testing.T, what string, a, b *a2a.SendMessageRequest) {
	t.Helper()
	ja, err1 := json.Marshal(a)
	jb, err2 := json.Marshal(b)
	if err1 != nil || err2 != nil {
		t.Fatalf("%s: marshal: %v, %v", what, err1, err2)
	}
	if diff := cmp.Diff(string(ja), string(jb)); diff != "" {
		t.Fatalf("%s: requests differ (-fast +a2asrv):\n%s", what, diff)
	}
}

func addSendSeeds(f *testing.F) {
	f.Add([]byte(`{"message":{"messageId":"m1","role":"ROLE_USER","parts":[{"text":"hi"}]}}`))
	f.Add([]byte(`{"message":{"messageId":"m","role":"ROLE_USER","taskId":"t","contextId":"c","parts":[{"data":{"a":[1,2]}},{"raw":"aGk=","mediaType":"x/y"},{"url":"http://x"}],"metadata":{"k":null}},"configuration":{"acceptedOutputModes":["text/plain"],"historyLength":2,"returnImmediately":true}}`))
	f.Add([]byte(`{"message":{"messageId":"m1","role":"ROLE_USER","parts":[]}} trailing`))
	f.Add([]byte(`{"message":null}`))
	f.Add([]byte(`{"MESSAGE":{"MessageId":"m1","role":"ROLE_AGENT","parts":[{"text":"\u0000\ud800"}]}}`))
}

// FuzzDecodeSend: the REST fast path's decoder takes a body only when a2asrv's REST handler would decode the
// same request from it (a body the fast path declines goes to a2asrv itself); what it decodes survives a
// JSON round trip unchanged.
func FuzzDecodeSend(f *testing.F) {
	addSendSeeds(f)
	f.Fuzz(func(t *testing.T, body []byte) {
		req, ok := decodeSend(body)
		if !ok {
			return
		}
		got := a2asrvSend(t, "/message:send", body, func(h a2asrv.RequestHandler) http.Handler { return a2asrv.NewRESTHandler(h) })
		if got == nil {
			t.Fatalf("fast path decoded %q, a2asrv's REST handler refused it", body)
		}
		sameRequest(t, "REST", req, got)
		again, err := json.Marshal(req)
		if err != nil {
			return // a value json.Marshal cannot write (a NaN in data): a2asrv could not answer it either
		}
		req2, ok := decodeSend(again)
		if !ok {
			t.Fatalf("decodeSend(json.Marshal(decodeSend(%q))) failed", body)
		}
		sameRequest(t, "round trip", req, req2)
	})
}

// FuzzDecodeRPC: the JSON-RPC fast path's envelope decoder accepts only what a2asrv accepts, its id encodes
// back to the same value, and a SendMessage it takes is the request a2asrv's JSON-RPC handler decodes.
func FuzzDecodeRPC(f *testing.F) {
	f.Add([]byte(`{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"m1","role":"ROLE_USER","parts":[{"text":"hi"}]}}}`))
	f.Add([]byte(`{"jsonrpc":"2.0","id":"x","method":"SendStreamingMessage","params":{"message":{"messageId":"m1","role":"ROLE_USER","parts":[{"text":"hi"}]}}}`))
	f.Add([]byte(`{"jsonrpc":"2.0","id":null,"method":"SubscribeToTask","params":{"id":"t1"}}`))
	f.Add([]byte(`{"jsonrpc":"2.0","id":{"a":1},"method":"SendMessage","params":{}}`))
	f.Add([]byte(`{"jsonrpc":"1.0","id":1e400,"method":"SendMessage"}`))
	f.Add([]byte(`{"jsonrpc":"2.0","id":1,"method":"SendMessage","method":"GetTask","params":{"message":{"messageId":"m","role":"ROLE_USER","parts":[]}}}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		env, id, ok := decodeRPC(body)
		if !ok {
			return
		}
		if env.JSONRPC != "2.0" || !json.Valid(body) {
			t.Fatalf("decodeRPC(%q) accepted jsonrpc %q", body, env.JSONRPC)
		}
		var back any
		if err := json.Unmarshal(id, &back); err != nil || !cmp.Equal(back, env.ID) {
			t.Fatalf("decodeRPC(%q): id %s decodes to %#v, want %#v", body, id, back, env.ID)
		}
		if env.Method != "SendMessage" {
			return
		}
		req, ok := decodeSend(env.Params)
		if !ok {
			return
		}
		got := a2asrvSend(t, "/", body, func(h a2asrv.RequestHandler) http.Handler { return a2asrv.NewJSONRPCHandler(h) })
		if got == nil {
			t.Fatalf("fast path took SendMessage %q, a2asrv's JSON-RPC handler refused it", body)
		}
		sameRequest(t, "JSON-RPC", req, got)
	})
}

// FuzzSubscribeID: a REST subscribe path yields an id only when the path is exactly /tasks/ID:subscribe
// with a non-empty id free of slashes.
func FuzzSubscribeID(f *testing.F) {
	for _, p := range []string{"/tasks/abc:subscribe", "/tasks/:subscribe", "/tasks/a/b:subscribe", "/tasks/a:subscribe:subscribe", "/x/tasks/a:subscribe", "/tasks/a%2F:subscribe"} {
		f.Add(p)
	}
	f.Fuzz(func(t *testing.T, path string) {
		id, ok := subscribeID(path)
		if !ok {
			return
		}
		if id == "" || strings.Contains(id, "/") || "/tasks/"+id+":subscribe" != path {
			t.Fatalf("subscribeID(%q) = %q, true", path, id)
		}
	})
}

// FuzzWireJSON: for any event an upstream or a store hands the wire encoder (here: decoded from any
// StreamResponse JSON), it writes exactly what json.Marshal writes.
func FuzzWireJSON(f *testing.F) {
	f.Add([]byte(`{"statusUpdate":{"taskId":"t","contextId":"c","status":{"state":"TASK_STATE_WORKING","timestamp":"2026-11-22T05:22:52.709Z"}}}`))
	f.Add([]byte(`{"artifactUpdate":{"taskId":"t","contextId":"c","append":true,"lastChunk":true,"artifact":{"artifactId":"a","parts":[{"text":"x\u2028\u003c"}]}}}`))
	f.Add([]byte(`{"task":{"id":"t","contextId":"c","status":{"state":"TASK_STATE_COMPLETED"},"history":[{"messageId":"m","role":"ROLE_AGENT","parts":[{"data":{"k":1.5e300}}]}],"metadata":{"a":[null,true]}}}`))
	f.Add([]byte(`{"message":{"messageId":"m","role":"ROLE_AGENT","parts":[{"raw":"AAE=","filename":"f","mediaType":"a/b"}],"extensions":["e"],"referenceTaskIds":["r"]}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var sr a2a.StreamResponse
		if json.Unmarshal(data, &sr) != nil || sr.Event == nil {
			return
		}
		checkWire(t, "fuzz", sr.Event)
	})
}

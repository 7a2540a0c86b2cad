package proxy

import (
	"bytes"
	"net/http"
	"testing"
	"testing/iotest"

	"github.com/google/go-cmp/cmp"
)

// FuzzScanEvent: the proxy's log scanner never panics on what an upstream streams, reports a task id only
// as it appears in the data, and an SSE stream cut into any pieces is scanned as if read whole.
func FuzzScanEvent(f *testing.F) {
	f.Add([]byte("data: {\"result\":{\"statusUpdate\":{\"taskId\":\"t1\",\"status\":{\"state\":\"TASK_STATE_WORKING\"}}}}\n\n"))
	f.Add([]byte("event: x\r\ndata:{\"kind\":\"status-update\",\"taskId\":\"t\\\"2\",\"status\":{\"state\":\"completed\"}}\r\n\r\n"))
	f.Add([]byte("data: {\"error\":{\"code\":-32001,\"message\":\"no\"}}\n\ndata: {\"artifactUpdate\":{\"taskId\":\"t\"}}\n"))
	f.Add([]byte("data: {\"id\" : \"a\", \"taskId\":1, \"taskId\": \"b\"}\n"))
	f.Fuzz(func(t *testing.T, stream []byte) {
		for _, line := range bytes.Split(stream, []byte("\n")) {
			id, state, _ := scanEvent(line)
			if id != "" && !bytes.Contains(line, []byte(id)) {
				t.Fatalf("scanEvent(%q) id %q is not in the data", line, id)
			}
			if state == "" {
				t.Fatalf("scanEvent(%q) state is empty, want a state or -", line)
			}
		}
		whole := scanSSE(t, bytes.NewReader(stream))
		if got := scanSSE(t, iotest.OneByteReader(bytes.NewReader(stream))); !cmp.Equal(whole, got) {
			t.Fatalf("stream %q read byte by byte: %+v, read whole: %+v", stream, got, whole)
		}
		for _, unary := range []bool{true, false} {
			scanUnary(unary, 200, stream)
		}
	})
}

// scanSSE passes r through an sseTee and returns what it recorded.
func scanSSE(t *testing.T, r interface{ Read([]byte) (int, error) }) Call {
	t.Helper()
	c := &fastCall{f: &bytePath{log: discardLog{}}, rec: &Call{State: "-"}}
	tee := &sseTee{c: c}
	buf := make([]byte, 4096)
	for {
		n, err := r.Read(buf)
		tee.scan(buf[:n])
		if err != nil {
			break
		}
	}
	return *c.rec
}

// discardLog is a quiet traffic log.
type discardLog struct{}

func (discardLog) Records() bool         { return false }
func (discardLog) Verbose() bool         { return false }
func (discardLog) Printf(string, ...any) {}
func (discardLog) Begin(*http.Request, Route, string, string, []byte) *Call {
	return nil
}
func (discardLog) Event(*Call, []byte) {}
func (discardLog) HandOff(*Call)       {}
func (discardLog) End(*Call, error)    {}

package inspect

import (
	"errors"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/a2acli/a2a/internal/serve"
)

func oneCall(h *hub, method string, err error) {
	w := h.Begin(serve.CallStart{Time: time.Now(), Method: method, Body: []byte(`{"message":{"contextId":"ctx-1"}}`)})
	w.Event([]byte(`{"task":{"id":"t1","contextId":"ctx-1","status":{"state":"TASK_STATE_COMPLETED"}}}`))
	w.End(serve.CallEnd{Time: time.Now(), TaskID: "t1", State: "completed", Events: 1, Err: err})
}

// A reader that never reads loses messages, counted; the calls go on and are all kept.
func TestHubDropsForStuckReader(t *testing.T) {
	t.Parallel()
	h := newHub()
	stuck := h.subscribe()
	const n = subBuffer // two messages each: begin and end
	done := make(chan struct{})
	go func() {
		defer close(done)
		for range n {
			oneCall(h, "SendMessage", nil)
		}
	}()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("calls blocked on a reader that does not read")
	}
	if got := h.subDropped(stuck); got != 2*n-subBuffer {
		t.Errorf("reader lost %d messages, want %d", got, 2*n-subBuffer)
	}
	if st := h.stats(); st.Dropped != 2*n-subBuffer || st.Calls != n || st.Latency["SendMessage"].Total != n {
		t.Errorf("stats %+v", st)
	}
}

func TestHubBounds(t *testing.T) {
	t.Parallel()
	h := newHub()
	for range maxCalls + 10 {
		oneCall(h, "GetTask", errors.New("boom"))
	}
	if kept := maxCalls * 9 / 10; len(h.calls) != kept+9 || len(h.byID) != kept+9 || h.evicted != int64(maxCalls+1-kept) {
		t.Errorf("after %d calls: %d kept, %d indexed, %d evicted", maxCalls+10, len(h.calls), len(h.byID), h.evicted)
	}
	w := h.Begin(serve.CallStart{Time: time.Now(), Method: "SendStreamingMessage"})
	for range maxCallEvents + 5 {
		w.Event([]byte(`{}`))
	}
	c := h.calls[len(h.calls)-1]
	if len(c.evs) != maxCallEvents || c.lost != 5 || h.open != 1 {
		t.Errorf("stream: %d events kept, %d lost, %d open", len(c.evs), c.lost, h.open)
	}
	w.End(serve.CallEnd{Time: time.Now()})
	if h.open != 0 {
		t.Errorf("%d streams open after the end", h.open)
	}
}

func TestContextOf(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{`{"message":{"contextId":"c-1"}}`, "c-1"},
		{`{"x": 1, "contextId" : "c\"2"}`, `c"2`},
		{`{"contextId":5}`, ""},
		{`{"contextId":"cut`, ""},
		{`{"contextId"`, ""},
		{``, ""},
	}
	for _, tt := range tests {
		if got := contextOf([]byte(tt.in)); got != tt.want {
			t.Errorf("contextOf(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestDecodeEvent(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, in string
		want     string // the event's type and task, "" when not an event
	}{
		{"REST stream", `{"statusUpdate":{"taskId":"t1","contextId":"c","status":{"state":"TASK_STATE_WORKING"}}}`, "*a2a.TaskStatusUpdateEvent t1"},
		{"JSON-RPC", `{"jsonrpc":"2.0","id":1,"result":{"task":{"id":"t2","contextId":"c","status":{"state":"TASK_STATE_COMPLETED"}}}}`, "*a2a.Task t2"},
		{"bare task", `{"id":"t3","contextId":"c","status":{"state":"TASK_STATE_FAILED"}}`, "*a2a.Task t3"},
		{"JSON-RPC error", `{"jsonrpc":"2.0","id":1,"error":{"code":-32001,"message":"nope"}}`, ""},
		{"list", `{"tasks":[]}`, ""},
		{"cut", `{"task":{"id":"t`, ""},
	}
	for _, tt := range tests {
		ev, ok := decodeEvent([]byte(tt.in))
		got := ""
		if ok {
			got = typeName(ev) + " " + string(ev.TaskInfo().TaskID)
		}
		if got != tt.want {
			t.Errorf("%s: decodeEvent(%s) = %q, want %q", tt.name, tt.in, got, tt.want)
		}
	}
}

func typeName(ev a2a.Event) string {
	switch ev.(type) {
	case *a2a.Task:
		return "*a2a.Task"
	case *a2a.TaskStatusUpdateEvent:
		return "*a2a.TaskStatusUpdateEvent"
	}
	return "other"
}

func TestQuote(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{"abc": "abc", "a b": "'a b'", "it's": `'it'\''s'`, "": "''", "$X": "'$X'"} {
		if got := quote(in); got != want {
			t.Errorf("quote(%q) = %s, want %s", in, got, want)
		}
	}
}

// What the hub keeps of a large body or event is a copy of its first maxEventBytes, not a slice of the caller's
// buffer (which would keep the whole buffer alive, and change under the hub if the caller reused it), and headers
// count in the byte bound.
func TestHubKeepsCopies(t *testing.T) {
	t.Parallel()
	h := newHub()
	body := make([]byte, 4<<20)
	ev := make([]byte, 4<<20)
	hdr := map[string][]string{"X-Big": {string(make([]byte, 1000))}}
	w := h.Begin(serve.CallStart{Time: time.Now(), Method: "SendMessage", Header: hdr, Body: body})
	w.Event(ev)
	w.End(serve.CallEnd{Time: time.Now(), State: "completed", Events: 1})
	body[0], ev[0] = 'x', 'y'
	c := h.calls[0]
	if cap(c.body) > maxEventBytes || cap(c.evs[0].raw) > maxEventBytes {
		t.Errorf("kept capacities %d and %d, want at most %d each", cap(c.body), cap(c.evs[0].raw), maxEventBytes)
	}
	if c.body[0] != 0 || c.evs[0].raw[0] != 0 {
		t.Error("the kept body or event changed with the caller's buffer: not a copy")
	}
	if want := 2*maxEventBytes + len("X-Big") + 1000; c.size != want || h.kept != want {
		t.Errorf("size %d, kept %d, want %d (body, event and header)", c.size, h.kept, want)
	}
}

// A long stream of large events stays within the byte bound: one call keeps at most half of it, and the calls
// before it go once the bound is reached.
func TestHubBytesBoundWithinACall(t *testing.T) {
	t.Parallel()
	h := newHub()
	for range 100 {
		oneCall(h, "SendMessage", nil)
	}
	big := make([]byte, maxEventBytes)
	for range 3 {
		w := h.Begin(serve.CallStart{Time: time.Now(), Method: "SendStreamingMessage"})
		for range 200 { // 50 MB: more than half the bound
			w.Event(big)
		}
		w.End(serve.CallEnd{Time: time.Now(), State: "completed"})
	}
	if h.kept > maxKeptBytes {
		t.Errorf("the hub keeps %d bytes, over its bound of %d", h.kept, maxKeptBytes)
	}
	last := h.calls[len(h.calls)-1]
	if last.size > maxKeptBytes/2 || last.lost == 0 {
		t.Errorf("the last stream keeps %d bytes and lost %d events, want at most %d bytes", last.size, last.lost, maxKeptBytes/2)
	}
}

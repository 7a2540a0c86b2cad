package hotpath

import (
	"context"
	"errors"
	"iter"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv"
	"github.com/google/go-cmp/cmp"
)

// scripted answers every hot call with fixed events, then err (when set); it counts its calls.
type scripted struct {
	a2asrv.RequestHandler
	events []a2a.Event
	err    error
	calls  atomic.Int32
}

func (s *scripted) SendMessage(context.Context, *a2a.SendMessageRequest) (a2a.SendMessageResult, error) {
	s.calls.Add(1)
	if s.err != nil {
		return nil, s.err
	}
	return s.events[0].(a2a.SendMessageResult), nil
}

func (s *scripted) seq() iter.Seq2[a2a.Event, error] {
	s.calls.Add(1)
	return func(yield func(a2a.Event, error) bool) {
		for _, ev := range s.events {
			if !yield(ev, nil) {
				return
			}
		}
		if s.err != nil {
			yield(nil, s.err)
		}
	}
}

func (s *scripted) GetTask(context.Context, *a2a.GetTaskRequest) (*a2a.Task, error) {
	s.calls.Add(1)
	return nil, a2a.ErrTaskNotFound
}

func (s *scripted) SendStreamingMessage(context.Context, *a2a.SendMessageRequest) iter.Seq2[a2a.Event, error] {
	return s.seq()
}

func (s *scripted) SubscribeToTask(context.Context, *a2a.SubscribeToTaskRequest) iter.Seq2[a2a.Event, error] {
	return s.seq()
}

var sseIDLine = regexp.MustCompile(`(?m)^id: [0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)

// errorTime is the time a2a-go puts in an error's details, which differs between two answers.
var errorTime = regexp.MustCompile(`"timestamp":"[^"]*"`)

// normalized replaces what differs between two answers to the same request: SSE event ids, error times.
func normalized(body string) string {
	return errorTime.ReplaceAllString(sseIDLine.ReplaceAllString(body, "id: ID"), `"timestamp":"T"`)
}

// serveOnce records h's answer to the request; SSE event ids are replaced, being random.
func serveOnce(h http.Handler, method, path, body string) (int, http.Header, string) {
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(method, path, strings.NewReader(body)))
	return rec.Code, rec.Header(), normalized(rec.Body.String())
}

// fastCase is one request of the fast path's comparison with a2asrv, answered by a scripted handler.
type fastCase struct {
	name               string // of the script
	script             func() *scripted
	rest               bool
	method, path, body string
	streams            bool // a streaming call the fast path runs
}

// fastCases crosses every script with every request the fast paths take (or hand over).
func fastCases() []fastCase {
	ts := time.Date(2026, 1, 2, 3, 4, 5, 6, time.UTC)
	task := &a2a.Task{ID: "t1", ContextID: "c1", Status: a2a.TaskStatus{State: a2a.TaskStateSubmitted, Timestamp: &ts}}
	chunk := &a2a.TaskArtifactUpdateEvent{TaskID: "t1", ContextID: "c1", LastChunk: true,
		Artifact: &a2a.Artifact{ID: "a", Parts: a2a.ContentParts{a2a.NewTextPart("<hello>\n")}}}
	done := &a2a.TaskStatusUpdateEvent{TaskID: "t1", ContextID: "c1", Status: a2a.TaskStatus{State: a2a.TaskStateCompleted, Timestamp: &ts}}
	bad := &a2a.TaskStatusUpdateEvent{TaskID: "t1", Status: a2a.TaskStatus{Timestamp: ptr(time.Date(12000, 1, 1, 0, 0, 0, 0, time.UTC))}}
	scripts := map[string]func() *scripted{
		"ok":         func() *scripted { return &scripted{events: []a2a.Event{task, chunk, done}} },
		"error":      func() *scripted { return &scripted{err: a2a.ErrTaskNotFound} },
		"late error": func() *scripted { return &scripted{events: []a2a.Event{task, chunk}, err: errors.New("boom")} },
		"unencoded":  func() *scripted { return &scripted{events: []a2a.Event{task, bad, done}} },
	}
	send := `{"message":{"messageId":"m","role":"ROLE_USER","parts":[{"text":"hi"}]}}`
	rpc := func(method, params string) string {
		return `{"jsonrpc":"2.0","id":7,"method":"` + method + `","params":` + params + `}`
	}
	reqs := []fastCase{
		{rest: true, method: "POST", path: "/message:send", body: send},
		{rest: true, method: "POST", path: "/message:stream", body: send, streams: true},
		{rest: true, method: "GET", path: "/tasks/t1:subscribe", streams: true},
		{rest: true, method: "POST", path: "/tasks/t1:subscribe", streams: true},
		{rest: true, method: "POST", path: "/message:stream", body: `{"message":`},
		{rest: true, method: "GET", path: "/tasks/t1"},
		{method: "POST", path: "/", body: rpc("SendMessage", send)},
		{method: "POST", path: "/", body: rpc("SendStreamingMessage", send), streams: true},
		{method: "POST", path: "/", body: rpc("SubscribeToTask", `{"id":"t1"}`), streams: true},
		{method: "POST", path: "/", body: `{"jsonrpc":"2.0","id":"x","method":"SendStreamingMessage","params":{"message":7}}`},
		{method: "POST", path: "/", body: `{"jsonrpc":"1.0","id":1,"method":"SendMessage","params":{}}`},
		{method: "POST", path: "/", body: `{"jsonrpc":"2.0","id":[1],"method":"SendMessage","params":{}}`},
	}
	var out []fastCase
	for name, script := range scripts {
		for _, rq := range reqs {
			if name == "unencoded" && (strings.Contains(rq.path, "message:send") || strings.Contains(rq.body, `"SendMessage"`)) {
				continue // SendMessage answers the first event only
			}
			rq.name, rq.script = name, script
			out = append(out, rq)
		}
	}
	return out
}

func (c fastCase) String() string { return c.name + " " + c.method + " " + c.path + " " + c.body }

// handlers returns a2asrv's handler and the fast path (with d) for c, each on its own script.
func (c fastCase) handlers(d *Detacher) (lib, fast http.Handler, want, got *scripted) {
	want, got = c.script(), c.script()
	if c.rest {
		return a2asrv.NewRESTHandler(want), REST(got, d, nil), want, got
	}
	return a2asrv.NewJSONRPCHandler(want), JSONRPC(got, d, nil), want, got
}

func TestFastPathMatchesA2asrv(t *testing.T) {
	t.Parallel()
	for _, c := range fastCases() {
		lib, fast, want, got := c.handlers(nil)
		wc, wh, wb := serveOnce(lib, c.method, c.path, c.body)
		gc, gh, gb := serveOnce(fast, c.method, c.path, c.body)
		if gc != wc {
			t.Errorf("%s: status %d, want %d", c, gc, wc)
		}
		if diff := cmp.Diff(wh, gh); diff != "" {
			t.Errorf("%s: headers (-a2asrv +fast):\n%s", c, diff)
		}
		if diff := cmp.Diff(wb, gb); diff != "" {
			t.Errorf("%s: body (-a2asrv +fast):\n%s", c, diff)
		}
		if w, g := want.calls.Load(), got.calls.Load(); g != w {
			t.Errorf("%s: handler called %d times, a2asrv calls it %d times", c, g, w)
		}
	}
}

func TestEventIDsAreUUIDs(t *testing.T) {
	t.Parallel()
	ids := newEventIDs()
	a, b := string(ids.append([]byte("id: "))), string(ids.append([]byte("id: ")))
	if !sseIDLine.MatchString(a) || a == b {
		t.Errorf("event ids %q, %q: want two different version 4 UUIDs", a, b)
	}
}

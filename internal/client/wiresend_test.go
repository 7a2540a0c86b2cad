package client

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

const (
	wireTask = `{"task":{"id":"t1","contextId":"c1","status":{"state":"TASK_STATE_COMPLETED","timestamp":"2026-01-01T00:00:00Z"},` +
		`"artifacts":[{"artifactId":"a1","parts":[{"text":"pong \"x\" {]"}]}],"history":[{"messageId":"m1","role":"ROLE_USER","parts":[{"text":"ping"}]}]}}`
	wireMessage = `{"message":{"messageId":"m2","role":"ROLE_AGENT","parts":[{"text":"pong"}]}}`
)

// wireAnswers are 200 answers in the REST shape (the JSON-RPC cases wrap each in an envelope): the hot shapes and
// the odd ones a lean reader could misread.
var wireAnswers = map[string]string{
	"task":               wireTask,
	"message":            wireMessage,
	"working":            `{"task":{"id":"t1","contextId":"c1","status":{"state":"TASK_STATE_WORKING"}}}`,
	"spaces":             " {\n \"task\" : { \"id\" : \"t1\" , \"contextId\":\"c1\", \"status\" : { \"state\" : \"TASK_STATE_FAILED\" } } }\n",
	"no status":          `{"task":{"id":"t1","contextId":"c1"}}`,
	"null status":        `{"task":{"id":"t1","contextId":"c1","status":null}}`,
	"null state":         `{"task":{"id":"t1","contextId":"c1","status":{"state":null}}}`,
	"numeric state":      `{"task":{"id":"t1","contextId":"c1","status":{"state":3}}}`,
	"escaped state":      `{"task":{"id":"t1","contextId":"c1","status":{"state":"TASK_STATE_\u0043OMPLETED"}}}`,
	"unknown state":      `{"task":{"id":"t1","contextId":"c1","status":{"state":"TASK_STATE_NAPPING"}}}`,
	"both":               `{"task":{"id":"t1","contextId":"c1","status":{"state":"TASK_STATE_COMPLETED"}},"message":{"messageId":"m2","role":"ROLE_AGENT","parts":[{"text":"x"}]}}`,
	"neither":            `{"statusUpdate":{"taskId":"t1","contextId":"c1","status":{"state":"TASK_STATE_WORKING"}}}`,
	"null task":          `{"task":null,"message":{"messageId":"m2","role":"ROLE_AGENT","parts":[{"text":"x"}]}}`,
	"empty":              `{}`,
	"array":              `[]`,
	"string task":        `{"task":"t1"}`,
	"key case":           `{"Task":{"id":"t1","contextId":"c1","status":{"state":"TASK_STATE_COMPLETED"}}}`,
	"state key case":     `{"task":{"id":"t1","contextId":"c1","status":{"State":"TASK_STATE_CANCELED"}}}`,
	"duplicate task":     `{"task":{"id":"t1","contextId":"c1","status":{"state":"TASK_STATE_COMPLETED"}},"task":{"id":"t2","contextId":"c1","status":{"state":"TASK_STATE_FAILED"}}}`,
	"duplicate state":    `{"task":{"id":"t1","contextId":"c1","status":{"state":"TASK_STATE_COMPLETED","state":"TASK_STATE_FAILED"}}}`,
	"task then null":     `{"task":{"id":"t1","contextId":"c1","status":{"state":"TASK_STATE_COMPLETED"}},"task":null}`,
	"escaped key":        `{"t\u0061sk":{"id":"t1","contextId":"c1","status":{"state":"TASK_STATE_COMPLETED"}}}`,
	"invalid JSON":       `{"task":{"id":"t1","contextId":"c1","status":{"state":"TASK_STATE_COMPLETED"}}`,
	"trailing garbage":   wireTask + `x`,
	"message not object": `{"message":[1,2]}`,
	"bad part":           `{"message":{"messageId":"m2","role":"ROLE_AGENT","parts":[{"nothing":1}]}}`,
	"not JSON":           `<html>hello</html>`,
}

// fixedAnswers answer as wireAnswers says, counting the requests.
type countingAnswer struct {
	fixedAnswer
	mu     sync.Mutex
	bodies []string
}

func (c *countingAnswer) RoundTrip(req *http.Request) (*http.Response, error) {
	b, _ := io.ReadAll(req.Body)
	c.mu.Lock()
	c.bodies = append(c.bodies, string(b))
	c.mu.Unlock()
	return c.fixedAnswer.RoundTrip(req)
}

// wireResults are one send's outcome, through WireSend and through a2a-go's transport behind answerCheck (the
// path every other verb takes), as comparable strings.
func wireResults(t testing.TB, ans fixedAnswer, jsonrpc bool) (ours, sdk string) {
	t.Helper()
	binding := a2a.TransportProtocolHTTPJSON
	if jsonrpc {
		binding = a2a.TransportProtocolJSONRPC
	}
	iface := &a2a.AgentInterface{URL: "http://agent.invalid/a2a", ProtocolBinding: binding, ProtocolVersion: a2a.Version}
	wire := &countingAnswer{fixedAnswer: ans}
	c := &Conn{Iface: iface, HC: &http.Client{Transport: wire}, Params: map[string][]string{"X-Test": {"1"}}}
	req := &a2a.SendMessageRequest{Message: a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("ping"))}
	ws, err := c.WireSend(context.Background(), req)
	if err != nil || ws == nil {
		t.Fatalf("WireSend: %v, %v", ws, err)
	}
	res, err := ws.Send(context.Background())
	ours = outcome(res, err)
	u, _ := url.Parse(iface.URL)
	sres, err := newSDKTransport(u, &http.Client{Transport: &answerCheck{base: ans, jsonrpc: jsonrpc}}, jsonrpc).SendMessage(context.Background(), nil, req)
	var r WireResult
	switch v := sres.(type) {
	case *a2a.Task:
		r.State = v.Status.State
	case *a2a.Message:
		r.Message = true
	}
	if len(wire.bodies) != 1 {
		t.Fatalf("WireSend sent %d requests, want 1", len(wire.bodies))
	}
	return ours, outcome(r, err)
}

func outcome(r WireResult, err error) string {
	if err != nil {
		return "error " + ErrorClass(err) + ": " + unorderedKeys(err.Error())
	}
	if r.Message {
		return "message"
	}
	return "task " + string(r.State)
}

// unorderedKeys is sortedKeys for keys that may be empty or hold spaces: the list a2a-go prints in a map's order
// becomes its bytes in order.
func unorderedKeys(msg string) string {
	for _, prefix := range []string{"unknown event type: [", "unknown part content type: ["} {
		i := strings.Index(msg, prefix)
		j := strings.Index(msg, "]; data: ")
		if i < 0 || j < i {
			continue
		}
		keys := []byte(msg[i+len(prefix) : j])
		slices.Sort(keys)
		return msg[:i+len(prefix)] + string(keys) + msg[j:]
	}
	return msg
}

func wrapRPC(jsonrpc bool, body string) string {
	if jsonrpc && json200(body) {
		return rpc(body)
	}
	return body
}

func json200(body string) bool { return strings.HasPrefix(strings.TrimSpace(body), "{") }

// TestWireSendDifferential: whatever the agent answers, WireSend gives the state, the message or the error (its
// class and its text) that a2a-go's client gives, on both bindings.
func TestWireSendDifferential(t *testing.T) {
	for _, jsonrpc := range []bool{false, true} {
		answers := map[string]fixedAnswer{}
		for name, body := range wireAnswers {
			answers[name] = fixedAnswer{http.StatusOK, "application/json", []byte(wrapRPC(jsonrpc, body))}
		}
		answers["404 rest error"] = fixedAnswer{http.StatusNotFound, "application/json", []byte(`{"error":{"code":404,"status":"NOT_FOUND","message":"no such task"}}`)}
		answers["502 html"] = fixedAnswer{http.StatusBadGateway, "text/html", []byte(`<html>bad gateway</html>`)}
		answers["500 text"] = fixedAnswer{http.StatusInternalServerError, "text/plain", []byte("boom")}
		answers["201 task"] = fixedAnswer{http.StatusCreated, "application/json", []byte(wrapRPC(jsonrpc, wireTask))}
		if jsonrpc {
			answers["rpc error"] = fixedAnswer{http.StatusOK, "application/json", []byte(`{"jsonrpc":"2.0","id":"r1","error":{"code":-32001,"message":"task not found"}}`)}
			answers["rpc error with data"] = fixedAnswer{http.StatusOK, "application/json", []byte(`{"jsonrpc":"2.0","id":"r1","error":{"code":-32603,"message":"boom","data":{"stack":"s"}}}`)}
			answers["rpc error and result"] = fixedAnswer{http.StatusOK, "application/json", []byte(`{"jsonrpc":"2.0","id":"r1","result":` + wireTask + `,"error":{"code":-32001,"message":"x"}}`)}
			answers["rpc null error"] = fixedAnswer{http.StatusOK, "application/json", []byte(`{"jsonrpc":"2.0","id":"r1","error":null,"result":` + wireTask + `}`)}
			answers["rpc error 500"] = fixedAnswer{http.StatusInternalServerError, "application/json", []byte(`{"jsonrpc":"2.0","id":"r1","error":{"code":-32603,"message":"internal"}}`)}
			answers["rpc Result"] = fixedAnswer{http.StatusOK, "application/json", []byte(`{"jsonrpc":"2.0","id":"r1","Result":` + wireTask + `}`)}
			answers["rpc no result"] = fixedAnswer{http.StatusOK, "application/json", []byte(`{"jsonrpc":"2.0","id":"r1"}`)}
		}
		for name, ans := range answers {
			t.Run(fmt.Sprintf("jsonrpc=%v/%s", jsonrpc, name), func(t *testing.T) {
				ours, sdk := wireResults(t, ans, jsonrpc)
				if name == "bad part" {
					if ours != "message" || !contentError(sdk) {
						t.Fatalf("WireSend: %s, want message (it reads no part)\na2a-go:   %s, want its error", ours, sdk)
					}
					return
				}
				if ours != sdk {
					t.Fatalf("WireSend: %s\na2a-go:   %s", ours, sdk)
				}
			})
		}
	}
}

// TestWireSendHotPath: the hot shapes are read by the walk (else the differential test says nothing about it), the
// odd ones are not; and each send carries a new message id, in the JSON-RPC id too, with the client's headers.
func TestWireSendHotPath(t *testing.T) {
	for _, jsonrpc := range []bool{false, true} {
		for name, want := range map[string]WireResult{"task": {State: a2a.TaskStateCompleted}, "message": {Message: true},
			"spaces": {State: a2a.TaskStateFailed}, "null task": {Message: true}, "no status": {}} {
			if got, ok := walkAnswer([]byte(wrapRPC(jsonrpc, wireAnswers[name])), jsonrpc); !ok || got != want {
				t.Errorf("jsonrpc=%v %s: walk gave %+v, %v; want %+v", jsonrpc, name, got, ok, want)
			}
		}
		for _, name := range []string{"key case", "state key case", "duplicate task", "duplicate state", "task then null", "escaped key", "escaped state", "numeric state", "null state", "both", "neither"} {
			if got, ok := walkAnswer([]byte(wrapRPC(jsonrpc, wireAnswers[name])), jsonrpc); ok {
				t.Errorf("jsonrpc=%v %s: walked to %+v: it must go to encoding/json or a2a-go", jsonrpc, name, got)
			}
		}
	}
	for _, jsonrpc := range []bool{false, true} {
		wire := &countingAnswer{fixedAnswer: fixedAnswer{http.StatusOK, "application/json", []byte(wrapRPC(jsonrpc, wireTask))}}
		binding := a2a.TransportProtocolHTTPJSON
		if jsonrpc {
			binding = a2a.TransportProtocolJSONRPC
		}
		var seen http.Header
		var path string
		c := &Conn{Iface: &a2a.AgentInterface{URL: "http://agent.invalid/a2a", ProtocolBinding: binding, ProtocolVersion: a2a.Version},
			HC: &http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
				seen, path = r.Header, r.URL.Path
				return wire.RoundTrip(r)
			})},
			Params: map[string][]string{"X-Test": {"1"}}}
		req := &a2a.SendMessageRequest{Message: a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("ping")), Tenant: "t9"}
		ws, err := c.WireSend(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		for range 2 {
			if _, err := ws.Send(context.Background()); err != nil {
				t.Fatal(err)
			}
		}
		a, b := wire.bodies[0], wire.bodies[1]
		if a == b || strings.Contains(a, wireID) || !strings.Contains(a, `"t9"`) && jsonrpc {
			t.Errorf("jsonrpc=%v: bodies %s and %s: want a new id each, no placeholder, the tenant", jsonrpc, a, b)
		}
		wantPath := "/a2a/t9/message:send" // a2a-go's REST path, the tenant before the method
		if jsonrpc {
			wantPath = "/a2a"
		}
		if path != wantPath {
			t.Errorf("jsonrpc=%v: sent to %s, want %s", jsonrpc, path, wantPath)
		}
		if seen.Get("X-Test") != "1" || seen.Get(a2a.SvcParamVersion) != string(a2a.Version) || seen.Get("Content-Type") != "application/json" {
			t.Errorf("jsonrpc=%v: headers %v", jsonrpc, seen)
		}
	}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// contentError says a2a-go refused what a task or a message holds (a part, a field's type), which WireSend does not
// read.
func contentError(sdk string) bool {
	return strings.HasPrefix(sdk, "error transport: other: result violates A2A spec - could not determine type: ")
}

// FuzzWireAnswer: whatever a 200 answer holds, WireSend reads it as a2a-go does, but for what a task or a message
// holds beyond its state.
func FuzzWireAnswer(f *testing.F) {
	for _, body := range wireAnswers {
		f.Add([]byte(body), false)
		f.Add([]byte(rpc(body)), true)
	}
	f.Fuzz(func(t *testing.T, body []byte, jsonrpc bool) {
		ours, sdk := wireResults(t, fixedAnswer{http.StatusOK, "application/json", body}, jsonrpc)
		if ours != sdk && !(contentError(sdk) && !strings.HasPrefix(ours, "error")) {
			t.Fatalf("WireSend: %s\na2a-go:   %s", ours, sdk)
		}
	})
}

// BenchmarkWireSend sets WireSend beside the a2a-go client's SendMessage on the same connection to a local agent
// that answers every send with the same completed task (a history and an artifact, as an echo agent's): the CPU
// and the allocations a load generator spends per blocking send, on each v1.0 HTTP binding.
func BenchmarkWireSend(b *testing.B) {
	answer := strings.TrimSuffix(strings.TrimPrefix(wireTask, `{"task":`), `}`)
	for _, jsonrpc := range []bool{true, false} {
		binding, path := "HTTP+JSON", "/rest"
		if jsonrpc {
			binding, path = "JSONRPC", "/rpc"
		}
		mux := http.NewServeMux()
		mux.HandleFunc("GET /.well-known/agent-card.json", func(w http.ResponseWriter, r *http.Request) {
			fmt.Fprintf(w, `{"name":"b","description":"b","version":"1","capabilities":{},"defaultInputModes":["text/plain"],"defaultOutputModes":["text/plain"],"skills":[],"supportedInterfaces":[{"url":"http://%s%s","protocolBinding":%q,"protocolVersion":"1.0"}]}`, r.Host, path, binding)
		})
		mux.HandleFunc("POST /", func(w http.ResponseWriter, r *http.Request) {
			io.Copy(io.Discard, r.Body) //nolint:errcheck // the request is not read
			w.Header().Set("Content-Type", "application/json")
			if jsonrpc {
				fmt.Fprint(w, `{"jsonrpc":"2.0","id":"1","result":{"task":`+answer+`}}`)
				return
			}
			fmt.Fprint(w, `{"task":`+answer+`}`)
		})
		srv := httptest.NewServer(mux)
		b.Cleanup(srv.Close)
		c, err := NewDialer(&Options{Timeout: 5 * time.Second}, &Log{}, nil).Connect(context.Background(), srv.URL)
		if err != nil {
			b.Fatal(err)
		}
		req := &a2a.SendMessageRequest{Message: a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("ping"))}
		ws, err := c.WireSend(context.Background(), req)
		if err != nil || ws == nil {
			b.Fatalf("WireSend: %v, %v", ws, err)
		}
		b.Run(binding+"/wire", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if res, err := ws.Send(context.Background()); err != nil || res.State != a2a.TaskStateCompleted {
					b.Fatal(res, err)
				}
			}
		})
		b.Run(binding+"/a2a-go", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				m := *req.Message
				m.ID = a2a.NewMessageID()
				if _, err := c.SendMessage(context.Background(), &a2a.SendMessageRequest{Message: &m}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

package client

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2aclient"
)

// fixedAnswer answers every request with the same status, content type and body.
type fixedAnswer struct {
	status int
	ctype  string
	body   []byte
}

func (f fixedAnswer) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Body != nil {
		req.Body.Close() //nolint:errcheck // in memory
	}
	return &http.Response{
		StatusCode: f.status, Status: fmt.Sprintf("%d %s", f.status, http.StatusText(f.status)),
		Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header: http.Header{"Content-Type": {f.ctype}}, Body: io.NopCloser(bytes.NewReader(f.body)), Request: req,
	}, nil
}

// streamResult is one result of a stream: an event, or an error as its type and text.
type streamResult struct {
	Event   a2a.Event
	ErrType string
	Err     string
}

// sortedKeys puts the keys a2a-go lists in "unknown event type: [k1 k2]" and "unknown part content type: [k1 k2]"
// (a2a/core.go) in order: it prints them in a map's order, which differs from one call to the next, so two decodes
// of one body would not compare equal.
func sortedKeys(msg string) string {
	if !strings.HasSuffix(msg, "]") {
		return msg
	}
	for _, prefix := range []string{"unknown event type: [", "unknown part content type: ["} {
		i := strings.Index(msg, prefix)
		if i < 0 {
			continue
		}
		keys := strings.Split(msg[i+len(prefix):len(msg)-1], " ")
		slices.Sort(keys)
		return msg[:i+len(prefix)] + strings.Join(keys, " ") + "]"
	}
	return msg
}

func collect(t testing.TB, tr a2aclient.Transport, subscribe bool) []streamResult {
	t.Helper()
	ctx := context.Background()
	seq := tr.SendStreamingMessage(ctx, nil, &a2a.SendMessageRequest{Message: a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("go"))})
	if subscribe {
		seq = tr.SubscribeToTask(ctx, nil, &a2a.SubscribeToTaskRequest{ID: "t1"})
	}
	var out []streamResult
	for ev, err := range seq {
		r := streamResult{Event: ev}
		if err != nil {
			r.ErrType, r.Err = fmt.Sprintf("%T", err), sortedKeys(err.Error())
		}
		out = append(out, r)
		if len(out) > 10000 {
			t.Fatal("stream does not end")
		}
	}
	return out
}

// decodeBoth reads the same answer with a2a-go's transport and with ours.
func decodeBoth(t testing.TB, ans fixedAnswer, jsonrpc, subscribe bool) (ours, sdk []streamResult) {
	t.Helper()
	hc := &http.Client{Transport: ans}
	iface := &a2a.AgentInterface{URL: "http://agent.invalid/a2a"}
	fast, err := fastTransport(hc, jsonrpc).Create(context.Background(), nil, iface)
	if err != nil {
		t.Fatal(err)
	}
	u, _ := url.Parse(iface.URL)
	return collect(t, fast, subscribe), collect(t, newSDKTransport(u, hc, jsonrpc), subscribe)
}

func sse(payloads ...string) string {
	var b strings.Builder
	for i, p := range payloads {
		fmt.Fprintf(&b, "id: %d\ndata: %s\n\n", i, p)
	}
	return b.String()
}

func rpc(result string) string { return `{"jsonrpc":"2.0","id":"r1","result":` + result + `}` }

const hotEvent = `{"artifactUpdate":{"taskId":"t1","contextId":"c1","artifact":{"artifactId":"a1","parts":[{"text":"line one\n"}]},"append":true}}`

// streamFixtures are SSE bodies in the REST shape; the JSON-RPC test wraps every data payload in an envelope.
var streamFixtures = map[string][]string{
	"hot":             {hotEvent, `{"artifactUpdate":{"taskId":"t1","contextId":"c1","artifact":{"artifactId":"a1","name":"out","parts":[{"text":"x"},{"text":"y"}]},"append":true,"lastChunk":true}}`},
	"utf8":            {`{"artifactUpdate":{"taskId":"t1","contextId":"c1","artifact":{"artifactId":"a1","parts":[{"text":"héllo → 世界"}]}}}`},
	"escapes":         {`{"artifactUpdate":{"taskId":"t1","contextId":"c1","artifact":{"artifactId":"a1","parts":[{"text":"say \"hi\"\\\u00e9\t"}]}}}`},
	"surrogates":      {`{"artifactUpdate":{"taskId":"t1","contextId":"c1","artifact":{"artifactId":"a1","parts":[{"text":"\ud83d\ude00 \ud800 x"}]}}}`},
	"bad escapes":     {`{"artifactUpdate":{"taskId":"t1","contextId":"c1","artifact":{"artifactId":"a1","parts":[{"text":"\x \u12"}]}}}`},
	"html escapes":    {`{"artifactUpdate":{"taskId":"t1","contextId":"c1","artifact":{"artifactId":"a1","parts":[{"text":"\u003cb\u003e \u0026 \/ \b\f\r"}]}}}`},
	"invalid utf8":    {"{\"artifactUpdate\":{\"taskId\":\"t1\",\"contextId\":\"c1\",\"artifact\":{\"artifactId\":\"a1\",\"parts\":[{\"text\":\"a\xffb\"}]}}}"},
	"unknown fields":  {`{"artifactUpdate":{"taskId":"t1","contextId":"c1","kind":"artifact-update","artifact":{"artifactId":"a1","parts":[{"text":"x","kind":"text"}]}}}`},
	"metadata":        {`{"artifactUpdate":{"taskId":"t1","contextId":"c1","metadata":{"k":1},"artifact":{"artifactId":"a1","metadata":{"m":"v"},"parts":[{"text":"x","metadata":{"p":true}}]}}}`},
	"file data parts": {`{"artifactUpdate":{"taskId":"t1","contextId":"c1","artifact":{"artifactId":"a1","parts":[{"raw":"aGk=","mediaType":"text/plain","filename":"f.txt"},{"url":"http://x/y"},{"data":{"a":[1,2]}}]}}}`},
	"status and task": {
		`{"task":{"id":"t1","contextId":"c1","status":{"state":"TASK_STATE_WORKING"}}}`,
		`{"statusUpdate":{"taskId":"t1","contextId":"c1","status":{"state":"TASK_STATE_COMPLETED","timestamp":"2026-01-02T03:04:05Z"}}}`,
		`{"message":{"messageId":"m1","role":"ROLE_AGENT","parts":[{"text":"hi"}]}}`,
	},
	"empty parts":    {`{"artifactUpdate":{"taskId":"t1","contextId":"c1","artifact":{"artifactId":"a1","parts":[]}}}`},
	"null parts":     {`{"artifactUpdate":{"taskId":"t1","contextId":"c1","artifact":{"artifactId":"a1","parts":null}}}`},
	"no artifact":    {`{"artifactUpdate":{"taskId":"t1","contextId":"c1"}}`},
	"duplicate key":  {`{"artifactUpdate":{"taskId":"t1","taskId":"t2","contextId":"c1","artifact":{"artifactId":"a1","parts":[{"text":"x"}]}}}`},
	"key case":       {`{"ArtifactUpdate":{"TaskId":"t1","contextId":"c1","artifact":{"artifactId":"a1","parts":[{"Text":"x"}]}}}`},
	"two kinds":      {`{"artifactUpdate":{"taskId":"t1","contextId":"c1","artifact":{"artifactId":"a1","parts":[{"text":"x"}]}},"task":{"id":"t1"}}`},
	"bad json":       {hotEvent, `{"artifactUpdate":{"taskId":`, hotEvent},
	"trailing junk":  {hotEvent + `x`},
	"wrong types":    {`{"artifactUpdate":{"taskId":1,"contextId":"c1","artifact":{"artifactId":"a1","parts":[{"text":"x"}]},"append":"yes"}}`},
	"spaces":         {" { \"artifactUpdate\" : { \"taskId\" : \"t1\" , \"contextId\":\"c1\",\"artifact\":{\"artifactId\":\"a1\",\"parts\":[ {\"text\":\"x\"} ] } } } "},
	"error event":    {hotEvent, `{"error":{"code":404,"status":"NOT_FOUND","message":"task not found","details":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"TASK_NOT_FOUND","domain":"a2a-protocol.org"}]}}`},
	"null and empty": {`null`, `{}`, `[]`, `"s"`},
}

// rawFixtures are SSE framings, the same on both bindings (the payloads are REST-shaped, so JSON-RPC reads them
// as envelopes without a result: what a2a-go does with that, ours must do too).
var rawFixtures = map[string]string{
	"comments and event names": ": keep-alive\n\nevent: message\nretry: 10\ndata: " + hotEvent + "\n\n",
	"crlf":                     "id: 1\r\ndata: " + hotEvent + "\r\n\r\n",
	"multi-line data":          "data: {\"artifactUpdate\":\ndata: {\"taskId\":\"t1\",\"contextId\":\"c1\",\ndata: \"artifact\":{\"artifactId\":\"a1\",\"parts\":[{\"text\":\"x\"}]}}}\n\n",
	"no space after colon":     "data:" + hotEvent + "\n\n",
	"empty data lines":         "data:\ndata: " + hotEvent + "\ndata:\n\n",
	"no final blank line":      "data: " + hotEvent,
	"blank lines only":         "\n\n\n",
	"empty body":               "",
	"data with tab":            "data:\t" + hotEvent + "\n\n",
}

func TestFastStreamDifferential(t *testing.T) {
	for _, jsonrpc := range []bool{false, true} {
		bodies := map[string]string{}
		for name, payloads := range streamFixtures {
			if jsonrpc {
				wrapped := make([]string, len(payloads))
				for i, p := range payloads {
					wrapped[i] = rpc(p)
					if strings.HasPrefix(p, `{"error"`) {
						wrapped[i] = `{"jsonrpc":"2.0","id":"r1","error":{"code":-32001,"message":"task not found","data":[{"k":"v"}]}}`
					}
				}
				payloads = wrapped
			}
			bodies[name] = sse(payloads...)
		}
		for name, raw := range rawFixtures {
			bodies["raw "+name] = raw
			if jsonrpc {
				bodies["raw "+name] = strings.ReplaceAll(raw, hotEvent, rpc(hotEvent))
			}
		}
		if jsonrpc {
			bodies["numeric id"] = sse(`{"jsonrpc":"2.0","id":7,"result":` + hotEvent + `}`)
			bodies["no result"] = sse(`{"jsonrpc":"2.0","id":"r1"}`)
		}
		for name, body := range bodies {
			for _, subscribe := range []bool{false, true} {
				t.Run(fmt.Sprintf("jsonrpc=%v/subscribe=%v/%s", jsonrpc, subscribe, name), func(t *testing.T) {
					ours, sdk := decodeBoth(t, fixedAnswer{http.StatusOK, "text/event-stream", []byte(body)}, jsonrpc, subscribe)
					if !reflect.DeepEqual(ours, sdk) {
						t.Fatalf("ours:\n%s\na2a-go:\n%s", dump(ours), dump(sdk))
					}
				})
			}
		}
	}
}

// TestFastStreamHotPath checks the fast path really decodes the hot shape (else the differential test proves
// nothing about it) and leaves the rest to a2a-go.
func TestFastStreamHotPath(t *testing.T) {
	for _, jsonrpc := range []bool{false, true} {
		hot := hotEvent
		if jsonrpc {
			hot = rpc(hotEvent)
		}
		ev, ok := decodeFast([]byte(hot), jsonrpc)
		if !ok {
			t.Fatalf("jsonrpc=%v: hot shape not decoded fast", jsonrpc)
		}
		want := &a2a.TaskArtifactUpdateEvent{TaskID: "t1", ContextID: "c1", Append: true,
			Artifact: &a2a.Artifact{ID: "a1", Parts: a2a.ContentParts{a2a.NewTextPart("line one\n")}}}
		if !reflect.DeepEqual(ev, a2a.Event(want)) {
			t.Fatalf("jsonrpc=%v: got %#v", jsonrpc, ev)
		}
		for _, name := range []string{"surrogates", "metadata", "unknown fields", "key case", "duplicate key", "status and task"} {
			p := streamFixtures[name][0]
			if jsonrpc {
				p = rpc(p)
			}
			if _, ok := decodeFast([]byte(p), jsonrpc); ok {
				t.Errorf("jsonrpc=%v: %s decoded fast: it must go to a2a-go", jsonrpc, name)
			}
		}
	}
}

// TestFastStreamErrorAnswers checks answers other than a stream give a2a-go's own errors.
func TestFastStreamErrorAnswers(t *testing.T) {
	answers := map[string]fixedAnswer{
		"rest error":   {http.StatusNotFound, "application/json", []byte(`{"error":{"code":404,"status":"NOT_FOUND","message":"no such task"}}`)},
		"html error":   {http.StatusBadGateway, "text/html", []byte(`<html>bad gateway</html>`)},
		"server error": {http.StatusInternalServerError, "text/plain", []byte("boom")},
	}
	for _, jsonrpc := range []bool{false, true} {
		for name, ans := range answers {
			t.Run(fmt.Sprintf("jsonrpc=%v/%s", jsonrpc, name), func(t *testing.T) {
				ours, sdk := decodeBoth(t, ans, jsonrpc, false)
				if len(sdk) != 1 || sdk[0].Err == "" {
					t.Fatalf("a2a-go gave %s, want one error", dump(sdk))
				}
				if !reflect.DeepEqual(ours, sdk) {
					t.Fatalf("ours:\n%s\na2a-go:\n%s", dump(ours), dump(sdk))
				}
			})
		}
	}
}

func FuzzStreamDecode(f *testing.F) {
	for _, payloads := range streamFixtures {
		f.Add([]byte(sse(payloads...)), false)
		wrapped := make([]string, len(payloads))
		for i, p := range payloads {
			wrapped[i] = rpc(p)
		}
		f.Add([]byte(sse(wrapped...)), true)
	}
	for _, raw := range rawFixtures {
		f.Add([]byte(raw), false)
		f.Add([]byte(strings.ReplaceAll(raw, hotEvent, rpc(hotEvent))), true)
	}
	f.Add([]byte("data: {\"jsonrpc\":\"2.0\",\"id\":1,\"error\":{\"code\":-32603,\"message\":\"boom\",\"data\":{\"stack\":\"s\"}}}\n\n"), true)
	f.Fuzz(func(t *testing.T, body []byte, jsonrpc bool) {
		ours, sdk := decodeBoth(t, fixedAnswer{http.StatusOK, "text/event-stream", body}, jsonrpc, false)
		ours, sdk = withoutDataErrors(ours, sdk)
		if !reflect.DeepEqual(ours, sdk) {
			t.Fatalf("ours:\n%s\na2a-go:\n%s", dump(ours), dump(sdk))
		}
	})
}

// withoutDataErrors drops the one deliberate difference from a2a-go: a JSON-RPC error event whose data a2a-go cannot
// read is our DataError (the agent's code, message and data) where a2a-go fails to decode it. Both end the stream.
func withoutDataErrors(ours, sdk []streamResult) ([]streamResult, []streamResult) {
	n := len(ours)
	if n == 0 || len(sdk) != n || ours[n-1].ErrType != "*client.DataError" || sdk[n-1].Err == "" {
		return ours, sdk
	}
	return ours[:n-1], sdk[:n-1]
}

// TestFastStreamErrorData: a JSON-RPC error event whose data is not an array is the agent's error with its data.
func TestFastStreamErrorData(t *testing.T) {
	body := "data: " + `{"jsonrpc":"2.0","id":1,"error":{"code":-32001,"message":"gone","data":{"stack":"at x"}}}` + "\n\n"
	ours, sdk := decodeBoth(t, fixedAnswer{http.StatusOK, "text/event-stream", []byte(body)}, true, false)
	if len(ours) != 1 || ours[0].ErrType != "*client.DataError" || ours[0].Err != "gone" {
		t.Fatalf("ours: %s, want the DataError \"gone\"", dump(ours))
	}
	if len(sdk) != 1 || sdk[0].Err == "" {
		t.Fatalf("a2a-go: %s, want its decoding error", dump(sdk))
	}
}

func dump(rs []streamResult) string {
	var b strings.Builder
	for _, r := range rs {
		fmt.Fprintf(&b, "  %#v %s %s\n", r.Event, r.ErrType, r.Err)
	}
	return b.String()
}

// BenchmarkStreamDecode reads a stream of 1000 events of one shape with ours and with a2a-go's transport: the hot
// shape (a text chunk, decoded here) and a status update (decoded by a2a-go on the one event, the fallback's cost).
func BenchmarkStreamDecode(b *testing.B) {
	shapes := map[string]string{
		"chunk":  `{"artifactUpdate":{"taskId":"t1","contextId":"c1","artifact":{"artifactId":"a1","parts":[{"text":"` + strings.Repeat("x", 1023) + `\n"}]},"append":true}}`,
		"status": `{"statusUpdate":{"taskId":"t1","contextId":"c1","status":{"state":"TASK_STATE_WORKING","timestamp":"2026-01-02T03:04:05Z"}}}`,
	}
	for name, p := range shapes {
		payloads := make([]string, 1000)
		for i := range payloads {
			payloads[i] = p
		}
		ans := fixedAnswer{http.StatusOK, "text/event-stream", []byte(sse(payloads...))}
		hc := &http.Client{Transport: ans}
		iface := &a2a.AgentInterface{URL: "http://agent.invalid/a2a"}
		fast, err := fastTransport(hc, false).Create(context.Background(), nil, iface)
		if err != nil {
			b.Fatal(err)
		}
		u, _ := url.Parse(iface.URL)
		for _, tr := range []struct {
			name string
			t    a2aclient.Transport
		}{{"ours", fast}, {"a2a-go", newSDKTransport(u, hc, false)}} {
			b.Run(name+"/"+tr.name, func(b *testing.B) {
				b.SetBytes(int64(len(ans.body)))
				for b.Loop() {
					if n := len(collect(b, tr.t, false)); n != 1000 {
						b.Fatalf("%d events", n)
					}
				}
			})
		}
	}
}

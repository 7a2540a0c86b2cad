package serve

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/a2acli/a2a/internal/serve/servetest"
	"github.com/a2aproject/a2a-go/v2/a2a"
	a2apb "github.com/a2aproject/a2a-go/v2/a2apb/v1"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
)

// These tests speak raw HTTP (net/http, as curl or Python's httpx would) and raw gRPC (the generated stubs), so
// they see the bytes on the wire rather than what a2a-go's client makes of them.

// rawPost posts body to url with the given headers and returns the status, content type and body.
func rawPost(t *testing.T, url, body string, hdr map[string]string) (int, string, []byte) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	return do(t, req)
}

func do(t *testing.T, req *http.Request) (int, string, []byte) {
	t.Helper()
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", req.Method, req.URL, err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return res.StatusCode, res.Header.Get("Content-Type"), b
}

// rpcReply is a JSON-RPC error answer.
type rpcReply struct {
	ID     any             `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
		Data    []struct {
			Type   string `json:"@type"`
			Reason string `json:"reason"`
			Domain string `json:"domain"`
		} `json:"data"`
	} `json:"error"`
}

// wantRPCError checks a JSON-RPC error answer: HTTP 200, application/json (not an event stream), the code, and the
// google.rpc.ErrorInfo with the reason in its data.
func wantRPCError(t *testing.T, what string, status int, ct string, body []byte, code int, reason string) rpcReply {
	t.Helper()
	var r rpcReply
	if status != http.StatusOK || !strings.HasPrefix(ct, "application/json") || json.Unmarshal(body, &r) != nil || r.Error == nil {
		t.Fatalf("%s: HTTP %d %q %s, want 200 application/json with a JSON-RPC error", what, status, ct, body)
	}
	if r.Error.Code != code {
		t.Errorf("%s: code %d, want %d (%s)", what, r.Error.Code, code, body)
	}
	if len(r.Error.Data) == 0 || r.Error.Data[0].Type != "type.googleapis.com/google.rpc.ErrorInfo" ||
		r.Error.Data[0].Reason != reason || r.Error.Data[0].Domain != a2a.ProtocolDomain {
		t.Errorf("%s: data %s, want an ErrorInfo with reason %s", what, body, reason)
	}
	return r
}

// wantRESTError checks an AIP-193 error answer.
func wantRESTError(t *testing.T, what string, status int, ct string, body []byte, wantStatus int, reason string) {
	t.Helper()
	var r struct {
		Error struct {
			Code    int    `json:"code"`
			Status  string `json:"status"`
			Details []struct {
				Type   string `json:"@type"`
				Reason string `json:"reason"`
			} `json:"details"`
		} `json:"error"`
	}
	if status != wantStatus || !strings.HasPrefix(ct, "application/json") || json.Unmarshal(body, &r) != nil {
		t.Fatalf("%s: HTTP %d %q %s, want %d application/json", what, status, ct, body, wantStatus)
	}
	if r.Error.Code != wantStatus || len(r.Error.Details) == 0 || r.Error.Details[0].Reason != reason {
		t.Errorf("%s: %s, want code %d and an ErrorInfo with reason %s", what, body, wantStatus, reason)
	}
}

// wantGRPCError checks a gRPC status code and the ErrorInfo reason in its details.
func wantGRPCError(t *testing.T, what string, err error, code codes.Code, reason string) {
	t.Helper()
	st, ok := status.FromError(err)
	if !ok || st.Code() != code {
		t.Fatalf("%s: %v, want status %s", what, err, code)
	}
	for _, d := range st.Details() {
		if info, ok := d.(*errdetails.ErrorInfo); ok && info.GetReason() == reason {
			return
		}
	}
	t.Errorf("%s: details %v, want an ErrorInfo with reason %s", what, st.Details(), reason)
}

func grpcStub(t *testing.T, srvURL string) a2apb.A2AServiceClient {
	t.Helper()
	cc, err := grpc.NewClient(strings.TrimPrefix(srvURL, "http://"), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cc.Close() })
	return a2apb.NewA2AServiceClient(cc)
}

const jsonCT = "application/json"

// completedTask sends one message to the echo server and returns the completed task's id.
func completedTask(t *testing.T, srvURL string) string {
	t.Helper()
	st, ct, body := rawPost(t, srvURL+"/message:send", `{"message":{"role":"ROLE_USER","messageId":"m1","parts":[{"text":"hi"}]}}`,
		map[string]string{"Content-Type": jsonCT})
	var r struct {
		Task struct {
			ID     string `json:"id"`
			Status struct {
				State string `json:"state"`
			} `json:"status"`
		} `json:"task"`
	}
	if st != http.StatusOK || json.Unmarshal(body, &r) != nil || r.Task.Status.State != "TASK_STATE_COMPLETED" {
		t.Fatalf("send: HTTP %d %q %s, want a completed task", st, ct, body)
	}
	return r.Task.ID
}

func TestJSONRPCTrailingSlash(t *testing.T) {
	t.Parallel()
	srv := startServer(t, Config{Quiet: true, Transports: servetest.AllTransports})
	for _, path := range []string{"/jsonrpc", "/jsonrpc/"} {
		st, ct, body := rawPost(t, srv.URL+path, `{"jsonrpc":"2.0","id":7,"method":"SendMessage","params":{"message":{"role":"ROLE_USER","messageId":"m","parts":[{"text":"slash"}]}}}`,
			map[string]string{"Content-Type": jsonCT})
		var r rpcReply
		if st != http.StatusOK || json.Unmarshal(body, &r) != nil || r.Error != nil || !strings.Contains(string(r.Result), "slash") {
			t.Errorf("POST %s: HTTP %d %q %s, want the echo task", path, st, ct, body)
		}
	}
}

func TestAgentCardCaching(t *testing.T) {
	t.Parallel()
	srv := startServer(t, Config{Quiet: true, Transports: servetest.AllTransports, CardCompat: true})
	for _, path := range []string{"/.well-known/agent-card.json", legacyCardPath} {
		get := func(hdr map[string]string) (*http.Response, []byte) {
			req, _ := http.NewRequest(http.MethodGet, srv.URL+path, nil)
			for k, v := range hdr {
				req.Header.Set(k, v)
			}
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer res.Body.Close()
			b, _ := io.ReadAll(res.Body)
			return res, b
		}
		res, body := get(nil)
		etag, lm, cc := res.Header.Get("ETag"), res.Header.Get("Last-Modified"), res.Header.Get("Cache-Control")
		if res.StatusCode != http.StatusOK || !json.Valid(body) {
			t.Fatalf("GET %s: HTTP %d %s", path, res.StatusCode, body)
		}
		if !strings.Contains(cc, "max-age=") || !strings.HasPrefix(etag, `"`) || len(etag) < 10 {
			t.Errorf("GET %s: Cache-Control %q, ETag %q; want max-age and a quoted ETag", path, cc, etag)
		}
		modified, err := http.ParseTime(lm)
		if err != nil || time.Since(modified) > time.Minute || time.Until(modified) > time.Second {
			t.Errorf("GET %s: Last-Modified %q (%v), want about now", path, lm, err)
		}
		again, _ := get(nil)
		if again.Header.Get("ETag") != etag || again.Header.Get("Last-Modified") != lm {
			t.Errorf("GET %s again: ETag %q Last-Modified %q, want the same as before (%q, %q)", path,
				again.Header.Get("ETag"), again.Header.Get("Last-Modified"), etag, lm)
		}
		for _, c := range []struct {
			hdr  map[string]string
			want int
		}{
			{map[string]string{"If-None-Match": etag}, http.StatusNotModified},
			{map[string]string{"If-None-Match": `"other", ` + etag}, http.StatusNotModified},
			{map[string]string{"If-None-Match": "W/" + etag}, http.StatusNotModified},
			{map[string]string{"If-None-Match": `"stale"`}, http.StatusOK},
			{map[string]string{"If-Modified-Since": lm}, http.StatusNotModified},
			{map[string]string{"If-Modified-Since": modified.Add(-time.Hour).UTC().Format(http.TimeFormat)}, http.StatusOK},
			// If-None-Match wins over If-Modified-Since (RFC 9110, 13.1.3).
			{map[string]string{"If-None-Match": `"stale"`, "If-Modified-Since": lm}, http.StatusOK},
		} {
			res, b := get(c.hdr)
			if res.StatusCode != c.want {
				t.Errorf("GET %s %v: HTTP %d, want %d", path, c.hdr, res.StatusCode, c.want)
			}
			if c.want == http.StatusNotModified && (len(b) != 0 || res.Header.Get("ETag") != etag) {
				t.Errorf("GET %s %v: 304 with body %q, ETag %q", path, c.hdr, b, res.Header.Get("ETag"))
			}
			if c.want == http.StatusOK && !json.Valid(b) {
				t.Errorf("GET %s %v: body %q, want the card", path, c.hdr, b)
			}
		}
	}
}

func TestVersionNotSupported(t *testing.T) {
	t.Parallel()
	srv := startServer(t, Config{Quiet: true, Transports: servetest.AllTransports})
	send := `{"message":{"role":"ROLE_USER","messageId":"m","parts":[{"text":"v"}]}}`
	rpcSend := `{"jsonrpc":"2.0","id":"req-9","method":"SendMessage","params":` + send + `}`
	for _, v := range []string{"99.0", "0.3", "2"} {
		hdr := map[string]string{"Content-Type": jsonCT, "A2A-Version": v}
		st, ct, body := rawPost(t, srv.URL+"/message:send", send, hdr)
		wantRESTError(t, "REST A2A-Version "+v, st, ct, body, http.StatusBadRequest, "VERSION_NOT_SUPPORTED")
		st, ct, body = rawPost(t, srv.URL+"/jsonrpc", rpcSend, hdr)
		if r := wantRPCError(t, "JSON-RPC A2A-Version "+v, st, ct, body, -32009, "VERSION_NOT_SUPPORTED"); r.ID != "req-9" {
			t.Errorf("JSON-RPC A2A-Version %s: id %v, want the request's", v, r.ID)
		}
		ctx := metadata.AppendToOutgoingContext(context.Background(), "a2a-version", v)
		_, err := grpcStub(t, srv.URL).SendMessage(ctx, &a2apb.SendMessageRequest{Message: &a2apb.Message{
			MessageId: "m", Role: a2apb.Role_ROLE_USER, Parts: []*a2apb.Part{{Content: &a2apb.Part_Text{Text: "v"}}}}})
		wantGRPCError(t, "gRPC A2A-Version "+v, err, codes.Unimplemented, "VERSION_NOT_SUPPORTED")
	}
	// The query parameter counts like the header.
	st, ct, body := rawPost(t, srv.URL+"/message:send?A2A-Version=99.0", send, map[string]string{"Content-Type": jsonCT})
	wantRESTError(t, "REST ?A2A-Version=99.0", st, ct, body, http.StatusBadRequest, "VERSION_NOT_SUPPORTED")
	// What the server speaks, and no version at all, are served.
	for _, v := range []string{"1.0", "1", "1.0.0", ""} {
		hdr := map[string]string{"Content-Type": jsonCT, "A2A-Version": v}
		if st, _, body := rawPost(t, srv.URL+"/message:send", send, hdr); st != http.StatusOK {
			t.Errorf("REST A2A-Version %q: HTTP %d %s, want 200", v, st, body)
		}
		if st, _, body := rawPost(t, srv.URL+"/jsonrpc", rpcSend, hdr); st != http.StatusOK || strings.Contains(string(body), `"error"`) {
			t.Errorf("JSON-RPC A2A-Version %q: HTTP %d %s, want a result", v, st, body)
		}
	}
}

// TestVersionPerInterface: with --card-compat the v0.3 interfaces take 0.3 and the v1.0 ones 1.0.
func TestVersionPerInterface(t *testing.T) {
	t.Parallel()
	srv := startServer(t, Config{Quiet: true, Transports: servetest.AllTransports, CardCompat: true})
	v03 := `{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":{"id":"nope"}}`
	st, ct, body := rawPost(t, srv.URL+"/", v03, map[string]string{"Content-Type": jsonCT, "A2A-Version": "0.3"})
	wantRPCError(t, "v0.3 JSON-RPC, A2A-Version 0.3", st, ct, body, -32001, "TASK_NOT_FOUND")
	st, ct, body = rawPost(t, srv.URL+"/", v03, map[string]string{"Content-Type": jsonCT, "A2A-Version": "1.0"})
	wantRPCError(t, "v0.3 JSON-RPC, A2A-Version 1.0", st, ct, body, -32009, "VERSION_NOT_SUPPORTED")
	v1 := `{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"id":"nope"}}`
	st, ct, body = rawPost(t, srv.URL+"/jsonrpc", v1, map[string]string{"Content-Type": jsonCT, "A2A-Version": "0.3"})
	wantRPCError(t, "v1.0 JSON-RPC, A2A-Version 0.3", st, ct, body, -32009, "VERSION_NOT_SUPPORTED")
	req, _ := http.NewRequest(http.MethodGet, srv.URL+"/v1/tasks/nope", nil)
	req.Header.Set("A2A-Version", "1.0")
	st, ct, body = do(t, req)
	wantRESTError(t, "v0.3 REST, A2A-Version 1.0", st, ct, body, http.StatusBadRequest, "VERSION_NOT_SUPPORTED")
}

func TestTerminalTaskRefused(t *testing.T) {
	t.Parallel()
	srv := startServer(t, Config{Quiet: true, Transports: servetest.AllTransports})
	id := completedTask(t, srv.URL)
	follow := `{"message":{"role":"ROLE_USER","messageId":"m2","taskId":"` + id + `","parts":[{"text":"more"}]}}`
	hdr := map[string]string{"Content-Type": jsonCT}

	st, ct, body := rawPost(t, srv.URL+"/message:send", follow, hdr)
	wantRESTError(t, "REST SendMessage", st, ct, body, http.StatusBadRequest, "UNSUPPORTED_OPERATION")
	st, ct, body = rawPost(t, srv.URL+"/message:stream", follow, hdr)
	wantRESTError(t, "REST SendStreamingMessage", st, ct, body, http.StatusBadRequest, "UNSUPPORTED_OPERATION")
	st, ct, body = rawPost(t, srv.URL+"/tasks/"+id+":subscribe", "", nil)
	wantRESTError(t, "REST SubscribeToTask", st, ct, body, http.StatusBadRequest, "UNSUPPORTED_OPERATION")

	for _, m := range []string{"SendMessage", "SendStreamingMessage"} {
		st, ct, body = rawPost(t, srv.URL+"/jsonrpc", `{"jsonrpc":"2.0","id":1,"method":"`+m+`","params":`+follow+`}`, hdr)
		wantRPCError(t, "JSON-RPC "+m, st, ct, body, -32004, "UNSUPPORTED_OPERATION")
	}
	st, ct, body = rawPost(t, srv.URL+"/jsonrpc", `{"jsonrpc":"2.0","id":1,"method":"SubscribeToTask","params":{"id":"`+id+`"}}`, hdr)
	wantRPCError(t, "JSON-RPC SubscribeToTask", st, ct, body, -32004, "UNSUPPORTED_OPERATION")

	stub := grpcStub(t, srv.URL)
	ctx := context.Background()
	_, err := stub.SendMessage(ctx, &a2apb.SendMessageRequest{Message: &a2apb.Message{MessageId: "m3", TaskId: id,
		Role: a2apb.Role_ROLE_USER, Parts: []*a2apb.Part{{Content: &a2apb.Part_Text{Text: "more"}}}}})
	wantGRPCError(t, "gRPC SendMessage", err, codes.Unimplemented, "UNSUPPORTED_OPERATION")
	sub, err := stub.SubscribeToTask(ctx, &a2apb.SubscribeToTaskRequest{Id: id})
	if err == nil {
		_, err = sub.Recv()
	}
	wantGRPCError(t, "gRPC SubscribeToTask", err, codes.Unimplemented, "UNSUPPORTED_OPERATION")

	// An unknown task is still TaskNotFoundError, also on a stream.
	st, ct, body = rawPost(t, srv.URL+"/tasks/nope:subscribe", "", nil)
	wantRESTError(t, "REST SubscribeToTask unknown", st, ct, body, http.StatusNotFound, "TASK_NOT_FOUND")
}

// TestPushRawBindings: the push-config methods on the wire of every binding: a host outside the
// allow-list is InvalidParams in each binding's form, a loopback webhook is stored, and the v1.0
// JSON-RPC params are read under their proto names too (task_id, as the TCK sends them).
func TestPushRawBindings(t *testing.T) {
	t.Parallel()
	srv := startServer(t, Config{Quiet: true, Transports: servetest.AllTransports})
	id := completedTask(t, srv.URL)
	hdr := map[string]string{"Content-Type": jsonCT}
	st, ct, body := rawPost(t, srv.URL+"/tasks/"+id+"/pushNotificationConfigs", `{"url":"https://example.com/hook"}`, hdr)
	wantRESTError(t, "REST CreateTaskPushConfig", st, ct, body, http.StatusBadRequest, "INVALID_PARAMS")
	st, ct, body = rawPost(t, srv.URL+"/jsonrpc", `{"jsonrpc":"2.0","id":1,"method":"CreateTaskPushNotificationConfig","params":{"taskId":"`+id+`","url":"https://example.com/hook"}}`, hdr)
	wantRPCError(t, "JSON-RPC CreateTaskPushNotificationConfig", st, ct, body, -32602, "INVALID_PARAMS")
	stub := grpcStub(t, srv.URL)
	_, err := stub.CreateTaskPushNotificationConfig(context.Background(), &a2apb.TaskPushNotificationConfig{TaskId: id, Url: "https://example.com/hook"})
	wantGRPCError(t, "gRPC CreateTaskPushNotificationConfig", err, codes.InvalidArgument, "INVALID_PARAMS")

	st, _, body = rawPost(t, srv.URL+"/jsonrpc", `{"jsonrpc":"2.0","id":2,"method":"CreateTaskPushNotificationConfig","params":{"task_id":"`+id+`","id":"c1","url":"http://127.0.0.1:9/hook"}}`, hdr)
	if st != http.StatusOK || !strings.Contains(string(body), `"id":"c1"`) || strings.Contains(string(body), `"error"`) {
		t.Errorf("JSON-RPC create with task_id: %d %s", st, body)
	}
	resp, err := stub.ListTaskPushNotificationConfigs(context.Background(), &a2apb.ListTaskPushNotificationConfigsRequest{TaskId: id})
	if err != nil || len(resp.GetConfigs()) != 1 || resp.GetConfigs()[0].GetId() != "c1" {
		t.Errorf("gRPC ListTaskPushNotificationConfigs = %v, %v; want the one config c1", resp, err)
	}
	// Other errors keep their codes: a task that cannot be canceled is FAILED_PRECONDITION.
	_, err = stub.CancelTask(context.Background(), &a2apb.CancelTaskRequest{Id: id})
	wantGRPCError(t, "gRPC CancelTask", err, codes.FailedPrecondition, "TASK_NOT_CANCELABLE")
}

// TestV03CardURLs: a v0.3 card names its HTTP interfaces with absolute http URLs and gRPC with the host:port the
// SDKs' gRPC clients hand their library as its target (a2a-js 0.3: "Name resolution failed for target
// dns:http://…" on a URL).
func TestV03CardURLs(t *testing.T) {
	t.Parallel()
	for _, compat := range []bool{false, true} {
		srv := startServer(t, Config{Quiet: true, Transports: servetest.AllTransports, Protocol: "0.3", CardCompat: compat})
		hostport := strings.TrimPrefix(srv.URL, "http://")
		st, _, body := do(t, mustRequest(t, http.MethodGet, srv.URL+"/.well-known/agent-card.json"))
		type iface struct {
			URL       string `json:"url"`
			Transport string `json:"transport"`
		}
		var card struct {
			URL                  string  `json:"url"`
			PreferredTransport   string  `json:"preferredTransport"`
			AdditionalInterfaces []iface `json:"additionalInterfaces"`
			SupportedInterfaces  []struct {
				URL     string `json:"url"`
				Binding string `json:"protocolBinding"`
			} `json:"supportedInterfaces"`
		}
		if st != http.StatusOK || json.Unmarshal(body, &card) != nil {
			t.Fatalf("card: HTTP %d %s", st, body)
		}
		all := append([]iface{{card.URL, card.PreferredTransport}}, card.AdditionalInterfaces...)
		for _, i := range card.SupportedInterfaces {
			all = append(all, iface{i.URL, i.Binding})
		}
		if len(all) < 4 {
			t.Errorf("compat=%v: card %s, want an interface per transport", compat, body)
		}
		grpcs := 0
		for _, i := range all {
			if i.Transport == string(a2a.TransportProtocolGRPC) {
				grpcs++
				if i.URL != hostport {
					t.Errorf("compat=%v: gRPC interface at %q, want the target %q (card %s)", compat, i.URL, hostport, body)
				}
				continue
			}
			if p, err := url.Parse(i.URL); err != nil || p.Scheme != "http" || p.Host != hostport {
				t.Errorf("compat=%v: %s interface URL %q is not an absolute http URL (card %s)", compat, i.Transport, i.URL, body)
			}
		}
		if grpcs < 2 {
			t.Errorf("compat=%v: gRPC is listed %d times, want in additionalInterfaces and supportedInterfaces (card %s)", compat, grpcs, body)
		}
	}
}

func mustRequest(t *testing.T, method, u string) *http.Request {
	t.Helper()
	req, err := http.NewRequest(method, u, nil)
	if err != nil {
		t.Fatal(err)
	}
	return req
}

// TestV03RESTProtoNames: the v0.3 REST binding is ProtoJSON, so a body may use the proto field names (task_id) as
// well as the JSON names (taskId); free-form metadata keeps its keys as sent.
func TestV03RESTProtoNames(t *testing.T) {
	t.Parallel()
	srv := startServer(t, Config{Quiet: true, Protocol: "0.3"})
	hdr := map[string]string{"Content-Type": jsonCT}
	var first struct {
		Task struct {
			ID        string `json:"id"`
			ContextID string `json:"contextId"`
		} `json:"task"`
	}
	st, _, body := rawPost(t, srv.URL+"/v1/message:send", `{"message":{"message_id":"a","role":"ROLE_USER","content":[{"text":"x"}]}}`, hdr)
	if st != http.StatusOK || json.Unmarshal(body, &first) != nil || first.Task.ID == "" {
		t.Fatalf("send: HTTP %d %s", st, body)
	}
	st, _, body = rawPost(t, srv.URL+"/v1/message:send", `{"message":{"message_id":"b","task_id":"`+first.Task.ID+
		`","context_id":"`+first.Task.ContextID+`","role":"ROLE_USER","content":[{"text":"y"}],"metadata":{"a_b":1}}}`, hdr)
	var second struct {
		Task struct {
			ID      string `json:"id"`
			History []struct {
				MessageID string         `json:"messageId"`
				Metadata  map[string]any `json:"metadata"`
			} `json:"history"`
		} `json:"task"`
	}
	if st != http.StatusOK || json.Unmarshal(body, &second) != nil {
		t.Fatalf("follow-up: HTTP %d %s", st, body)
	}
	h := second.Task.History
	if second.Task.ID != first.Task.ID || len(h) == 0 || h[len(h)-1].MessageID != "b" || h[len(h)-1].Metadata["a_b"] == nil {
		t.Errorf("follow-up with task_id: %s, want task %s continued with message b and metadata a_b", body, first.Task.ID)
	}
}

// TestV03RESTProtoQuery: query parameters may use the proto field names too (history_length).
func TestV03RESTProtoQuery(t *testing.T) {
	t.Parallel()
	srv := startServer(t, Config{Quiet: true, Protocol: "0.3"})
	id := ""
	for i, text := range []string{"one", "two", "three"} {
		msg := `{"message":{"messageId":"m` + strconv.Itoa(i) + `","role":"ROLE_USER","content":[{"text":"` + text + `"}]`
		if id != "" {
			msg += `,"taskId":"` + id + `"`
		}
		st, _, body := rawPost(t, srv.URL+"/v1/message:send", msg+`}}`, map[string]string{"Content-Type": jsonCT})
		var r struct {
			Task struct{ ID string } `json:"task"`
		}
		if st != http.StatusOK || json.Unmarshal(body, &r) != nil {
			t.Fatalf("send %s: HTTP %d %s", text, st, body)
		}
		id = r.Task.ID
	}
	for _, q := range []string{"historyLength=1", "history_length=1"} {
		st, _, body := do(t, mustRequest(t, http.MethodGet, srv.URL+"/v1/tasks/"+id+"?"+q))
		var task struct {
			History []json.RawMessage `json:"history"`
		}
		if st != http.StatusOK || json.Unmarshal(body, &task) != nil || len(task.History) != 1 {
			t.Errorf("GET ?%s: HTTP %d, %d history entries, want 1: %s", q, st, len(task.History), body)
		}
	}
}

// TestTaskNotCancelable: canceling a task that ended answers the mapping table's TaskNotCancelableError on each
// binding (HTTP 409 Conflict, where a2a-go writes 400).
func TestTaskNotCancelable(t *testing.T) {
	t.Parallel()
	srv := startServer(t, Config{Quiet: true, Transports: servetest.AllTransports})
	id := completedTask(t, srv.URL)
	st, ct, body := rawPost(t, srv.URL+"/tasks/"+id+":cancel", "", nil)
	wantRESTError(t, "REST CancelTask", st, ct, body, http.StatusConflict, "TASK_NOT_CANCELABLE")
	st, ct, body = rawPost(t, srv.URL+"/jsonrpc", `{"jsonrpc":"2.0","id":1,"method":"CancelTask","params":{"id":"`+id+`"}}`,
		map[string]string{"Content-Type": jsonCT})
	wantRPCError(t, "JSON-RPC CancelTask", st, ct, body, -32002, "TASK_NOT_CANCELABLE")
	// a2a-go's client reads the 409 as the same error.
	c := servetest.NewClient(t, srv.URL, a2a.TransportProtocolHTTPJSON)
	if _, err := c.CancelTask(context.Background(), &a2a.CancelTaskRequest{ID: a2a.TaskID(id)}); !servetest.ErrorIs(err, a2a.ErrTaskNotCancelable) {
		t.Errorf("a2a-go CancelTask = %v, want TaskNotCancelableError", err)
	}
}

// TestV1ProtoNames: the v1.0 JSON-RPC and REST bodies are ProtoJSON, whose parsers accept a field's proto name
// (history_length, message_id) as well as its JSON name (historyLength), as a2a-js 1.x's and a2a-python's servers do:
// the v1.0 TCK's JSON-RPC client sends GetTask's history_length. REST queries take both names too. A name already
// given in camelCase wins, and metadata keeps its keys as sent.
func TestV1ProtoNames(t *testing.T) {
	t.Parallel()
	srv := startServer(t, Config{Quiet: true, Transports: servetest.AllTransports})
	hdr := map[string]string{"Content-Type": jsonCT}
	st, _, body := rawPost(t, srv.URL+"/message:send", `{"message":{"message_id":"m-proto","context_id":"c-proto","role":"ROLE_USER","parts":[{"text":"hi"}],"metadata":{"a_b":1}}}`, hdr)
	var sent struct {
		Task struct {
			ID        string `json:"id"`
			ContextID string `json:"contextId"`
			History   []struct {
				MessageID string         `json:"messageId"`
				Metadata  map[string]any `json:"metadata"`
			} `json:"history"`
		} `json:"task"`
	}
	if st != http.StatusOK || json.Unmarshal(body, &sent) != nil || sent.Task.ContextID != "c-proto" || len(sent.Task.History) == 0 ||
		sent.Task.History[0].MessageID != "m-proto" || sent.Task.History[0].Metadata["a_b"] == nil {
		t.Fatalf("REST send with proto names: HTTP %d %s; want context c-proto, message m-proto with metadata a_b", st, body)
	}
	id := sent.Task.ID
	historyLen := func(body []byte, rpc bool) int {
		var task struct {
			History []json.RawMessage `json:"history"`
		}
		if rpc {
			var env struct {
				Result json.RawMessage `json:"result"`
			}
			if json.Unmarshal(body, &env) != nil {
				return -1
			}
			body = env.Result
		}
		if json.Unmarshal(body, &task) != nil {
			return -1
		}
		return len(task.History)
	}
	// Without a limit the history comes back: a limit of 0 below is read, not a default.
	st, _, body = rawPost(t, srv.URL+"/jsonrpc", `{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"id":"`+id+`"}}`, hdr)
	if n := historyLen(body, true); st != http.StatusOK || n < 1 {
		t.Fatalf("JSON-RPC GetTask without a limit: %d history entries, want some: %s", n, body)
	}
	for _, p := range []string{`"historyLength":0`, `"history_length":0`, `"history_length":5,"historyLength":0`} {
		st, _, body := rawPost(t, srv.URL+"/jsonrpc", `{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"id":"`+id+`",`+p+`}}`, hdr)
		if n := historyLen(body, true); st != http.StatusOK || n != 0 {
			t.Errorf("JSON-RPC GetTask {%s}: HTTP %d, %d history entries, want 0: %s", p, st, n, body)
		}
	}
	for _, q := range []string{"historyLength=0", "history_length=0"} {
		st, _, body := do(t, mustRequest(t, http.MethodGet, srv.URL+"/tasks/"+id+"?"+q))
		if n := historyLen(body, false); st != http.StatusOK || n != 0 {
			t.Errorf("REST GET ?%s: HTTP %d, %d history entries, want 0: %s", q, st, n, body)
		}
	}
}

func TestHasSnakeKey(t *testing.T) {
	t.Parallel()
	for body, want := range map[string]bool{
		`{"history_length":1}`:               true,
		`{"a": {"task_id" : "x"}}`:           true,
		"{\"x\":1,\n\"context_id\"\t:\"c\"}": true,
		`{"text":"snake_case words"}`:        false,
		`{"text":"a \"b_c\" d"}`:             false,
		`{"id":"a_b"}`:                       false,
		`{"historyLength":1}`:                false,
		`_`:                                  false,
		`"_"`:                                false,
	} {
		if got := hasSnakeKey([]byte(body)); got != want {
			t.Errorf("hasSnakeKey(%s) = %v, want %v", body, got, want)
		}
	}
}

// TestRPCParamNames: only the params of an A2A method are renamed; another method's (an agent's own, passed on by a
// proxy or a recording) keep their names, and so does the envelope.
func TestRPCParamNames(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		`{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"id":"t","history_length":1}}`:                 `{"id":1,"jsonrpc":"2.0","method":"GetTask","params":{"historyLength":1,"id":"t"}}`,
		`{"jsonrpc":"2.0","id":2,"method":"command/execute","params":{"command_path":["memory"],"args":""}}`: `{"id":2,"jsonrpc":"2.0","method":"command/execute","params":{"args":"","command_path":["memory"]}}`,
	} {
		var v any
		if err := json.Unmarshal([]byte(in), &v); err != nil {
			t.Fatal(err)
		}
		out, _ := json.Marshal(rpcParamNames(v))
		if string(out) != want {
			t.Errorf("rpcParamNames(%s) = %s, want %s", in, out, want)
		}
	}
}

// TestProtoNamesLargeBody: a body past the renaming bound reaches the handler whole, as sent; one within it is renamed.
func TestProtoNamesLargeBody(t *testing.T) {
	t.Parallel()
	body := `{"message":{"message_id":"m","parts":[{"text":"` + strings.Repeat("x", 100) + `"}]}}`
	for most, want := range map[int]string{10: body, 1000: strings.Replace(body, "message_id", "messageId", 1)} {
		r, err := http.NewRequest(http.MethodPost, "http://127.0.0.1/message:send", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(withProtoNamesUpTo(r, jsonNames, most).Body)
		if err != nil || string(got) != want {
			t.Errorf("bound %d: body %q, %v; want %q", most, got, err, want)
		}
	}
}

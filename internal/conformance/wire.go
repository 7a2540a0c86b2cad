package conformance

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"slices"
	"strings"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"google.golang.org/grpc/codes"
)

// rawCall sends one plain HTTP request with the run's headers and A2A-Version version ("" for none); a body goes
// as application/json.
func (r *runner) rawCall(ctx context.Context, method, u, version string, body []byte) (*http.Response, []byte, error) {
	return r.rawCallType(ctx, method, u, version, "application/json", body)
}

// rawCallType is rawCall with the body's Content-Type ctype.
func (r *runner) rawCallType(ctx context.Context, method, u, version, ctype string, body []byte) (*http.Response, []byte, error) {
	ctx, cancel := r.callCtx(ctx)
	defer cancel()
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, u, rd)
	if err != nil {
		return nil, nil, err
	}
	for k, vs := range r.t.Params {
		if strings.EqualFold(k, "A2A-Version") {
			continue
		}
		for _, v := range vs {
			req.Header.Add(k, v)
		}
	}
	if body != nil {
		req.Header.Set("Content-Type", ctype)
	}
	if version != "" {
		req.Header.Set("A2A-Version", version)
	}
	resp, err := r.t.HC.Do(req)
	if err != nil {
		return nil, nil, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	return resp, data, err
}

// isJSON: the bindings (§9.1, §11.1) name application/json; the specification's own examples (§6) and its media
// type registration (§14.1.1) use application/a2a+json, and problem documents are application/problem+json.
func isJSON(resp *http.Response) bool { return jsonType(mediaType(resp)) }

func jsonType(mt string) bool {
	return mt == "application/json" || (strings.HasPrefix(mt, "application/") && strings.HasSuffix(mt, "+json"))
}

func mediaType(resp *http.Response) string {
	mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")) //nolint:errcheck // "" when unreadable
	return mt
}

// wire: the error mapping and content types of b's wire format, on plain requests.
func (r *runner) wire(ctx context.Context, b *binding) {
	switch b.iface.ProtocolBinding {
	case a2a.TransportProtocolJSONRPC:
		r.wireJSONRPC(ctx, b)
	case a2a.TransportProtocolHTTPJSON:
		r.wireREST(ctx, b)
	case a2a.TransportProtocolGRPC:
		r.wireGRPC(ctx, b)
	}
}

type rpcReply struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  json.RawMessage `json:"result"`
	Error   *struct {
		Code    *int            `json:"code"`
		Message *string         `json:"message"`
		Data    json.RawMessage `json:"data"`
	} `json:"error"`
}

func (r *runner) wireJSONRPC(ctx context.Context, b *binding) {
	if !r.want("JSONRPC-FMT-002", "JSONRPC-ERR-001", "JSONRPC-SSE-002", "VER-SERVER-002") {
		return
	}
	getTask, version := "GetTask", string(b.iface.ProtocolVersion)
	if b.v03 {
		getTask = "tasks/get"
	}
	missing := "a2a-conformance-missing-" + r.runID
	call := func(method, ver string) (string, *http.Response, *rpcReply, error) {
		params := map[string]any{"id": missing}
		if b.iface.Tenant != "" && !b.v03 {
			params["tenant"] = b.iface.Tenant
		}
		body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 7, "method": method, "params": params}) //nolint:errcheck // plain values
		sent := fmt.Sprintf("POST %s A2A-Version: %s %s", b.iface.URL, ver, body)
		if !r.spend(1) {
			return sent, nil, nil, errors.New(budgetSpent)
		}
		resp, data, err := r.rawCall(ctx, http.MethodPost, b.iface.URL, ver, body)
		if err != nil {
			return sent, nil, nil, err
		}
		var rep rpcReply
		if err := json.Unmarshal(data, &rep); err != nil {
			return sent, resp, nil, fmt.Errorf("HTTP %d, not a JSON-RPC response: %.120s", resp.StatusCode, data)
		}
		return sent, resp, &rep, nil
	}
	sent, resp, rep, err := call(getTask, version)
	switch {
	case err != nil:
		r.record("JSONRPC-SSE-002", b.name, fail(sent, errText(err), "want error -32001"))
	case rep.Error == nil || rep.Error.Code == nil:
		r.record("JSONRPC-SSE-002", b.name, fail(sent, "no error object", "want error -32001 (TaskNotFoundError)"))
	case *rep.Error.Code != -32001:
		r.record("JSONRPC-SSE-002", b.name, fail(sent, fmt.Sprintf("error code %d", *rep.Error.Code), "TaskNotFoundError is -32001"))
	default:
		r.record("JSONRPC-SSE-002", b.name, pass("error -32001"))
	}
	if resp != nil {
		if isJSON(resp) {
			r.record("JSONRPC-FMT-002", b.name, pass("Content-Type: "+resp.Header.Get("Content-Type")))
		} else {
			r.record("JSONRPC-FMT-002", b.name, fail(sent, "Content-Type: "+resp.Header.Get("Content-Type"), "want application/json (or application/a2a+json)"))
		}
	}
	sent, _, rep, err = call("a2a.conformance/NoSuchMethod", version)
	switch {
	case err != nil:
		r.record("JSONRPC-ERR-001", b.name, fail(sent, errText(err), "want a JSON-RPC error object"))
	case rep.JSONRPC != "2.0" || rep.Error == nil || rep.Error.Code == nil || rep.Error.Message == nil:
		r.record("JSONRPC-ERR-001", b.name, fail(sent, fmt.Sprintf("jsonrpc %q error %v", rep.JSONRPC, rep.Error != nil), "want {jsonrpc: 2.0, error: {code, message}}"))
	case *rep.Error.Code != -32601:
		r.record("JSONRPC-ERR-001", b.name, fail(sent, fmt.Sprintf("error code %d", *rep.Error.Code), "an unknown method is -32601"))
	default:
		r.record("JSONRPC-ERR-001", b.name, pass("error object, -32601 for an unknown method"))
	}
	if b.v03 {
		return
	}
	// §5.4's table files VersionNotSupportedError under JSONRPC-SSE-002 too, as the TCK does.
	sent, _, rep, err = call(getTask, "99.0")
	var ver outcome
	switch {
	case err != nil:
		ver = fail(sent, errText(err), "want VersionNotSupportedError")
	case rep.Error == nil || rep.Error.Code == nil || *rep.Error.Code != -32009:
		ver = fail(sent, rpcErrText(rep), "want error -32009 (VersionNotSupportedError)")
	default:
		ver = pass("error -32009 for A2A-Version: 99.0")
	}
	r.record("VER-SERVER-002", b.name, ver)
	r.record("JSONRPC-SSE-002", b.name, ver)
	r.rpcContentType(ctx, b, version)
	r.rpcUndeclared(ctx, b, version, missing)
}

// rpcUndeclared: what the card does not declare is refused with its own code (§5.4): push -32003, streaming -32004.
// As the TCK does, only a JSON-RPC error answer is judged.
func (r *runner) rpcUndeclared(ctx context.Context, b *binding, version, missing string) {
	type probe struct {
		method string
		params map[string]any
		code   int
		name   string
	}
	var ps []probe
	if !r.t.Card.Capabilities.PushNotifications {
		ps = append(ps, probe{"CreateTaskPushNotificationConfig", map[string]any{"taskId": missing, "url": "https://example.com/a2a-conformance"},
			-32003, "PushNotificationNotSupportedError"})
	}
	if !b.streaming {
		ps = append(ps, probe{"SendStreamingMessage", map[string]any{"message": map[string]any{"role": "ROLE_USER",
			"messageId": "a2a-conformance-stream-" + r.runID, "parts": []any{map[string]any{"text": "a2a conformance: stream not declared"}}}},
			-32004, "UnsupportedOperationError"})
	}
	for _, p := range ps {
		if b.iface.Tenant != "" {
			p.params["tenant"] = b.iface.Tenant
		}
		body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 9, "method": p.method, "params": p.params}) //nolint:errcheck // plain values
		sent := fmt.Sprintf("POST %s A2A-Version: %s %s (card: not declared)", b.iface.URL, version, body)
		if !r.spend(1) {
			return
		}
		_, data, err := r.rawCall(ctx, http.MethodPost, b.iface.URL, version, body)
		var rep rpcReply
		switch {
		case err != nil:
			r.record("JSONRPC-SSE-002", b.name, fail(sent, errText(err), fmt.Sprintf("want error %d (%s)", p.code, p.name)))
		case json.Unmarshal(data, &rep) != nil || rep.Error == nil || rep.Error.Code == nil:
			// taken, or not a JSON-RPC answer: not judged
		case *rep.Error.Code != p.code:
			r.record("JSONRPC-SSE-002", b.name, fail(sent, rpcErrText(&rep), fmt.Sprintf("%s is %d", p.name, p.code)))
		default:
			r.record("JSONRPC-SSE-002", b.name, pass(fmt.Sprintf("error %d for %s (not declared)", p.code, p.method)))
		}
	}
}

// rpcContentType: a request sent as text/plain is ContentTypeNotSupportedError, -32005 (§5.4). As the TCK does, only
// a JSON-RPC error answer is judged: an agent that takes the body, or refuses it at the HTTP level, is not.
func (r *runner) rpcContentType(ctx context.Context, b *binding, version string) {
	params := map[string]any{"message": map[string]any{"role": "ROLE_USER", "messageId": "a2a-conformance-ctype-" + r.runID,
		"parts": []any{map[string]any{"text": "a2a conformance: wrong content type"}}}}
	if b.iface.Tenant != "" {
		params["tenant"] = b.iface.Tenant
	}
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 8, "method": "SendMessage", "params": params}) //nolint:errcheck // plain values
	sent := fmt.Sprintf("POST %s Content-Type: text/plain A2A-Version: %s %s", b.iface.URL, version, body)
	if !r.spend(1) {
		return
	}
	resp, data, err := r.rawCallType(ctx, http.MethodPost, b.iface.URL, version, "text/plain", body)
	var rep rpcReply
	switch {
	case err != nil:
		r.record("JSONRPC-SSE-002", b.name, fail(sent, errText(err), "want error -32005 (ContentTypeNotSupportedError)"))
	case json.Unmarshal(data, &rep) != nil || rep.Error == nil || rep.Error.Code == nil:
		// taken, or refused outside JSON-RPC: not judged
	case *rep.Error.Code != -32005:
		r.record("JSONRPC-SSE-002", b.name, fail(sent, fmt.Sprintf("HTTP %d, %s", resp.StatusCode, rpcErrText(&rep)), "ContentTypeNotSupportedError is -32005"))
	default:
		r.record("JSONRPC-SSE-002", b.name, pass("error -32005 for a text/plain body"))
	}
}

func rpcErrText(rep *rpcReply) string {
	if rep.Error == nil {
		return "a result: " + clip(string(rep.Result))
	}
	if rep.Error.Code == nil {
		return "an error with no code"
	}
	return fmt.Sprintf("error code %d", *rep.Error.Code)
}

type aipError struct {
	Error *struct {
		Code    int    `json:"code"`
		Status  string `json:"status"`
		Message string `json:"message"`
		Details []struct {
			Type   string `json:"@type"`
			Reason string `json:"reason"`
		} `json:"details"`
	} `json:"error"`
}

func (e *aipError) reason() string {
	if e.Error == nil {
		return ""
	}
	for _, d := range e.Error.Details {
		if d.Type == "type.googleapis.com/google.rpc.ErrorInfo" {
			return d.Reason
		}
	}
	return ""
}

func (r *runner) wireREST(ctx context.Context, b *binding) {
	if !r.want("HTTP_JSON-SVC-001", "HTTP_JSON-STATUS-001", "HTTP_JSON-ERR-001", "HTTP_JSON-ERR-002", "VER-SERVER-002") {
		return
	}
	base := strings.TrimSuffix(b.iface.URL, "/")
	missing := "a2a-conformance-missing-" + r.runID
	u := base + "/tasks/" + missing
	if b.v03 {
		u = base + "/v1/tasks/" + missing
	} else if b.iface.Tenant != "" {
		u = base + "/" + b.iface.Tenant + "/tasks/" + missing
	}
	version := string(b.iface.ProtocolVersion)
	get := func(ver string) (string, *http.Response, []byte, error) {
		sent := "GET " + u + " A2A-Version: " + ver
		if !r.spend(1) {
			return sent, nil, nil, errors.New(budgetSpent)
		}
		resp, data, err := r.rawCall(ctx, http.MethodGet, u, ver, nil)
		return sent, resp, data, err
	}
	sent, resp, data, err := get(version)
	if err != nil {
		r.record("HTTP_JSON-STATUS-001", b.name, fail(sent, errText(err), "want 404"))
		return
	}
	if resp.StatusCode != http.StatusNotFound {
		r.record("HTTP_JSON-STATUS-001", b.name, fail(sent, resp.Status+" "+string(data), "TaskNotFoundError is 404"))
	} else {
		r.record("HTTP_JSON-STATUS-001", b.name, pass("404"))
	}
	if isJSON(resp) {
		r.record("HTTP_JSON-SVC-001", b.name, pass("Content-Type: "+resp.Header.Get("Content-Type")))
	} else {
		r.record("HTTP_JSON-SVC-001", b.name, fail(sent, "Content-Type: "+resp.Header.Get("Content-Type"), "want application/json (or application/a2a+json)"))
	}
	if b.v03 {
		return // v0.3's REST errors have no fixed shape (JSON; RFC 9457 problem documents are common)
	}
	var e aipError
	switch {
	case json.Unmarshal(data, &e) != nil || e.Error == nil:
		r.record("HTTP_JSON-ERR-001", b.name, fail(sent, string(data), `want {"error": {"code", "status", "message"}}`))
	case e.Error.Code != resp.StatusCode || e.Error.Status == "" || e.Error.Message == "":
		r.record("HTTP_JSON-ERR-001", b.name, fail(sent, string(data), "error.code must be the HTTP status, with status and message"))
	default:
		r.record("HTTP_JSON-ERR-001", b.name, pass(fmt.Sprintf("error %d %s", e.Error.Code, e.Error.Status)))
	}
	if reason := e.reason(); reason != "TASK_NOT_FOUND" {
		r.record("HTTP_JSON-ERR-002", b.name, fail(sent, string(data), `want a google.rpc.ErrorInfo with reason "TASK_NOT_FOUND"`))
	} else {
		r.record("HTTP_JSON-ERR-002", b.name, pass("ErrorInfo reason TASK_NOT_FOUND"))
	}
	r.restContentType(ctx, b, base, version)
	r.restUndeclared(ctx, b, base, version, missing)
	sent, resp, data, err = get("99.0")
	e = aipError{}
	switch {
	case err != nil:
		r.record("VER-SERVER-002", b.name, fail(sent, errText(err), "want VersionNotSupportedError"))
	case resp.StatusCode < 400 || json.Unmarshal(data, &e) != nil || e.reason() != "VERSION_NOT_SUPPORTED":
		r.record("VER-SERVER-002", b.name, fail(sent, resp.Status+" "+string(data), `want an error whose ErrorInfo reason is "VERSION_NOT_SUPPORTED"`))
	default:
		r.record("VER-SERVER-002", b.name, pass(resp.Status+" VERSION_NOT_SUPPORTED"))
	}
	// §5.4's table: VersionNotSupportedError is HTTP 400, filed under HTTP_JSON-STATUS-001 too, as the TCK does.
	switch {
	case err != nil:
		r.record("HTTP_JSON-STATUS-001", b.name, fail(sent, errText(err), "want 400 (VersionNotSupportedError)"))
	case resp.StatusCode != http.StatusBadRequest:
		r.record("HTTP_JSON-STATUS-001", b.name, fail(sent, resp.Status+" "+string(data), "VersionNotSupportedError is 400"))
	default:
		r.record("HTTP_JSON-STATUS-001", b.name, pass("400 for A2A-Version: 99.0"))
	}
}

// wireGRPC: a2a-go's gRPC client reads TaskNotFoundError only from the NOT_FOUND status, so CORE-GET-002's outcome
// on this binding is GRPC-ERR-002's. As the TCK does, the rest of §5.4's table counts there too: CancelTask of an
// unknown task is NOT_FOUND (or FAILED_PRECONDITION), and what the card does not declare (push, streaming) is
// UNIMPLEMENTED.
func (r *runner) wireGRPC(ctx context.Context, b *binding) {
	r.mu.Lock()
	var got *Result
	for i := range r.results {
		if r.results[i].ID == "CORE-GET-002" && r.results[i].Binding == b.name {
			x := r.results[i]
			got = &x
			break
		}
	}
	r.mu.Unlock()
	if got != nil {
		r.record("GRPC-ERR-002", b.name, outcome{verdict: got.Verdict, evidence: got.Evidence, sent: got.Sent, got: got.Got})
	}
	if b.v03 || !r.want("GRPC-ERR-002") {
		return
	}
	missing := a2a.TaskID("a2a-conformance-missing-" + r.runID)
	r.grpcMapping(ctx, b, "CancelTask id="+string(missing), []codes.Code{codes.NotFound, codes.FailedPrecondition}, func(ctx context.Context) error {
		_, err := b.c.CancelTask(ctx, &a2a.CancelTaskRequest{ID: missing})
		return err
	})
	if r.t.WithVersion != nil {
		// §3.6.2 and §5.4: an unsupported version is VersionNotSupportedError, gRPC UNIMPLEMENTED.
		sent := "GetTask id=" + string(missing) + " a2a-version: 99.0"
		if r.spend(1) {
			cctx, cancel := r.callCtx(r.t.WithVersion(ctx, "99.0"))
			_, err := b.c.GetTask(cctx, &a2a.GetTaskRequest{ID: missing})
			cancel()
			var ver outcome
			switch got := r.grpcStatus(err); {
			case err == nil:
				ver = fail(sent, "success", "want VersionNotSupportedError (gRPC UNIMPLEMENTED)")
			case got != codes.Unimplemented:
				ver = fail(sent, "gRPC "+got.String()+": "+errText(err), "VersionNotSupportedError is gRPC UNIMPLEMENTED")
			default:
				ver = pass("gRPC Unimplemented for a2a-version: 99.0")
			}
			r.record("GRPC-ERR-002", b.name, ver)
			r.record("VER-SERVER-002", b.name, ver)
		}
	}
	if !b.ownCard {
		return // the client asks the agent only for what the card declares
	}
	if !r.t.Card.Capabilities.PushNotifications {
		r.grpcMapping(ctx, b, "CreateTaskPushNotificationConfig taskId="+string(missing)+" (card: pushNotifications false)", []codes.Code{codes.Unimplemented}, func(ctx context.Context) error {
			_, err := b.c.CreateTaskPushConfig(ctx, &a2a.PushConfig{TaskID: missing, URL: "https://example.com/a2a-conformance"})
			return err
		})
	}
	if !b.streaming {
		m := r.probe("a2a-conformance", "a2a conformance: stream not declared")
		r.grpcMapping(ctx, b, "SendStreamingMessage (card: streaming false)", []codes.Code{codes.Unimplemented}, func(ctx context.Context) error {
			_, err := firstEvent(b.c.SendStreamingMessage(ctx, &a2a.SendMessageRequest{Message: m}))
			return err
		})
	}
}

// grpcMapping records GRPC-ERR-002 from the status call fails with: one of want. As the TCK does, a call that
// succeeds is not judged.
func (r *runner) grpcMapping(ctx context.Context, b *binding, sent string, want []codes.Code, call func(context.Context) error) {
	if !r.spend(1) {
		return
	}
	cctx, cancel := r.callCtx(ctx)
	err := call(cctx)
	cancel()
	if err == nil {
		return
	}
	got := r.grpcStatus(err)
	names := make([]string, len(want))
	for i, c := range want {
		if c == got {
			r.record("GRPC-ERR-002", b.name, pass("gRPC "+got.String()+" for "+strings.Fields(sent)[0]))
			return
		}
		names[i] = c.String()
	}
	r.record("GRPC-ERR-002", b.name, fail(sent, "gRPC "+got.String()+": "+errText(err), "§5.4 maps this error to "+strings.Join(names, " or ")))
}

// restContentType: a SendMessage whose body is JSON sent as text/plain is ContentTypeNotSupportedError, HTTP 415
// (§5.4). As the TCK does, an agent that takes the body anyway is not judged here: only a refusal must say 415.
func (r *runner) restContentType(ctx context.Context, b *binding, base, version string) {
	u := base + "/message:send"
	if b.iface.Tenant != "" {
		u = base + "/" + b.iface.Tenant + "/message:send"
	}
	body := fmt.Sprintf(`{"message":{"role":"ROLE_USER","parts":[{"text":"a2a conformance: wrong content type"}],"messageId":"a2a-conformance-ctype-%s"}}`, r.runID)
	sent := "POST " + u + " Content-Type: text/plain A2A-Version: " + version + " " + body
	if !r.spend(1) {
		return
	}
	resp, data, err := r.rawCallType(ctx, http.MethodPost, u, version, "text/plain", []byte(body))
	switch {
	case err != nil:
		r.record("HTTP_JSON-STATUS-001", b.name, fail(sent, errText(err), "want 415 (ContentTypeNotSupportedError)"))
	case resp.StatusCode < 400:
		// taken as JSON: not a refusal, nothing to judge
	case resp.StatusCode != http.StatusUnsupportedMediaType:
		r.record("HTTP_JSON-STATUS-001", b.name, fail(sent, resp.Status+" "+string(data), "ContentTypeNotSupportedError is 415"))
	default:
		r.record("HTTP_JSON-STATUS-001", b.name, pass("415 for a text/plain body"))
	}
}

// restUndeclared: CancelTask of an unknown task is 404 (or 409), and what the card does not declare is 400 (§5.4:
// PushNotificationNotSupportedError, UnsupportedOperationError). As the TCK does, only an error answer is judged.
func (r *runner) restUndeclared(ctx context.Context, b *binding, base, version, missing string) {
	if b.iface.Tenant != "" {
		base += "/" + b.iface.Tenant
	}
	type probe struct {
		path, body string
		want       []int
		name       string
	}
	ps := []probe{{"/tasks/" + missing + ":cancel", "{}", []int{404, 409}, "TaskNotFoundError (or TaskNotCancelableError)"}}
	if !r.t.Card.Capabilities.PushNotifications {
		ps = append(ps, probe{"/tasks/" + missing + "/pushNotificationConfigs", `{"url":"https://example.com/a2a-conformance"}`,
			[]int{400}, "PushNotificationNotSupportedError"})
	}
	if !b.streaming {
		ps = append(ps, probe{"/message:stream", fmt.Sprintf(`{"message":{"role":"ROLE_USER","parts":[{"text":"a2a conformance: stream not declared"}],"messageId":"a2a-conformance-stream-%s"}}`, r.runID),
			[]int{400}, "UnsupportedOperationError"})
	}
	for _, p := range ps {
		u := base + p.path
		sent := "POST " + u + " A2A-Version: " + version + " " + p.body
		if !r.spend(1) {
			return
		}
		resp, data, err := r.rawCall(ctx, http.MethodPost, u, version, []byte(p.body))
		switch {
		case err != nil:
			r.record("HTTP_JSON-STATUS-001", b.name, fail(sent, errText(err), fmt.Sprintf("want %v (%s)", p.want, p.name)))
		case resp.StatusCode < 400:
			// taken: not judged
		case !slices.Contains(p.want, resp.StatusCode):
			r.record("HTTP_JSON-STATUS-001", b.name, fail(sent, resp.Status+" "+string(data), fmt.Sprintf("%s is %v", p.name, p.want)))
		default:
			r.record("HTTP_JSON-STATUS-001", b.name, pass(fmt.Sprintf("%d for POST %s", resp.StatusCode, p.path)))
		}
	}
}

package wire

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// Break is the one MUST of the A2A specification a Broken agent breaks.
type Break int

const (
	// BreakCardType serves the card as text/plain (§8.2: the card is application/json).
	BreakCardType Break = iota
	// BreakNotFoundCode answers TaskNotFoundError with JSON-RPC -32603 instead of -32001 (§5.4, §9.5).
	BreakNotFoundCode
	// BreakContextID leaves contextId out of the Task SendMessage returns (§4.1.1: id, contextId, status required).
	BreakContextID
	// BreakStreamOrder sends one more status update (working) after the event that ended the task (§3.1.2: the
	// stream closes at the terminal state).
	BreakStreamOrder
	// BreakPaging ignores ListTasks' pageSize (§3.1.4: a page holds at most pageSize tasks, nextPageToken leads on).
	BreakPaging
	// BreakRESTStatus answers HTTP+JSON errors with 500 whatever the error (§5.4: TaskNotFoundError is 404).
	BreakRESTStatus
	// BreakListNull answers an empty HTTP+JSON ListTasks page with "tasks": null (the specification's JSON schema
	// has an array), as a2a-go's REST handler does.
	BreakListNull
	// BreakRESTContentType refuses an HTTP+JSON request whose body is not application/json with 400 (§5.4:
	// ContentTypeNotSupportedError is 415), as a2a-js does.
	BreakRESTContentType
	// BreakRPCContentType answers a JSON-RPC request sent as text/plain with -32700 (parse error), as a2a-go does,
	// where §5.4 maps ContentTypeNotSupportedError to -32005.
	BreakRPCContentType
	// BreakPushUnsupported answers PushNotificationNotSupportedError as an internal error: JSON-RPC -32603 and, over
	// HTTP+JSON, 500 (§5.4: -32003, HTTP 400).
	BreakPushUnsupported
)

// Broken starts, on 127.0.0.1:0, an agent that is upstream (an agent not built from our serve code, e.g. the
// a2a-go SDK's) with one requirement broken, b; it stops when the test ends. It returns its base URL: the card is
// upstream's with upstream's URL replaced by its own, so every call comes through it.
func Broken(t testing.TB, upstream string, b Break) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	self := "http://" + ln.Addr().String()
	p := &breaker{up: strings.TrimSuffix(upstream, "/"), self: self, b: b, hc: &http.Client{Timeout: time.Minute}}
	srv := &http.Server{Handler: p, ReadHeaderTimeout: 10 * time.Second}
	go srv.Serve(ln)                  //nolint:errcheck // ends with ErrServerClosed at cleanup
	t.Cleanup(func() { srv.Close() }) //nolint:errcheck // nothing to report
	return self
}

type breaker struct {
	up, self string
	b        Break
	hc       *http.Client
}

func (p *breaker) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	if err != nil {
		http.Error(w, "bad request", http.StatusBadRequest)
		return
	}
	if p.b == BreakRESTContentType && r.Method == http.MethodPost && r.Header.Get("Content-Type") != "" &&
		!strings.HasPrefix(r.Header.Get("Content-Type"), "application/json") && !bytes.Contains(body, []byte(`"jsonrpc"`)) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		io.WriteString(w, `{"error":{"code":400,"status":"INVALID_ARGUMENT","message":"the body must be JSON"}}`) //nolint:errcheck // the client went
		return
	}
	if p.b == BreakPaging && r.Method == http.MethodPost {
		body = dropParam(body, "pageSize")
	}
	req, err := http.NewRequestWithContext(r.Context(), r.Method, p.up+r.URL.RequestURI(), bytes.NewReader(body))
	if err != nil {
		http.Error(w, "bad request", http.StatusBadRequest)
		return
	}
	req.Header = r.Header.Clone()
	if p.b == BreakPaging && r.Method == http.MethodGet {
		q := req.URL.Query()
		q.Del("pageSize")
		req.URL.RawQuery = q.Encode()
	}
	resp, err := p.hc.Do(req)
	if err != nil {
		http.Error(w, "upstream: "+err.Error(), http.StatusBadGateway)
		return
	}
	defer resp.Body.Close()
	for k, vs := range resp.Header {
		if k != "Content-Length" {
			w.Header()[k] = vs
		}
	}
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		p.stream(w, resp)
		return
	}
	out, err := io.ReadAll(io.LimitReader(resp.Body, 16<<20))
	if err != nil {
		http.Error(w, "upstream: "+err.Error(), http.StatusBadGateway)
		return
	}
	status := resp.StatusCode
	switch {
	case strings.HasSuffix(r.URL.Path, "/agent-card.json"):
		out = bytes.ReplaceAll(out, []byte(p.up), []byte(p.self))
		if p.b == BreakCardType {
			w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		}
	case p.b == BreakNotFoundCode:
		out = bytes.ReplaceAll(out, []byte(`"code":-32001`), []byte(`"code":-32603`))
	case p.b == BreakPushUnsupported && status >= 400 && strings.Contains(r.URL.Path, "/pushNotificationConfigs"):
		status = http.StatusInternalServerError
	case p.b == BreakPushUnsupported:
		out = bytes.ReplaceAll(out, []byte(`"code":-32003`), []byte(`"code":-32603`))
	case p.b == BreakRPCContentType:
		out = bytes.ReplaceAll(out, []byte(`"code":-32005`), []byte(`"code":-32700`))
	case p.b == BreakContextID:
		out = dropTaskContext(out)
	case p.b == BreakListNull && r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, "/tasks"):
		out = bytes.Replace(out, []byte(`"tasks":[]`), []byte(`"tasks":null`), 1)
	case p.b == BreakRESTStatus && status >= 400:
		status = http.StatusInternalServerError
	}
	w.WriteHeader(status)
	w.Write(out) //nolint:errcheck // the client went
}

// stream forwards an event stream; under BreakStreamOrder, a working status follows the event that ended the task.
func (p *breaker) stream(w http.ResponseWriter, resp *http.Response) {
	w.WriteHeader(resp.StatusCode)
	fl, _ := w.(http.Flusher)
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for sc.Scan() {
		line := sc.Text()
		if p.b == BreakNotFoundCode {
			line = strings.ReplaceAll(line, `"code":-32001`, `"code":-32603`)
		}
		io.WriteString(w, line+"\n") //nolint:errcheck // the client went: the scan ends with the upstream
		if line == "" && fl != nil {
			fl.Flush()
		}
		if p.b != BreakStreamOrder || !strings.HasPrefix(line, "data:") {
			continue
		}
		if extra := afterTerminal(strings.TrimSpace(strings.TrimPrefix(line, "data:"))); extra != "" {
			io.WriteString(w, "\ndata: "+extra+"\n") //nolint:errcheck // as above
		}
	}
	if fl != nil {
		fl.Flush()
	}
}

// afterTerminal is a JSON-RPC event putting the task back to working when data ends it, else "".
func afterTerminal(data string) string {
	var ev struct {
		ID     json.RawMessage `json:"id"`
		Result map[string]struct {
			ID        string `json:"id"`
			TaskID    string `json:"taskId"`
			ContextID string `json:"contextId"`
			Status    struct {
				State string `json:"state"`
			} `json:"status"`
		} `json:"result"`
	}
	if json.Unmarshal([]byte(data), &ev) != nil {
		return ""
	}
	for kind, x := range ev.Result {
		switch x.Status.State {
		case "TASK_STATE_COMPLETED", "TASK_STATE_FAILED", "TASK_STATE_CANCELED", "TASK_STATE_REJECTED":
		default:
			continue
		}
		id := x.TaskID
		if kind == "task" {
			id = x.ID
		}
		out, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": ev.ID, "result": map[string]any{ //nolint:errcheck // plain values
			"statusUpdate": map[string]any{"taskId": id, "contextId": x.ContextID, "status": map[string]any{"state": "TASK_STATE_WORKING"}}}})
		return string(out)
	}
	return ""
}

// dropParam removes params[key] from a JSON-RPC request.
func dropParam(body []byte, key string) []byte {
	var m map[string]any
	if json.Unmarshal(body, &m) != nil {
		return body
	}
	if params, ok := m["params"].(map[string]any); ok {
		delete(params, key)
	}
	out, err := json.Marshal(m)
	if err != nil {
		return body
	}
	return out
}

// dropTaskContext removes contextId from a JSON-RPC SendMessage result's task.
func dropTaskContext(body []byte) []byte {
	var m map[string]any
	if json.Unmarshal(body, &m) != nil {
		return body
	}
	res, _ := m["result"].(map[string]any)
	task, _ := res["task"].(map[string]any)
	if task == nil {
		return body
	}
	delete(task, "contextId")
	out, err := json.Marshal(m)
	if err != nil {
		return body
	}
	return out
}

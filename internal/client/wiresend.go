package client

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sync"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2aclient"
)

// WireSend is one SendMessage sent again and again at wire speed, for a load generator: a2a-go's client marshals
// the request, builds its URL and headers, then unmarshals the whole answer into tasks, parts and their unions on
// every call, which was most of `a2a bench`'s CPU. WireSend asks a2a-go once for the request it would send (URL,
// headers, body; the binding's rules, tenant and service parameters included), and then sends that body with a
// new message id each time, through the run's HTTP client (credential guard, caps, -v log). A 200 answer that
// holds a task or a message is read for its state alone; anything else (another status, a JSON-RPC error, a shape
// it does not know) is handed, as it came, to a2a-go's own reading behind answerCheck, so an error is the same
// error the full client gives and classifies the same. TestWireSendDifferential holds the two paths together.
type WireSend struct {
	hc      *http.Client
	tmpl    *http.Request // the request a2a-go would send, without its body
	pieces  [][]byte      // the body cut at the placeholder id: joined with a new id, the request
	size    int           // the pieces' length
	jsonrpc bool
	req     *a2a.SendMessageRequest
	sdkURL  *url.URL
	params  a2aclient.ServiceParams
}

// wireID stands for the message id (and the JSON-RPC id) in the body a2a-go marshals once.
const wireID = "a2a-wire-id-7f3c9d1e"

// errCaptured ends the one call a2a-go makes to show its request.
var errCaptured = errors.New("request captured")

// captureRequest is a RoundTripper that keeps the request it is given and sends nothing.
type captureRequest struct{ req *http.Request }

func (c *captureRequest) RoundTrip(req *http.Request) (*http.Response, error) {
	c.req = req
	return nil, errCaptured
}

// WireSend prepares req for sending again and again; nil when the connection's binding has no wire path (gRPC,
// v0.3), where the caller goes on with the a2a-go client. req's message id is replaced on every send.
func (c *Conn) WireSend(ctx context.Context, req *a2a.SendMessageRequest) (*WireSend, error) {
	if c.Iface == nil || c.HC == nil || c.Iface.ProtocolVersion != a2a.Version {
		return nil, nil
	}
	jsonrpc := c.Iface.ProtocolBinding == a2a.TransportProtocolJSONRPC
	if !jsonrpc && c.Iface.ProtocolBinding != a2a.TransportProtocolHTTPJSON {
		return nil, nil
	}
	u, err := url.Parse(c.Iface.URL)
	if err != nil {
		return nil, fmt.Errorf("endpoint URL: %w", err)
	}
	// The service parameters the client's interceptors send: the interface's version, then every other one.
	params := a2aclient.ServiceParams{a2a.SvcParamVersion: {string(c.Iface.ProtocolVersion)}}
	for k, v := range withoutVersion(c.Params) {
		params[k] = append([]string(nil), v...)
	}
	m := *req.Message
	m.ID = wireID
	r := *req
	r.Message = &m
	capture := &captureRequest{}
	_, err = newSDKTransport(u, &http.Client{Transport: capture}, jsonrpc).SendMessage(ctx, params, &r)
	if capture.req == nil {
		return nil, fmt.Errorf("build the request: %w", err)
	}
	body, err := io.ReadAll(capture.req.Body)
	if err != nil {
		return nil, fmt.Errorf("build the request: %w", err)
	}
	if jsonrpc {
		// The JSON-RPC id, a new one per call as a2a-go sends it: the message's own.
		var env map[string]json.RawMessage
		if err := json.Unmarshal(body, &env); err != nil {
			return nil, fmt.Errorf("build the request: %w", err)
		}
		env["id"] = json.RawMessage(`"` + wireID + `"`)
		if body, err = json.Marshal(env); err != nil {
			return nil, fmt.Errorf("build the request: %w", err)
		}
	}
	pieces := bytes.Split(body, []byte(wireID))
	if len(pieces) < 2 {
		return nil, fmt.Errorf("build the request: the message id is not in its body")
	}
	tmpl, err := http.NewRequest(capture.req.Method, capture.req.URL.String(), nil)
	if err != nil {
		return nil, fmt.Errorf("build the request: %w", err)
	}
	tmpl.Header = capture.req.Header.Clone()
	return &WireSend{hc: &http.Client{Transport: c.HC.Transport}, tmpl: tmpl, pieces: pieces, size: len(body) - len(wireID)*(len(pieces)-1),
		jsonrpc: jsonrpc, req: req, sdkURL: u, params: params}, nil
}

// wireBufs are the bodies of answers, reused.
var wireBufs = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// wireAnswer is what WireSend reads of a 200 answer: the JSON-RPC envelope's result and error, or (REST) the
// SendMessageResponse itself.
type wireAnswer struct {
	Result *wireResult     `json:"result"`
	Error  json.RawMessage `json:"error"`
}

type wireResult struct {
	Task *struct {
		Status struct {
			State a2a.TaskState `json:"state"`
		} `json:"status"`
	} `json:"task"`
	Message *struct{} `json:"message"`
}

// WireResult is what one send answered: a task in State, or a message.
type WireResult struct {
	State   a2a.TaskState
	Message bool
}

// Send sends the request with a new message id and reads the answer.
func (w *WireSend) Send(ctx context.Context) (WireResult, error) {
	id := a2a.NewMessageID()
	// The body is the request's own: the transport may still be writing it when Do returns (an early answer).
	body := make([]byte, 0, w.size+len(id)*(len(w.pieces)-1))
	for i, p := range w.pieces {
		if i > 0 {
			body = append(body, id...)
		}
		body = append(body, p...)
	}
	req := w.tmpl.WithContext(ctx) // the URL and the headers are shared: nothing on the way writes to them
	req.Body, req.ContentLength = io.NopCloser(bytes.NewReader(body)), int64(len(body))
	req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
	resp, err := w.hc.Do(req)
	if err != nil {
		return WireResult{}, fmt.Errorf("failed to send HTTP request: %w", err)
	}
	in := wireBufs.Get().(*bytes.Buffer)
	defer wireBufs.Put(in)
	in.Reset()
	_, err = in.ReadFrom(resp.Body)
	resp.Body.Close() //nolint:errcheck // read to its end or failed
	if err != nil {
		return WireResult{}, err
	}
	if resp.StatusCode == http.StatusOK {
		if res, ok := readWireAnswer(in.Bytes(), w.jsonrpc); ok {
			return res, nil
		}
	}
	return w.readBySDK(ctx, resp, in.Bytes(), id)
}

// readWireAnswer reads a 200 answer of the hot shape: valid JSON, (JSON-RPC) an envelope whose result holds a task
// or a message and whose error is absent or null. It reads the task's state and nothing else of the task or the
// message: a part of a kind a2a-go does not know, or a field of the wrong type, is a2a-go's error and not WireSend's
// (a load generator counts answers; `a2a send` and `a2a conformance` check what they hold). The walk (walkAnswer) covers the common spelling; an answer it
// does not cover is read by encoding/json into wireAnswer, with encoding/json's own rules (last duplicate wins,
// keys matched without regard to case); ok is false for anything else, which a2a-go then reads.
func readWireAnswer(body []byte, jsonrpc bool) (WireResult, bool) {
	if !json.Valid(body) {
		return WireResult{}, false
	}
	if res, ok := walkAnswer(body, jsonrpc); ok {
		return res, true
	}
	var a wireAnswer
	var err error
	if jsonrpc {
		err = json.Unmarshal(body, &a)
	} else {
		a.Result = &wireResult{}
		err = json.Unmarshal(body, a.Result)
	}
	if r := a.Result; err == nil && r != nil && (a.Error == nil || string(a.Error) == "null") && (r.Task == nil) != (r.Message == nil) {
		if r.Task != nil {
			return WireResult{State: r.Task.Status.State}, true
		}
		return WireResult{Message: true}, true
	}
	return WireResult{}, false
}

// walkAnswer finds what readWireAnswer needs in valid JSON without decoding the rest. It gives up (ok false) on
// anything encoding/json might read otherwise: a key with an escape, a key that differs from one it looks for in
// case only, a duplicate of a key it looks for, a state that is not a plain string.
func walkAnswer(b []byte, jsonrpc bool) (res WireResult, ok bool) {
	result := skipSpace(b, 0)
	if jsonrpc {
		top := result
		result = -1
		ok := members(b, top, func(key []byte, v int) bool {
			switch {
			case string(key) == "result" && result < 0:
				result = v
			case string(key) == "error" && isNull(b, v):
			case bytes.EqualFold(key, []byte("result")), bytes.EqualFold(key, []byte("error")):
				return false
			}
			return true
		})
		if !ok || result < 0 {
			return WireResult{}, false
		}
	}
	// -1: not there; -2: null, as good as not there; else where the value starts.
	task, msg := -1, -1
	if !members(b, result, func(key []byte, v int) bool {
		at := v
		if isNull(b, v) {
			at = -2
		}
		switch {
		case string(key) == "task" && task == -1:
			task = at
		case string(key) == "message" && msg == -1:
			msg = at
		case bytes.EqualFold(key, []byte("task")), bytes.EqualFold(key, []byte("message")):
			return false
		}
		return true
	}) || (task < 0) == (msg < 0) {
		return WireResult{}, false
	}
	if msg >= 0 {
		return WireResult{Message: true}, b[msg] == '{'
	}
	status := -1
	if !members(b, task, func(key []byte, v int) bool {
		switch {
		case string(key) == "status" && status < 0:
			status = v
		case bytes.EqualFold(key, []byte("status")):
			return false
		}
		return true
	}) {
		return WireResult{}, false
	}
	var state []byte
	if status >= 0 && !isNull(b, status) && !members(b, status, func(key []byte, v int) bool {
		switch {
		case string(key) == "state" && state == nil && b[v] == '"':
			state = b[v+1 : skipString(b, v)-1]
			return bytes.IndexByte(state, '\\') < 0
		case bytes.EqualFold(key, []byte("state")):
			return false
		}
		return true
	}) {
		return WireResult{}, false
	}
	return WireResult{State: a2a.TaskState(state)}, true
}

// members calls f with each member of the object at b[i] (b valid JSON): its key, unquoted, and where its value
// starts. It returns false when the value at i is not an object, a key has an escape, or f returns false.
func members(b []byte, i int, f func(key []byte, v int) bool) bool {
	if i >= len(b) || b[i] != '{' {
		return false
	}
	i = skipSpace(b, i+1)
	for i < len(b) && b[i] == '"' {
		end := skipString(b, i)
		key := b[i+1 : end-1]
		if bytes.IndexByte(key, '\\') >= 0 {
			return false
		}
		v := skipSpace(b, skipSpace(b, end)+1) // past the colon
		if !f(key, v) {
			return false
		}
		i = skipSpace(b, skipValue(b, v))
		if i < len(b) && b[i] == ',' {
			i = skipSpace(b, i+1)
		}
	}
	return true
}

func isNull(b []byte, i int) bool { return bytes.HasPrefix(b[i:], []byte("null")) }

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// skipString returns the index just past the string that starts at b[i].
func skipString(b []byte, i int) int {
	for i++; i < len(b); i++ {
		switch b[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return len(b)
}

// skipValue returns the index just past the value that starts at b[i] (b valid JSON).
func skipValue(b []byte, i int) int {
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		depth := 0
		for ; i < len(b); i++ {
			switch b[i] {
			case '"':
				i = skipString(b, i) - 1
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return i + 1
				}
			}
		}
		return len(b)
	}
	for i < len(b) && b[i] != ',' && b[i] != '}' && b[i] != ']' && b[i] != ' ' && b[i] != '\t' && b[i] != '\n' && b[i] != '\r' {
		i++
	}
	return i
}

// readBySDK reads an answer the way the a2a-go client would have: its binding's transport behind answerCheck, over
// a RoundTripper that hands back the answer already read.
func (w *WireSend) readBySDK(ctx context.Context, resp *http.Response, body []byte, id string) (WireResult, error) {
	replay := replayAnswer{status: resp.StatusCode, text: resp.Status, header: resp.Header, body: body}
	hc := &http.Client{Transport: &answerCheck{base: replay, jsonrpc: w.jsonrpc}}
	m := *w.req.Message
	m.ID = id
	r := *w.req
	r.Message = &m
	res, err := newSDKTransport(w.sdkURL, hc, w.jsonrpc).SendMessage(ctx, w.params, &r)
	if err != nil {
		return WireResult{}, err
	}
	switch v := res.(type) {
	case *a2a.Task:
		return WireResult{State: v.Status.State}, nil
	case *a2a.Message:
		return WireResult{Message: true}, nil
	}
	return WireResult{}, fmt.Errorf("result violates A2A spec - expected Task or Message, got %T", res)
}

// replayAnswer answers any request with one answer already read.
type replayAnswer struct {
	status int
	text   string
	header http.Header
	body   []byte
}

func (a replayAnswer) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Body != nil {
		req.Body.Close() //nolint:errcheck // in memory
	}
	text := a.text
	if text == "" {
		text = fmt.Sprintf("%d %s", a.status, http.StatusText(a.status))
	}
	return &http.Response{StatusCode: a.status, Status: text, Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header: a.header.Clone(), Body: io.NopCloser(bytes.NewReader(a.body)), ContentLength: int64(len(a.body)),
		Request: req}, nil
}

package client

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"
	"unicode/utf8"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

// answerCheck sits between a2a-go's HTTP bindings (JSON-RPC and REST, v1.0 and v0.3) and the wire. It makes legal
// answers the library refuses readable, and turns answers no binding can read into an error that says what came back
// (status, content type, first bytes of the body) instead of the library's bare "internal error" or "server error":
//
//   - 201 Created / 202 Accepted from a REST agent (the a2a-js SDK 0.3 answers POST /v1/message:send with 201) are
//     read as 200: a2a-go accepts only 200.
//   - A JSON document in answer to a streaming call (the Python SDK answers a JSON-RPC error that way) is one event
//     of the stream, or the call's error; a2a-go would read it as an empty stream.
//   - A JSON-RPC error sent with a non-200 status is the error it carries.
//   - REST errors in the a2a-js shape ({"code":-32001,"message":…}) are the protocol error of that code.
//   - A JSON-RPC error whose data a2a-go cannot read (JSON-RPC allows any value; a2a-go reads only an array of
//     objects) is the protocol error of its code, with the agent's message and data (DataError), in a unary answer
//     and, where errorEvents is set (the v0.3 binding, whose stream reader is a2a-go's), in an event stream.
type answerCheck struct {
	base        http.RoundTripper
	jsonrpc     bool
	errorEvents bool
}

// maxJSONAnswer bounds a JSON answer to a streaming call read whole (the SSE line limit of a2a-go).
const maxJSONAnswer = 10 << 20

// bodyExcerpt is how many bytes of an unreadable answer an error quotes.
const bodyExcerpt = 200

func (a *answerCheck) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := a.base.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	if isRedirect(resp) {
		// http.Client follows it (the credential guard under us decides what the next hop gets).
		return resp, nil
	}
	streaming := strings.Contains(req.Header.Get("Accept"), "text/event-stream")
	ct := mediaType(resp.Header.Get("Content-Type"))
	ok := resp.StatusCode >= 200 && resp.StatusCode < 300
	if ok && !a.jsonrpc && resp.StatusCode != http.StatusOK && resp.StatusCode != http.StatusNoContent {
		resp.StatusCode, resp.Status = http.StatusOK, "200 OK"
	}
	if ok && streaming && ct == "text/event-stream" {
		if a.jsonrpc && a.errorEvents {
			resp.Body = newRPCErrorEvents(resp.Body)
		}
		return resp, nil
	}
	if ok && (resp.StatusCode == http.StatusNoContent || req.Method == http.MethodDelete) {
		// A REST delete (DeletePushNotificationConfig) answers with nothing to read: a2a-go's servers send 200 and no body.
		return resp, nil
	}
	br := bufio.NewReaderSize(resp.Body, 4096)
	resp.Body = readCloser{Reader: br, Closer: resp.Body}
	isJSON := startsJSON(br)
	switch {
	case ok && streaming && startsSSE(br):
		// An event stream with a wrong or missing content type.
		if a.jsonrpc && a.errorEvents {
			resp.Body = newRPCErrorEvents(resp.Body)
		}
		return resp, nil
	case ok && isJSON && !streaming && a.jsonrpc && mayBeRPCError(br):
		return unaryRPCError(resp)
	case ok && isJSON && !streaming:
		return resp, nil
	case ok && isJSON:
		return a.streamOfOne(resp)
	case !ok && isJSON:
		return a.errorAnswer(resp)
	}
	return nil, describeAnswer(resp)
}

// streamOfOne reads a JSON answer to a streaming call: an error document is the call's error, anything else the
// stream's one event.
func (a *answerCheck) streamOfOne(resp *http.Response) (*http.Response, error) {
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxJSONAnswer))
	if err != nil {
		return nil, fmt.Errorf("read answer: %w", err)
	}
	if perr := protocolErrorIn(body, a.jsonrpc); perr != nil {
		return nil, perr
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, body); err != nil {
		return nil, answerErr(resp, body)
	}
	sse := append(append([]byte("data: "), compact.Bytes()...), '\n', '\n')
	resp.Header.Set("Content-Type", "text/event-stream")
	resp.Header.Del("Content-Length")
	resp.ContentLength = int64(len(sse))
	resp.Body = io.NopCloser(bytes.NewReader(sse))
	return resp, nil
}

// unaryRPCError reads a JSON-RPC answer that may be an error: one whose data a2a-go cannot read is returned as a
// DataError, anything else goes on to a2a-go as it came.
func unaryRPCError(resp *http.Response) (*http.Response, error) {
	body, err := io.ReadAll(resp.Body) // bounded by --max-response-bytes under us
	resp.Body.Close()
	if err != nil {
		return nil, fmt.Errorf("read answer: %w", err)
	}
	if derr := unreadableRPCError(body); derr != nil {
		return nil, derr
	}
	resp.Body = io.NopCloser(bytes.NewReader(body))
	return resp, nil
}

// mayBeRPCError reports whether a JSON-RPC answer may be an error response: an "error" member comes before any
// "result" one in its first 4 KB (or neither is there). A result is passed on without being read twice.
func mayBeRPCError(br *bufio.Reader) bool {
	b, _ := br.Peek(4096) // fewer bytes only at the end of the body
	e := bytes.Index(b, []byte(`"error"`))
	r := bytes.Index(b, []byte(`"result"`))
	switch {
	case r >= 0 && (e < 0 || r < e):
		return false
	case e >= 0:
		return true
	}
	return len(b) == 4096
}

// rpcErrorObject is a JSON-RPC error object with its data kept raw.
type rpcErrorObject struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data"`
}

// unreadableRPCError is the error a JSON-RPC response body carries when a2a-go could not read its data (see
// sdkReadsData), as a DataError; nil for anything else, which a2a-go reads itself.
func unreadableRPCError(body []byte) error {
	var doc struct {
		Error *rpcErrorObject `json:"error"`
	}
	if json.Unmarshal(body, &doc) != nil || doc.Error == nil || doc.Error.Code == 0 || sdkReadsData(doc.Error.Data) {
		return nil
	}
	return withData(rpcCodeError(doc.Error.Code, doc.Error.Message), doc.Error.Data)
}

// sdkReadsData reports whether a2a-go reads a JSON-RPC error's data: none, null, or an array of objects.
func sdkReadsData(data json.RawMessage) bool {
	if len(data) == 0 || string(data) == "null" {
		return true
	}
	var details []map[string]any
	return json.Unmarshal(data, &details) == nil
}

// withData attaches an error's data, compacted, when there is any.
func withData(err error, data json.RawMessage) error {
	var b bytes.Buffer
	if len(data) == 0 || string(data) == "null" || json.Compact(&b, data) != nil {
		return err
	}
	return &DataError{Err: err, Data: json.RawMessage(b.Bytes())}
}

// rpcErrorEvents passes an event stream on line by line, and ends it with the agent's error when a data line is a
// JSON-RPC error a2a-go could not read (unreadableRPCError): a2a-go's reader yields the read error, and the agent's
// code, message and data reach the user instead of a decoding failure. Only lines that mention "error" are parsed;
// a line longer than the buffer passes unchecked.
type rpcErrorEvents struct {
	rc      io.ReadCloser
	br      *bufio.Reader
	pending []byte
	long    bool // inside a line longer than the buffer
	err     error
}

func newRPCErrorEvents(rc io.ReadCloser) *rpcErrorEvents {
	return &rpcErrorEvents{rc: rc, br: bufio.NewReaderSize(rc, 64<<10)}
}

func (r *rpcErrorEvents) Read(p []byte) (int, error) {
	for len(r.pending) == 0 {
		if r.err != nil {
			return 0, r.err
		}
		line, err := r.br.ReadSlice('\n')
		full := err == nil
		if err != nil && !errors.Is(err, bufio.ErrBufferFull) {
			r.err = err
		}
		if !r.long && (full || r.err != nil) {
			if derr := dataLineError(line); derr != nil {
				r.err = derr
				return 0, derr
			}
		}
		r.long = !full && r.err == nil
		r.pending = line
	}
	n := copy(p, r.pending)
	r.pending = r.pending[n:]
	return n, nil
}

func (r *rpcErrorEvents) Close() error { return r.rc.Close() }

// dataLineError is the unreadable JSON-RPC error an SSE data line carries, or nil.
func dataLineError(line []byte) error {
	data, ok := bytes.CutPrefix(bytes.TrimRight(line, "\r\n"), []byte("data:"))
	if !ok || !bytes.Contains(data, []byte(`"error"`)) {
		return nil
	}
	return unreadableRPCError(data)
}

// errorAnswer reads a JSON answer with an error status: a JSON-RPC or a2a-js error is returned as the protocol error
// it names; a REST google.rpc.Status with a message goes on to a2a-go, which reads its ErrorInfo; anything else is
// described.
func (a *answerCheck) errorAnswer(resp *http.Response) (*http.Response, error) {
	body, err := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	resp.Body.Close()
	if err != nil {
		return nil, fmt.Errorf("read answer (HTTP %s): %w", resp.Status, err)
	}
	if perr := protocolErrorIn(body, a.jsonrpc); perr != nil {
		return nil, perr
	}
	var status struct {
		Error *struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	if !a.jsonrpc && json.Unmarshal(body, &status) == nil && status.Error != nil && status.Error.Message != "" {
		resp.Body = io.NopCloser(bytes.NewReader(body))
		// a2a-go reads a google.rpc.Status error only under application/json; v1.0 agents (a2a-js 1.x) send it as
		// application/a2a+json, which it would report as a bare "server error".
		resp.Header.Set("Content-Type", "application/json")
		return resp, nil
	}
	return nil, answerErr(resp, body)
}

// protocolErrorIn returns the protocol error a JSON body carries: a JSON-RPC error response (on the JSON-RPC
// binding), or the a2a-js REST shape {"code":…,"message":…}. nil when the body is no such error.
func protocolErrorIn(body []byte, jsonrpc bool) error {
	var doc struct {
		JSONRPC string           `json:"jsonrpc"`
		Error   *json.RawMessage `json:"error"`
		Code    *int             `json:"code"`
		Message string           `json:"message"`
	}
	if json.Unmarshal(body, &doc) != nil {
		return nil
	}
	if jsonrpc && doc.Error != nil {
		var e rpcErrorObject
		if json.Unmarshal(*doc.Error, &e) != nil || e.Code == 0 {
			return nil
		}
		return withData(rpcCodeError(e.Code, e.Message), e.Data)
	}
	if !jsonrpc && doc.Error == nil && doc.Code != nil && doc.Message != "" {
		return rpcCodeError(*doc.Code, doc.Message)
	}
	return nil
}

// rpcCodeError is the A2A error of a JSON-RPC error code, with the agent's message.
func rpcCodeError(code int, msg string) error {
	for _, pe := range ProtocolErrors {
		if pe.Code == code {
			if msg == "" {
				msg = pe.Name
			}
			return a2a.NewError(pe.Err, msg)
		}
	}
	return fmt.Errorf("JSON-RPC error %d: %s", code, msg)
}

// answerError is an answer no binding can read.
type answerError struct {
	status      string
	contentType string
	body        string
}

func (e *answerError) Error() string {
	ct := e.contentType
	if ct == "" {
		ct = "no content type"
	}
	if e.body == "" {
		return fmt.Sprintf("unexpected answer: HTTP %s, %s, empty body", e.status, ct)
	}
	return fmt.Sprintf("unexpected answer: HTTP %s, %s: %q", e.status, ct, e.body)
}

func describeAnswer(resp *http.Response) error {
	defer resp.Body.Close()
	// Read well past the excerpt, so that -v logs the whole of a short page. Best effort: what was read is quoted.
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	return answerErr(resp, body)
}

func answerErr(resp *http.Response, body []byte) error {
	excerpt := body
	if len(excerpt) > bodyExcerpt {
		excerpt = excerpt[:bodyExcerpt]
		for len(excerpt) > 0 && !utf8.Valid(excerpt) {
			excerpt = excerpt[:len(excerpt)-1]
		}
	}
	s := strings.TrimSpace(string(bytes.ToValidUTF8(excerpt, []byte("?"))))
	if len(body) > bodyExcerpt {
		s += "…"
	}
	return &answerError{status: resp.Status, contentType: resp.Header.Get("Content-Type"), body: s}
}

func mediaType(ct string) string {
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil {
		return strings.ToLower(strings.TrimSpace(ct))
	}
	return mt
}

// startsJSON reports whether the buffered body starts (after white space) with a JSON object or array.
func startsJSON(br *bufio.Reader) bool {
	for n := 1; n <= 4096; n++ {
		b, err := br.Peek(n)
		if len(b) < n {
			return false
		}
		c := b[n-1]
		switch c {
		case ' ', '\t', '\r', '\n':
			if err != nil {
				return false
			}
			continue
		case '{', '[':
			return true
		}
		return false
	}
	return false
}

// startsSSE reports whether the buffered body starts with an SSE field or comment line.
func startsSSE(br *bufio.Reader) bool {
	b, _ := br.Peek(6) // fewer bytes only at the end of the body
	for _, field := range []string{"data:", "event:", "id:", "retry:", ":"} {
		if bytes.HasPrefix(b, []byte(field)) {
			return true
		}
	}
	return false
}

type readCloser struct {
	io.Reader
	io.Closer
}

// isRedirect reports an answer http.Client follows by itself.
func isRedirect(resp *http.Response) bool {
	switch resp.StatusCode {
	case http.StatusMovedPermanently, http.StatusFound, http.StatusSeeOther, http.StatusTemporaryRedirect, http.StatusPermanentRedirect:
		return resp.Header.Get("Location") != ""
	}
	return false
}

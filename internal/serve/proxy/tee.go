package proxy

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/url"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/errordetails"
)

// Bounds of what the fast path keeps to describe an answer in the log.
const (
	maxPeekBody = 1 << 20 // of a unary answer
	maxScanLine = 64 << 10
)

// fastCall is one request on the fast path. Everything runs on the request's goroutine.
type fastCall struct {
	f      *bytePath
	front  Route
	in     *http.Request
	body   []byte
	up     *upstream
	target *url.URL

	rec       *Call // nil when the log is quiet
	status    int
	unary     bool   // the answer goes through a unaryTee
	resp      []byte // the start of a unary answer
	err       error  // the call failed: upstream unreachable or cut off
	errMsg    string // the upstream answered with an error
	handedOff bool   // the A2A handler answered (and logged) the call

	peeked bool
	req    peekRequest
}

// peek decodes the few fields of a JSON-RPC request the proxy needs, once.
func (c *fastCall) peek() *peekRequest {
	if !c.peeked {
		c.peeked = true
		_ = json.Unmarshal(c.body, &c.req) // a body that does not decode leaves the fields empty
	}
	return &c.req
}

func (c *fastCall) rpc() bool { return c.front.Binding.Protocol == a2a.TransportProtocolJSONRPC }

// begin starts the call's log line.
func (c *fastCall) begin() {
	if !c.f.log.Records() {
		return
	}
	method, taskID := c.front.Method, c.front.TaskID
	if c.front.Kind == A2A && c.rpc() {
		req := c.peek()
		method, taskID = c.f.routes.RPCMethod(req.Method), req.taskID()
	}
	c.rec = c.f.log.Begin(c.in, c.front, method, taskID, c.body)
}

// logRequest logs the request when verbose, once the proxy answers it itself: a call handed to
// the A2A handler is logged there.
func (c *fastCall) logRequest() {
	if c.rec == nil || !c.f.log.Verbose() {
		return
	}
	payload := c.in.Method + " " + c.in.URL.RequestURI()
	if len(c.body) > 0 {
		payload = rawPayload(c.body)
	}
	c.f.log.Printf("%s params:%s\n  > %s\n", c.rec.Method, formatParams(c.in.Header), payload)
}

// finish writes the log line; the answer is flushed to the caller first.
func (c *fastCall) finish(w http.ResponseWriter) {
	if c.rec == nil {
		return
	}
	if c.handedOff {
		c.f.log.HandOff(c.rec) // the A2A handler records the call itself
		return
	}
	if c.unary && c.err == nil {
		_ = http.NewResponseController(w).Flush() // a caller gone away is no matter for the log
		id, state, msg := scanUnary(c.rpc(), c.status, c.resp)
		if id != "" {
			c.rec.ID = id
		}
		c.rec.State, c.errMsg = state, msg
		c.rec.Events = 1
		if c.f.log.Verbose() && len(c.resp) > 0 {
			c.f.log.Printf("  < %s\n", rawPayload(c.resp))
		}
		if c.rec.Watched && len(c.resp) > 0 {
			c.f.log.Event(c.rec, c.resp) // the call is over: nothing writes to it any more
		}
	}
	err := c.err
	if err == nil && c.errMsg != "" {
		err = errors.New(c.errMsg)
	}
	c.f.log.End(c.rec, err)
}

// replay is the original request again, with ctx and a fresh copy of its body.
func (c *fastCall) replay(ctx context.Context) *http.Request {
	r := c.in.WithContext(ctx)
	r.Body = http.NoBody
	if c.body != nil {
		r.Body = io.NopCloser(bytes.NewReader(c.body))
	}
	return r
}

// unreachable answers a call while the upstream cannot be connected to.
func (c *fastCall) unreachable(w http.ResponseWriter, err error) {
	if c.front.Kind != A2A {
		c.begin()
		defer c.finish(w)
	}
	c.answerFailure(w, err)
}

// answerFailure answers a call that reached no upstream, in the caller's binding: an A2A call
// goes to the A2A handler, which answers it with err (and logs it); another path gets a
// google.rpc.Status-style JSON error.
func (c *fastCall) answerFailure(w http.ResponseWriter, err error) {
	if c.front.Kind == A2A {
		c.handedOff = true
		c.f.next.ServeHTTP(w, c.replay(context.WithValue(c.in.Context(), upstreamErrKey{}, err)))
		return
	}
	c.err = err
	c.logRequest()
	writeJSON(w, http.StatusServiceUnavailable, statusJSON(http.StatusServiceUnavailable, "UNAVAILABLE", err.Error()))
}

// upstreamError is what the caller is told when the upstream fails: after a transport failure
// the upstream is forgotten, so that the next call reconnects and re-reads its card.
func (c *fastCall) upstreamError(err error) error {
	if c.f.p.base.Err() != nil {
		return a2a.NewError(a2a.ErrServerError, "proxy is shutting down")
	}
	c.f.p.drop(c.up.client)
	return a2a.NewError(a2a.ErrServerError, "upstream: "+err.Error())
}

// errorEvent is the SSE event that ends a stream whose upstream failed, in the caller's binding.
func (c *fastCall) errorEvent(msg string) []byte {
	var body []byte
	if c.rpc() {
		id := c.peek().ID
		if len(id) == 0 {
			id = json.RawMessage("null")
		}
		body, _ = json.Marshal(map[string]any{ // cannot fail: plain values
			"jsonrpc": "2.0", "id": id, "error": map[string]any{"code": -32000, "message": msg},
		})
	} else {
		body = statusJSON(http.StatusInternalServerError, "INTERNAL", msg)
	}
	return append(append([]byte("data: "), body...), "\n\n"...)
}

// statusJSON is a google.rpc.Status error body as A2A's REST binding writes them.
func statusJSON(code int, status, msg string) []byte {
	b, _ := json.Marshal(map[string]any{ // cannot fail: plain values
		"error": map[string]any{
			"code": code, "status": status, "message": msg,
			"details": []any{map[string]any{
				"@type": errordetails.ErrorInfoType, "reason": a2a.ErrorReason(a2a.ErrServerError), "domain": a2a.ProtocolDomain,
			}},
		},
	})
	return b
}

// unaryTee counts a unary answer and keeps its start for the log line.
type unaryTee struct {
	rc io.ReadCloser
	c  *fastCall
}

func (t *unaryTee) Read(p []byte) (int, error) {
	n, err := t.rc.Read(p)
	c := t.c
	c.rec.Bytes += n
	if room := maxPeekBody - len(c.resp); room > 0 && n > 0 {
		c.resp = append(c.resp, p[:min(n, room)]...)
	}
	switch {
	case err == nil || err == io.EOF:
	case c.in.Context().Err() != nil:
		c.err = err // the caller went away (the traffic log says so): the upstream did nothing wrong
	default:
		c.err = c.upstreamError(err)
	}
	return n, err
}

func (t *unaryTee) Close() error { return t.rc.Close() }

// sseTee passes a stream through as it arrives, scanning each event's data line for the log,
// and ends the stream with an error event in the caller's binding when the upstream fails.
type sseTee struct {
	rc    io.ReadCloser
	c     *fastCall
	line  []byte // the start of the line being read
	tail  []byte // the error event still to hand out
	ended bool
}

func (t *sseTee) Read(p []byte) (int, error) {
	if len(t.tail) > 0 {
		n := copy(p, t.tail)
		t.tail = t.tail[n:]
		return n, nil
	}
	if t.ended {
		return 0, io.EOF
	}
	n, err := t.rc.Read(p)
	if t.c.rec != nil {
		t.c.rec.Bytes += n
		t.scan(p[:n])
	}
	if err == nil || err == io.EOF {
		return n, err
	}
	t.ended = true
	if t.c.in.Context().Err() != nil {
		return n, err // the caller went away: nobody to tell
	}
	t.c.err = t.c.upstreamError(err)
	if len(t.line) > 0 {
		t.tail = []byte("\n\n") // end the event cut off
	}
	t.tail = append(t.tail, t.c.errorEvent(t.c.err.Error())...)
	return n, nil
}

func (t *sseTee) Close() error { return t.rc.Close() }

// scan feeds complete lines to event, keeping at most maxScanLine bytes of a line.
func (t *sseTee) scan(b []byte) {
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		chunk := b
		if i >= 0 {
			chunk = b[:i]
		}
		if room := maxScanLine - len(t.line); room > 0 {
			t.line = append(t.line, chunk[:min(len(chunk), room)]...)
		}
		if i < 0 {
			return
		}
		t.event(bytes.TrimSuffix(t.line, []byte("\r")))
		t.line, b = t.line[:0], b[i+1:]
	}
}

// event records one data line.
func (t *sseTee) event(line []byte) {
	data, ok := bytes.CutPrefix(line, []byte("data:"))
	if !ok {
		return
	}
	data = bytes.TrimPrefix(data, []byte(" "))
	rec := t.c.rec
	rec.Events++
	id, state, msg := scanEvent(data)
	if id != "" {
		rec.ID = id
	}
	if state != "-" {
		rec.State = state
	}
	if msg != "" {
		t.c.errMsg = msg
	}
	if t.c.f.log.Verbose() {
		t.c.f.log.Printf("  < %s\n", rawPayload(data))
	}
	if rec.Watched {
		t.c.f.log.Event(rec, bytes.Clone(data))
	}
}

func writeJSON(w http.ResponseWriter, code int, body []byte) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_, _ = w.Write(body) // the client went away: nothing to do
}

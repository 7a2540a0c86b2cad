package client

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"net/http"
	"net/url"
	"strings"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2acompat/a2av0"

	legacy "github.com/a2aproject/a2a-go/a2a"
)

// Slash commands of coding agents travel beside the A2A protocol: the RFC's JSON-RPC methods commands/get and
// command/execute on the agent's JSON-RPC endpoint, or the Gemini CLI server's GET /listCommands and
// POST /executeCommand on its host. Both go through the process's one HTTP client with the same headers as every
// other request (and -v logging).

const MaxCommandBody = 64 << 20

// rpcError is a JSON-RPC error answer. It unwraps to the A2A error of the same code, so it classifies like one.
type rpcError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

func (e *rpcError) Error() string { return fmt.Sprintf("JSON-RPC error %d: %s", e.Code, e.Message) }

func (e *rpcError) Unwrap() error {
	for _, pe := range ProtocolErrors {
		if pe.Code == e.Code {
			return pe.Err
		}
	}
	return nil
}

// ErrNoCommands says the agent offers no slash commands in a shape we know.
var ErrNoCommands = errors.New("the agent offers no slash commands (neither commands/get nor /listCommands)")

// MethodMissing reports whether err says the agent lacks a JSON-RPC method (or the endpoint).
func MethodMissing(err error) bool {
	var re *rpcError
	var he *HTTPError
	return errors.As(err, &re) && re.Code == -32601 || errors.As(err, &he) && (he.Code == http.StatusNotFound || he.Code == http.StatusMethodNotAllowed)
}

// HTTPError is a non-2xx answer of a plain HTTP call.
type HTTPError struct {
	Code int
	Msg  string
}

func (e *HTTPError) Error() string { return fmt.Sprintf("HTTP %d: %s", e.Code, e.Msg) }

// SpeaksJSONRPC reports whether the chosen interface is JSON-RPC: only there can the RFC's methods live.
func (c *Conn) SpeaksJSONRPC() bool {
	return c.Iface != nil && c.Iface.ProtocolBinding == a2a.TransportProtocolJSONRPC
}

// RPC calls a JSON-RPC method on the agent's endpoint, bounded by --timeout, and returns its result.
func (c *Conn) RPC(ctx context.Context, method string, params any) (json.RawMessage, error) {
	body, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
	if err != nil {
		return nil, fmt.Errorf("encode %s: %w", method, err)
	}
	raw, _, err := c.HTTPCall(ctx, http.MethodPost, c.Iface.URL, body)
	if err != nil {
		return nil, err
	}
	var resp struct {
		Result json.RawMessage `json:"result"`
		Error  *rpcError       `json:"error"`
	}
	if err := json.Unmarshal(raw, &resp); err != nil {
		return nil, fmt.Errorf("decode %s answer: %w", method, err)
	}
	if resp.Error != nil {
		return nil, resp.Error
	}
	return resp.Result, nil
}

// HTTPCall makes one plain HTTP call bounded by --timeout and returns the whole body and its content type.
func (c *Conn) HTTPCall(ctx context.Context, method, u string, body []byte) ([]byte, string, error) {
	cctx, cancel := c.callContext(ctx)
	defer cancel()
	resp, err := c.Do(cctx, method, u, body)
	if err != nil {
		return nil, "", TimeoutCause(cctx, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, MaxCommandBody))
	if err != nil {
		return nil, "", TimeoutCause(cctx, fmt.Errorf("read %s: %w", u, err))
	}
	if resp.StatusCode/100 != 2 {
		return nil, "", &HTTPError{Code: resp.StatusCode, Msg: ErrorText(raw, resp.Status)}
	}
	return raw, resp.Header.Get("Content-Type"), nil
}

// Do sends a request with the command's headers; the caller closes the body.
func (c *Conn) Do(ctx context.Context, method, u string, body []byte) (*http.Response, error) {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, u, rd)
	if err != nil {
		return nil, fmt.Errorf("build request: %w", err)
	}
	for k, vs := range c.Params {
		for _, v := range vs {
			req.Header.Add(k, v)
		}
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("Accept", "application/json, text/event-stream")
	return c.HC.Do(req)
}

// ErrorText is the agent's own error message from a JSON body ({"error":"…"} or {"error":{"message":"…"}}).
func ErrorText(raw []byte, status string) string {
	var v struct {
		Error json.RawMessage `json:"error"`
	}
	if json.Unmarshal(raw, &v) == nil && v.Error != nil {
		var s string
		if json.Unmarshal(v.Error, &s) == nil {
			return s
		}
		var m struct{ Message string }
		if json.Unmarshal(v.Error, &m) == nil && m.Message != "" {
			return m.Message
		}
	}
	if t := strings.TrimSpace(string(bytes.ToValidUTF8(raw, nil))); t != "" && len(t) < 300 {
		return t
	}
	return status
}

// HostURL is path on the host of the agent's endpoint, where the Gemini CLI server has its own endpoints.
func (c *Conn) HostURL(path string) string {
	base := c.Iface.URL
	if c.Ref != nil && c.Ref.Base != nil && base == "" {
		base = c.Ref.Base.String()
	}
	u, err := url.Parse(base)
	if err != nil {
		return path
	}
	return (&url.URL{Scheme: u.Scheme, Host: u.Host, Path: path}).String()
}

// SSEEvents reads an SSE body of JSON-RPC answers (or bare events) in the v0.3 or v1 shape, to its end.
func SSEEvents(body io.Reader) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {
		sc := bufio.NewScanner(body)
		sc.Buffer(make([]byte, 0, 64<<10), MaxCommandBody)
		var data bytes.Buffer
		for more := true; more; {
			more = sc.Scan()
			line := sc.Bytes()
			if more && len(line) > 0 {
				if d, ok := bytes.CutPrefix(line, []byte("data:")); ok {
					if data.Len() > 0 {
						data.WriteByte('\n')
					}
					data.Write(bytes.TrimPrefix(d, []byte(" ")))
				}
				continue
			}
			if data.Len() == 0 {
				continue
			}
			ev, err := DecodeEvent(data.Bytes())
			data.Reset()
			if !yield(ev, err) || err != nil {
				return
			}
		}
		if err := sc.Err(); err != nil {
			yield(nil, fmt.Errorf("read event stream: %w", err))
		}
	}
}

// DecodeEvent reads one event: a JSON-RPC envelope or a bare event, v0.3 (kind) or v1 (StreamResponse) JSON.
func DecodeEvent(raw []byte) (a2a.Event, error) {
	var env struct {
		Result json.RawMessage `json:"result"`
		Error  *rpcError       `json:"error"`
	}
	if json.Unmarshal(raw, &env) == nil {
		if env.Error != nil {
			return nil, env.Error
		}
		if env.Result != nil {
			raw = env.Result
		}
	}
	if old, err := legacy.UnmarshalEventJSON(raw); err == nil {
		if ev, err := a2av0.ToV1Event(old); err == nil {
			return ev, nil
		}
	}
	var sr a2a.StreamResponse
	if err := json.Unmarshal(raw, &sr); err != nil || sr.Event == nil {
		return nil, fmt.Errorf("decode event: not an A2A event: %.200s", raw)
	}
	return sr.Event, nil
}

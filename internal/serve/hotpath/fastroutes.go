package hotpath

import (
	"context"
	"encoding/json"
	"iter"
	"net/http"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv"
)

// REST serves POST /message:send, POST /message:stream and /tasks/{id}:subscribe of the
// plain (untenanted) v1.0 REST binding; the rest goes to the a2asrv REST handler built on h.
// d (nil: none) detaches streams from net/http; refuse answers a stream refused before its first event.
func REST(h a2asrv.RequestHandler, d *Detacher, refuse Refusal) http.Handler {
	f := &server{h: h, fallback: a2asrv.NewRESTHandler(h), handover: newREST, detach: d, refuse: refuse}
	return http.HandlerFunc(f.serveREST)
}

func (f *server) serveREST(w http.ResponseWriter, r *http.Request) {
	_, flusher := w.(http.Flusher)
	if !flusher || r.URL.RawPath != "" {
		f.fallback.ServeHTTP(w, r)
		return
	}
	switch {
	case r.Method == http.MethodPost && (r.URL.Path == "/message:send" || r.URL.Path == "/message:stream"):
		body, ok := slurpBody(r)
		var req *a2a.SendMessageRequest
		if ok {
			req, ok = decodeSend(body)
		}
		if !ok {
			f.handOverRaw(w, r, body)
			return
		}
		if r.URL.Path == "/message:stream" {
			f.serveStream(w, r, body, func(ctx context.Context) iter.Seq2[a2a.Event, error] {
				return f.h.SendStreamingMessage(ctx, req)
			}, appendStreamResponse)
			return
		}
		ctx, cancel := context.WithCancel(callContext(r.Context(), r.Header))
		defer cancel()
		res, err := f.h.SendMessage(ctx, req)
		f.answer(w, r, body, res, err, appendStreamResponse)
		return
	case r.Method == http.MethodGet || r.Method == http.MethodPost:
		id, ok := subscribeID(r.URL.Path)
		if !ok {
			break
		}
		body, ok := slurpBody(r)
		if !ok {
			f.handOverRaw(w, r, body)
			return
		}
		f.serveStream(w, r, body, func(ctx context.Context) iter.Seq2[a2a.Event, error] {
			return f.h.SubscribeToTask(ctx, &a2a.SubscribeToTaskRequest{ID: a2a.TaskID(id)})
		}, appendStreamResponse)
		return
	}
	f.fallback.ServeHTTP(w, r)
}

// handOverRaw gives a request the fast path did not call to the fallback handler.
func (f *server) handOverRaw(w http.ResponseWriter, r *http.Request, body []byte) {
	f.fallback.ServeHTTP(w, withBody(r, body))
}

// rpcRequest is a JSON-RPC 2.0 request as a2asrv reads it.
type rpcRequest struct {
	JSONRPC string          `json:"jsonrpc"`
	Method  string          `json:"method"`
	Params  json.RawMessage `json:"params,omitempty"`
	ID      any             `json:"id"`
}

// JSONRPC serves the v1.0 JSON-RPC methods SendMessage, SendStreamingMessage and
// SubscribeToTask; the rest goes to the a2asrv JSON-RPC handler built on h.
// d and refuse as for REST.
func JSONRPC(h a2asrv.RequestHandler, d *Detacher, refuse Refusal) http.Handler {
	f := &server{h: h, fallback: a2asrv.NewJSONRPCHandler(h), handover: newJSONRPC, detach: d, refuse: refuse}
	return http.HandlerFunc(f.serveJSONRPC)
}

func (f *server) serveJSONRPC(w http.ResponseWriter, r *http.Request) {
	_, flusher := w.(http.Flusher)
	if !flusher || r.Method != http.MethodPost {
		f.fallback.ServeHTTP(w, r)
		return
	}
	body, ok := slurpBody(r)
	var env rpcRequest
	var id []byte
	if ok {
		env, id, ok = decodeRPC(body)
	}
	if !ok {
		f.handOverRaw(w, r, body)
		return
	}
	enc := func(b []byte, ev a2a.Event) ([]byte, error) {
		b = append(b, `{"jsonrpc":"2.0","id":`...)
		b = append(b, id...)
		b = append(b, `,"result":`...)
		b, err := appendStreamResponse(b, ev)
		return append(b, '}'), err
	}
	switch env.Method {
	case "SendMessage", "SendStreamingMessage":
		var req a2a.SendMessageRequest
		if json.Unmarshal(env.Params, &req) != nil {
			break
		}
		if env.Method == "SendMessage" {
			ctx, cancel := context.WithCancel(callContext(r.Context(), r.Header))
			defer cancel()
			res, err := f.h.SendMessage(ctx, &req)
			f.answer(w, r, body, res, err, enc)
		} else {
			f.serveStream(w, r, body, func(ctx context.Context) iter.Seq2[a2a.Event, error] {
				return f.h.SendStreamingMessage(ctx, &req)
			}, enc)
		}
		return
	case "SubscribeToTask":
		var req a2a.SubscribeToTaskRequest
		if json.Unmarshal(env.Params, &req) != nil {
			break
		}
		f.serveStream(w, r, body, func(ctx context.Context) iter.Seq2[a2a.Event, error] {
			return f.h.SubscribeToTask(ctx, &req)
		}, enc)
		return
	}
	f.handOverRaw(w, r, body)
}

// decodeRPC decodes a JSON-RPC request and encodes its id back; false when a2asrv would answer
// with an error.
func decodeRPC(body []byte) (rpcRequest, []byte, bool) {
	var env rpcRequest
	if json.Unmarshal(body, &env) != nil || env.JSONRPC != "2.0" {
		return env, nil, false
	}
	switch env.ID.(type) {
	case nil, string, float64:
	default:
		return env, nil, false
	}
	id, err := json.Marshal(env.ID)
	return env, id, err == nil
}

func newREST(h a2asrv.RequestHandler) http.Handler    { return a2asrv.NewRESTHandler(h) }
func newJSONRPC(h a2asrv.RequestHandler) http.Handler { return a2asrv.NewJSONRPCHandler(h) }

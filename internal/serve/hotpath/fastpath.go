package hotpath

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"io"
	"iter"
	mrand "math/rand/v2"
	"net/http"
	"strings"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv"
)

// server serves the hot v1.0 calls of the task-keeping backends (send, stream, subscribe) with
// the encoder of wire.go instead of a2asrv's json.Marshal, writing the same bytes. The call still
// goes through the intercepted handler, so interceptors, service parameters and the traffic log
// see it as before. Whatever it does not take (other calls, odd paths, requests it cannot
// decode), and every error but a stream's refusal before its first event (see stream), goes to
// a2asrv's own handler: an error already produced by the call is handed to an a2asrv handler built
// over the call's outcome (see stashing), so the call runs once and the error reads exactly as
// a2a-go writes it.
type server struct {
	h        a2asrv.RequestHandler
	fallback http.Handler                               // a2asrv's handler over h
	handover func(h a2asrv.RequestHandler) http.Handler // builds a2asrv's handler (REST or JSON-RPC) over h
	detach   *Detacher                                  // nil: streams stay on net/http's goroutine
	refuse   Refusal                                    // answers a stream refused before its first event
}

// Refusal writes the answer to a streaming call refused before its first event (a task that ended,
// one not found) as the binding answers a unary call's error; body is the request's body (a
// JSON-RPC answer carries its id). The caller owns the error format (serve's conform.go). A nil
// Refusal leaves the answer to a2asrv: an event stream of one error event.
type Refusal func(w http.ResponseWriter, body []byte, err error)

// stash carries what the fast path's call produced to the a2asrv handler that reports it.
type stash struct {
	result a2a.SendMessageResult
	err    error
	rest   iter.Seq2[a2a.Event, error]
}

// stashing is the handler an a2asrv handler is built over to report a call the fast path already
// made: the hot calls return the stashed outcome instead of running again (a2asrv calls exactly one
// of them per request), every other method is h's.
type stashing struct {
	a2asrv.RequestHandler
	st *stash
}

// SendMessage implements a2asrv.RequestHandler.
func (s stashing) SendMessage(context.Context, *a2a.SendMessageRequest) (a2a.SendMessageResult, error) {
	return s.st.result, s.st.err
}

// SendStreamingMessage implements a2asrv.RequestHandler.
func (s stashing) SendStreamingMessage(context.Context, *a2a.SendMessageRequest) iter.Seq2[a2a.Event, error] {
	return s.st.rest
}

// SubscribeToTask implements a2asrv.RequestHandler.
func (s stashing) SubscribeToTask(context.Context, *a2a.SubscribeToTaskRequest) iter.Seq2[a2a.Event, error] {
	return s.st.rest
}

// handOver lets an a2asrv handler over the stashed outcome st answer r (its body restored). The
// handler is built per call: only errors and events that do not encode take this way. After the
// response has started, the fallback's second WriteHeader is dropped and its bytes follow ours, as
// when a2asrv writes a stream's error event.
func (f *server) handOver(w http.ResponseWriter, r *http.Request, body []byte, st *stash, started bool) {
	if started {
		w = &startedWriter{w}
	}
	f.handover(stashing{RequestHandler: f.h, st: st}).ServeHTTP(w, withBody(r, body))
}

// withBody returns r reading body again.
func withBody(r *http.Request, body []byte) *http.Request {
	r2 := *r
	r2.Body = io.NopCloser(bytes.NewReader(body))
	return &r2
}

// one is the sequence of a single item.
func one(ev a2a.Event, err error) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) { yield(ev, err) }
}

// startedWriter ignores WriteHeader: the response has already started.
type startedWriter struct{ http.ResponseWriter }

func (w *startedWriter) WriteHeader(int) {}

// Flush implements http.Flusher.
func (w *startedWriter) Flush() { http.NewResponseController(w.ResponseWriter).Flush() }

// Unwrap lets http.ResponseController reach the underlying writer.
func (w *startedWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// encodeFunc appends the JSON body of one event (a stream frame or a unary answer).
type encodeFunc func(b []byte, ev a2a.Event) ([]byte, error)

// answer answers a SendMessage call: the result, encoded by enc, and a newline.
func (f *server) answer(w http.ResponseWriter, r *http.Request, body []byte, res a2a.SendMessageResult, err error, enc encodeFunc) {
	if err != nil {
		f.handOver(w, r, body, &stash{err: err}, false)
		return
	}
	out, encErr := enc(make([]byte, 0, 512), res)
	if encErr != nil {
		f.handOver(w, r, body, &stash{result: res}, false)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(append(out, '\n'))
}

// serveStream serves a streaming call: on a connection of its own when it can (see Detacher), else
// on the handler's goroutine.
func (f *server) serveStream(w http.ResponseWriter, r *http.Request, body []byte, call streamCall, enc encodeFunc) {
	if f.detach.stream(f, w, r, body, call, enc) {
		return
	}
	ctx, cancel := context.WithCancel(callContext(r.Context(), r.Header))
	defer cancel()
	f.stream(w, r, body, call(ctx), enc)
}

// stream writes the events of seq as SSE frames, framed as a2a-go's sse writer frames them.
// An error before the first event is answered as a unary call's error (f.refuse); a later
// one (or an event that does not encode) goes to the fallback handler, which writes it as a2a-go
// does and ends the stream.
func (f *server) stream(w http.ResponseWriter, r *http.Request, body []byte, seq iter.Seq2[a2a.Event, error], enc encodeFunc) {
	fl, _ := w.(http.Flusher)
	ids := newEventIDs()
	started := false
	for ev, err := range seq {
		if err != nil && !started {
			// A call refused before its stream starts (a task that ended, one not found) is answered as a
			// unary call is, not as a stream of one error event: clients see the error at once.
			if f.refuse != nil {
				f.refuse(w, body, err)
				return
			}
			f.handOver(w, r, body, &stash{rest: one(nil, err)}, false)
			return
		}
		if err != nil {
			f.handOver(w, r, body, &stash{rest: one(nil, err)}, started)
			return
		}
		buf := append(getBuf(), "id: "...) // pooled: a stream waiting for its next event holds no buffer
		buf = ids.append(buf)
		buf = append(buf, "\ndata: "...)
		if buf, err = enc(buf, ev); err != nil {
			putBuf(buf)
			f.handOver(w, r, body, &stash{rest: one(ev, nil)}, started)
			return
		}
		if !started {
			h := w.Header()
			h.Set("Content-Type", "text/event-stream")
			h.Set("Cache-Control", "no-cache")
			h.Set("Connection", "keep-alive")
			h.Set("X-Accel-Buffering", "no")
			w.WriteHeader(http.StatusOK)
			started = true
		}
		buf = append(buf, '\n', '\n')
		_, err = w.Write(buf)
		putBuf(buf)
		if err != nil {
			return
		}
		fl.Flush()
	}
}

// eventIDs makes the random version 4 UUIDs that name SSE events, from a generator seeded once
// per stream rather than reading the system's random source for every event.
type eventIDs struct{ r *mrand.ChaCha8 }

func newEventIDs() eventIDs {
	var seed [32]byte
	_, _ = rand.Read(seed[:])
	return eventIDs{mrand.NewChaCha8(seed)}
}

func (e eventIDs) append(b []byte) []byte {
	var u [16]byte
	_, _ = e.r.Read(u[:])
	u[6] = u[6]&0x0f | 0x40
	u[8] = u[8]&0x3f | 0x80
	for i, c := range u {
		if i == 4 || i == 6 || i == 8 || i == 10 {
			b = append(b, '-')
		}
		b = append(b, hexDigits[c>>4], hexDigits[c&0xf])
	}
	return b
}

// slurpBody reads the request body; false when it cannot be read.
func slurpBody(r *http.Request) ([]byte, bool) {
	body, err := io.ReadAll(r.Body)
	return body, err == nil
}

// callContext is the context a2asrv's transports give a call with request headers h.
func callContext(ctx context.Context, h http.Header) context.Context {
	ctx, _ = a2asrv.NewCallContext(ctx, a2asrv.NewServiceParams(h))
	return ctx
}

// subscribeID returns the task id of a REST subscribe path ("/tasks/ID:subscribe").
func subscribeID(path string) (string, bool) {
	rest, ok := strings.CutPrefix(path, "/tasks/")
	if !ok {
		return "", false
	}
	id, ok := strings.CutSuffix(rest, ":subscribe")
	return id, ok && id != "" && !strings.Contains(id, "/")
}

// decodeSend decodes a SendMessageRequest as a2asrv does; false sends the request to a2asrv.
func decodeSend(body []byte) (*a2a.SendMessageRequest, bool) {
	var req a2a.SendMessageRequest
	if err := json.Unmarshal(body, &req); err != nil {
		return nil, false
	}
	return &req, true
}

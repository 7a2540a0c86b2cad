package serve

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

// hotPath serves the hot v1.0 calls of the task-keeping backends (send, stream, subscribe) with
// the encoder of wire.go instead of a2asrv's json.Marshal, writing the same bytes. The call still
// goes through the intercepted handler, so interceptors, service parameters and the traffic log
// see it as before. Whatever it does not take (other calls, odd paths, requests it cannot
// decode), and every error but a stream's refusal before its first event (see stream), goes to
// a2asrv's own handler: an error already produced by the call is handed over through the request
// context (see stashing), so the call runs once and the error reads exactly as a2a-go writes it.
type hotPath struct {
	h        a2asrv.RequestHandler
	fallback http.Handler
	detach   *detacher // nil: streams stay on net/http's goroutine
	binding  frontKey  // what a stream refused before its first event answers in (conform.go)
}

// stash carries what the fast path's call produced to the a2asrv handler that reports it.
type stash struct {
	result a2a.SendMessageResult
	err    error
	rest   iter.Seq2[a2a.Event, error]
}

type stashKey struct{}

// stashing is the handler given to a2asrv when the fast path is on: a call whose outcome is
// stashed in the context returns it instead of running again.
type stashing struct{ a2asrv.RequestHandler }

func stashFrom(ctx context.Context) *stash {
	s, _ := ctx.Value(stashKey{}).(*stash)
	return s
}

// SendMessage implements a2asrv.RequestHandler.
func (s stashing) SendMessage(ctx context.Context, req *a2a.SendMessageRequest) (a2a.SendMessageResult, error) {
	if st := stashFrom(ctx); st != nil {
		return st.result, st.err
	}
	return s.RequestHandler.SendMessage(ctx, req)
}

// SendStreamingMessage implements a2asrv.RequestHandler.
func (s stashing) SendStreamingMessage(ctx context.Context, req *a2a.SendMessageRequest) iter.Seq2[a2a.Event, error] {
	if st := stashFrom(ctx); st != nil {
		return st.rest
	}
	return s.RequestHandler.SendStreamingMessage(ctx, req)
}

// SubscribeToTask implements a2asrv.RequestHandler.
func (s stashing) SubscribeToTask(ctx context.Context, req *a2a.SubscribeToTaskRequest) iter.Seq2[a2a.Event, error] {
	if st := stashFrom(ctx); st != nil {
		return st.rest
	}
	return s.RequestHandler.SubscribeToTask(ctx, req)
}

// handOver lets the fallback handler answer r (its body restored), with st in its context.
// After the response has started, the fallback's second WriteHeader is dropped and its bytes
// follow ours, as when a2asrv writes a stream's error event.
func (f *hotPath) handOver(w http.ResponseWriter, r *http.Request, body []byte, st *stash, started bool) {
	r = withBody(r.WithContext(context.WithValue(r.Context(), stashKey{}, st)), body)
	if started {
		w = &startedWriter{w}
	}
	f.fallback.ServeHTTP(w, r)
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

// unary answers a SendMessage call: the result, encoded by enc, and a newline.
func (f *hotPath) unary(w http.ResponseWriter, r *http.Request, body []byte, res a2a.SendMessageResult, err error, enc encodeFunc) {
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

// serveStream serves a streaming call: on a connection of its own when it can (see detacher), else
// on the handler's goroutine.
func (f *hotPath) serveStream(w http.ResponseWriter, r *http.Request, body []byte, call streamCall, enc encodeFunc) {
	if f.detach.stream(f, w, r, body, call, enc) {
		return
	}
	ctx, cancel := context.WithCancel(callContext(r.Context(), r.Header))
	defer cancel()
	f.stream(w, r, body, call(ctx), enc)
}

// stream writes the events of seq as SSE frames, framed as a2a-go's sse writer frames them.
// An error before the first event is answered as a unary call's error (writeBindingError); a later
// one (or an event that does not encode) goes to the fallback handler, which writes it as a2a-go
// does and ends the stream.
func (f *hotPath) stream(w http.ResponseWriter, r *http.Request, body []byte, seq iter.Seq2[a2a.Event, error], enc encodeFunc) {
	fl, _ := w.(http.Flusher)
	ids := newEventIDs()
	started := false
	for ev, err := range seq {
		if err != nil && !started {
			// A call refused before its stream starts (a task that ended, one not found) is answered as a
			// unary call is, not as a stream of one error event: clients see the error at once.
			writeBindingError(w, f.binding, rpcID(body), err)
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

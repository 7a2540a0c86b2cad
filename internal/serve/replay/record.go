package replay

import (
	"context"
	"encoding/json"
	"io"
	"iter"
	"sync"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv"

	"github.com/a2acli/a2a/internal/serve"
)

// Record wraps a backend (normally Proxy) so that the traffic it serves is written to w as a
// recording Replay can serve: the message of every SendMessage and SendStreamingMessage call as a
// user-role message line, then every event answered, one a2a.StreamResponse per line. Each line is
// written whole with one Write, so concurrent calls never split lines; a file meant for replay
// should still record one session at a time, since lines of concurrent sessions interleave.
func Record(b serve.Backend, w io.Writer) serve.Backend {
	return recordBackend{next: b, w: &recordWriter{w: w}}
}

type recordBackend struct {
	next serve.Backend
	w    *recordWriter
}

func (rb recordBackend) Setup(e *serve.Env) (*serve.Parts, error) {
	rec := *e
	rec.Recording = true // the recorder needs the events: a proxy's A2A calls take the decoding path
	parts, err := rb.next.Setup(&rec)
	if err != nil {
		return nil, err
	}
	parts.Handler = &recorder{RequestHandler: parts.Handler, w: rb.w}
	parts.FastPath, parts.DetachStreams = false, false // the recorder is no task handler: as before, calls reach it through a2asrv
	return parts, nil
}

// recordWriter writes whole JSON lines under a lock; after the first error it stops writing.
type recordWriter struct {
	mu  sync.Mutex
	w   io.Writer
	err error
}

func (l *recordWriter) event(ev a2a.Event) {
	b, err := json.Marshal(a2a.StreamResponse{Event: ev})
	if err != nil {
		return
	}
	b = append(b, '\n')
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.err == nil {
		_, l.err = l.w.Write(b)
	}
}

// user writes the caller's message as a user-role message line.
func (l *recordWriter) user(m *a2a.Message) {
	if m == nil {
		return
	}
	c := *m
	c.Role = a2a.MessageRoleUser
	l.event(&c)
}

// recorder is the request handler that records what passes through it.
type recorder struct {
	a2asrv.RequestHandler
	w *recordWriter
}

// SendMessage implements a2asrv.RequestHandler.
func (r *recorder) SendMessage(ctx context.Context, req *a2a.SendMessageRequest) (a2a.SendMessageResult, error) {
	if req != nil {
		r.w.user(req.Message)
	}
	res, err := r.RequestHandler.SendMessage(ctx, req)
	if err == nil && res != nil {
		r.w.event(res)
	}
	return res, err
}

// SendStreamingMessage implements a2asrv.RequestHandler.
func (r *recorder) SendStreamingMessage(ctx context.Context, req *a2a.SendMessageRequest) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {
		if req != nil {
			r.w.user(req.Message)
		}
		for ev, err := range r.RequestHandler.SendStreamingMessage(ctx, req) {
			if err == nil && ev != nil {
				r.w.event(ev)
			}
			if !yield(ev, err) {
				return
			}
		}
	}
}

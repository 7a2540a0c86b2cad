package traffic

import (
	"context"
	"encoding/json"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv"
	"google.golang.org/grpc"
)

// Observer watches every call the traffic log describes, even with a quiet log. Its methods run on the call's
// own goroutine: they must return at once and never block on a reader.
type Observer interface {
	// Begin is called when a call starts; the CallWatch it returns (nil: not interested) follows the call.
	Begin(CallStart) CallWatch
}

// CallWatch follows one call.
type CallWatch interface {
	// Event is one answer or stream event as JSON: an a2a.StreamResponse (a Task, a list…) on the decoding path,
	// the bytes on the wire (a JSON-RPC envelope, say) on the proxy's byte path. The slice is the watcher's.
	Event(raw []byte)
	// End is called once when the call ends.
	End(CallEnd)
}

// CallStart is what is known of a call when it starts.
type CallStart struct {
	Time    time.Time
	Method  string                // SendMessage, GetTask…
	Binding a2a.TransportProtocol // "" when the decoding path cannot tell JSON-RPC from REST
	Version string                // the protocol version of the front, "" when unknown
	TaskID  string
	// HTTPMethod and Path of the request, on the proxy's byte path ("" elsewhere).
	HTTPMethod, Path string
	// Header holds the caller's headers (service parameters on the decoding path), unredacted: the observer
	// redacts what it shows. Serve's own token never reaches it (the guard removes it).
	Header map[string][]string
	Body   []byte // the request as JSON (nil for a bodiless request)
}

// CallEnd is how a call ended.
type CallEnd struct {
	Time          time.Time
	TaskID, State string // as the log line shows them ("-" when unknown)
	Bytes, Events int
	Err           error
	// Handed is true when the byte path handed the call to the decoding path, which reports it again: the
	// observer forgets this one.
	Handed bool
}

// watchCall starts observing a call of the decoding path; nil when nobody observes.
func (l *Log) watchCall(ctx context.Context, method string, req any, taskID string) CallWatch {
	if l.obs == nil {
		return nil
	}
	s := CallStart{Time: time.Now(), Method: method, TaskID: taskID, Header: map[string][]string{}}
	if cc, ok := a2asrv.CallContextFrom(ctx); ok && cc.ServiceParams() != nil {
		for k, v := range cc.ServiceParams().List() {
			s.Header[k] = v
		}
	}
	if _, ok := grpc.Method(ctx); ok {
		s.Binding = a2a.TransportProtocolGRPC
	} else if f, ok := ctx.Value(frontCtxKey{}).(frontOf); ok {
		s.Binding, s.Version = f.binding, f.version
	}
	if req != nil {
		s.Body, _ = json.Marshal(req) // a request that decoded encodes; an error leaves no body to show
	}
	return l.obs.Begin(s)
}

// watchEvent hands a decoded answer to the watcher, as the StreamResponse a REST stream would carry.
func watchEvent(w CallWatch, v any) {
	if w == nil {
		return
	}
	var raw []byte
	if ev, ok := v.(a2a.Event); ok {
		raw, _ = json.Marshal(a2a.StreamResponse{Event: ev}) // a2a values encode; an error shows as no event
	} else {
		raw, _ = json.Marshal(v)
	}
	if raw != nil {
		w.Event(raw)
	}
}

// endWatch reports the end of a logged call to its watcher.
func (c *Call) endWatch(err error, handed bool) {
	if c.watch == nil {
		return
	}
	c.watch.End(CallEnd{Time: time.Now(), TaskID: c.id, State: c.state, Bytes: c.bytes, Events: c.events, Err: err, Handed: handed})
	c.watch = nil
}

type frontCtxKey struct{}

// frontOf is the binding and version WithFront put in a context.
type frontOf struct {
	binding a2a.TransportProtocol
	version string
}

// WithFront tells the observer which binding and protocol version an HTTP call came on (the decoding path,
// where Log.Handler sees the call, does not know).
func WithFront(ctx context.Context, binding a2a.TransportProtocol, version string) context.Context {
	return context.WithValue(ctx, frontCtxKey{}, frontOf{binding, version})
}

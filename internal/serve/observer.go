package serve

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv"
	"google.golang.org/grpc"
)

// InspectorPath is the path prefix an Inspector serves under, on serve's own port.
const InspectorPath = "/_a2a/"

// Inspector is a page (and its API) that watches the traffic: Config.Inspector; internal/inspect builds one.
// It serves under InspectorPath behind the same guard as everything else.
type Inspector interface {
	Observer
	http.Handler // every request under InspectorPath
	// Authorized reports whether a request under InspectorPath carries the inspector's own credential (its
	// one-time link or session cookie), which the guard then accepts in place of serve's token.
	Authorized(r *http.Request) bool
	// Link is the URL to print for a server reached at base ("http://127.0.0.1:8080").
	Link(base string) string
	// Close ends the inspector's open event streams; called when the server shuts down.
	Close()
}

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
func (l *trafficLog) watchCall(ctx context.Context, method string, req any, taskID string) CallWatch {
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
	} else if k, ok := ctx.Value(frontCtxKey{}).(frontKey); ok {
		s.Binding, s.Version = k.binding, k.version
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
func (c *callRecord) endWatch(err error, handed bool) {
	if c.watch == nil {
		return
	}
	c.watch.End(CallEnd{Time: time.Now(), TaskID: c.id, State: c.state, Bytes: c.bytes, Events: c.events, Err: err, Handed: handed})
	c.watch = nil
}

// wantsInspector reports a request the inspector serves.
func wantsInspector(r *http.Request) bool {
	return r.URL.Path+"/" == InspectorPath || strings.HasPrefix(r.URL.Path, InspectorPath)
}

type frontCtxKey struct{}

// withInspector serves the inspector's paths in front of next, and tells the observer which binding and version
// an A2A call came on (the decoding path does not know).
func withInspector(in Inspector, fronts httpFronts, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if wantsInspector(r) {
			in.ServeHTTP(w, r)
			return
		}
		if fr := fronts.classify(r); fr.kind == frontA2A {
			r = r.WithContext(context.WithValue(r.Context(), frontCtxKey{}, fr.key))
		}
		next.ServeHTTP(w, r)
	})
}

package serve

import (
	"net/http"
	"strings"

	"github.com/a2acli/a2a/internal/serve/traffic"
)

// The observer hook is package traffic's; these names let a caller (internal/inspect) build an Inspector
// against serve alone.
type (
	// Observer watches every call the traffic log describes (traffic.Observer).
	Observer = traffic.Observer
	// CallWatch follows one call (traffic.CallWatch).
	CallWatch = traffic.CallWatch
	// CallStart is what is known of a call when it starts (traffic.CallStart).
	CallStart = traffic.CallStart
	// CallEnd is how a call ended (traffic.CallEnd).
	CallEnd = traffic.CallEnd
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

// wantsInspector reports a request the inspector serves.
func wantsInspector(r *http.Request) bool {
	return r.URL.Path+"/" == InspectorPath || strings.HasPrefix(r.URL.Path, InspectorPath)
}

// withInspector serves the inspector's paths in front of next, and tells the observer which binding and version
// an A2A call came on (the decoding path does not know).
func withInspector(in Inspector, fronts httpFronts, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if wantsInspector(r) {
			in.ServeHTTP(w, r)
			return
		}
		if fr := fronts.classify(r); fr.kind == frontA2A {
			r = r.WithContext(traffic.WithFront(r.Context(), fr.key.binding, fr.key.version))
		}
		next.ServeHTTP(w, r)
	})
}

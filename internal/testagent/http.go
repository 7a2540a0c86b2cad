package testagent

import (
	"bytes"
	"errors"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2acompat/a2av0"
	"github.com/a2aproject/a2a-go/v2/a2asrv"
	"github.com/a2aproject/a2a-go/v2/log"
)

// serveHTTP serves the card and a JSON-RPC or HTTP+JSON binding on one listener.
func (a *Agent) serveHTTP(t testing.TB, h a2asrv.RequestHandler) error {
	ln, err := listen()
	if err != nil {
		return err
	}
	base := "http://" + ln.Addr().String()
	a.URL, a.CardURL, a.Endpoint = base, base+a2asrv.WellKnownAgentCardPath, base
	a.Card = a.buildCard(base)

	var binding http.Handler
	switch {
	case a.opts.Transport == a2a.TransportProtocolJSONRPC && a.opts.V03:
		binding = a2av0.NewJSONRPCHandler(h)
	case a.opts.Transport == a2a.TransportProtocolJSONRPC:
		binding = a2asrv.NewJSONRPCHandler(h)
	case a.opts.V03:
		binding = a2av0.NewRESTHandler(h)
	default:
		binding = tenantREST(a2asrv.NewRESTHandler(h), a2asrv.NewTenantRESTHandler("/{*}", h))
	}
	mux := http.NewServeMux()
	if err := a.mountCard(mux); err != nil {
		_ = ln.Close()
		return err
	}
	mux.Handle("/", a.guard(binding))
	serveHTTPOn(t, ln, mux)
	return nil
}

// tenantREST routes REST paths that start with a tenant ("/acme/message:send") to tenanted, the rest to plain.
func tenantREST(plain, tenanted http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		first, _, _ := strings.Cut(strings.TrimPrefix(r.URL.Path, "/"), "/")
		switch {
		case strings.HasPrefix(first, "message:"), first == "tasks", strings.HasPrefix(first, "tasks:"),
			strings.HasPrefix(first, "extendedAgentCard"), strings.HasPrefix(first, "card"):
			plain.ServeHTTP(w, r)
		default:
			tenanted.ServeHTTP(w, r)
		}
	})
}

// serveHTTPOn serves handler on ln until the test ends.
func serveHTTPOn(t testing.TB, ln net.Listener, handler http.Handler) {
	srv := &http.Server{Handler: handler, ReadHeaderTimeout: 10 * time.Second}
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			t.Errorf("testagent: serve http: %v", err)
		}
	}()
	t.Cleanup(func() {
		_ = srv.Close()
		<-done
	})
}

// guard records the request headers, enforces RequireAuth and, for
// DieMidStream, wraps the writer so the stream can be cut.
func (a *Agent) guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		a.recordRequest(r.Header.Clone())
		if need := a.opts.RequireAuth; need != "" && r.Header.Get("Authorization") != need {
			writeUnauthenticated(w, a.opts.Transport)
			return
		}
		if a.opts.Authorize != nil && !a.opts.Authorize(r.Header.Get("Authorization")) {
			writeUnauthenticated(w, a.opts.Transport)
			return
		}
		if a.opts.Behavior == DieMidStream {
			w = &cutWriter{ResponseWriter: w, agent: a}
		}
		next.ServeHTTP(w, r.WithContext(log.AttachLogger(r.Context(), quiet)))
	})
}

// writeUnauthenticated answers 401 with a body the binding's clients understand:
// a JSON-RPC error (-31401) or a google.rpc.Status with an A2A ErrorInfo.
func writeUnauthenticated(w http.ResponseWriter, transport a2a.TransportProtocol) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("WWW-Authenticate", `Bearer realm="testagent"`)
	w.WriteHeader(http.StatusUnauthorized)
	body := `{"error":{"code":401,"status":"UNAUTHENTICATED","message":"missing or wrong Authorization",` +
		`"details":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"UNAUTHENTICATED",` +
		`"domain":"` + a2a.ProtocolDomain + `"}]}}`
	if transport == a2a.TransportProtocolJSONRPC {
		body = `{"jsonrpc":"2.0","id":null,"error":{"code":-31401,"message":"missing or wrong Authorization"}}`
	}
	_, _ = w.Write([]byte(body + "\n"))
}

// cutWriter hijacks and closes the connection of an event stream right after
// the event holding DieMarker has been flushed to it.
type cutWriter struct {
	http.ResponseWriter
	agent *Agent
	armed bool
	cut   bool
}

// Write implements http.ResponseWriter.
func (w *cutWriter) Write(p []byte) (int, error) {
	if w.cut {
		return 0, http.ErrHijacked
	}
	if bytes.Contains(p, []byte(DieMarker)) &&
		strings.HasPrefix(w.Header().Get("Content-Type"), "text/event-stream") {
		w.armed = true
	}
	return w.ResponseWriter.Write(p)
}

// Flush implements http.Flusher; the a2a-go SSE writer flushes after every event.
func (w *cutWriter) Flush() {
	if w.cut {
		return
	}
	rc := http.NewResponseController(w.ResponseWriter)
	_ = rc.Flush()
	if !w.armed {
		return
	}
	w.cut = true
	if conn, _, err := rc.Hijack(); err == nil {
		_ = conn.Close()
	}
	w.agent.signalCut()
}

// Unwrap lets http.ResponseController reach the real writer.
func (w *cutWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// StartRaw serves body with status and contentType at every path, for card
// resolution failures (HTML instead of a card, 404, malformed JSON). It
// returns the base URL and stops in t.Cleanup.
func StartRaw(t testing.TB, status int, contentType, body string) (url string) {
	t.Helper()
	ln, err := listen()
	if err != nil {
		t.Fatalf("testagent: start raw server: %v", err)
	}
	serveHTTPOn(t, ln, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		if contentType != "" {
			w.Header().Set("Content-Type", contentType)
		}
		w.WriteHeader(status)
		_, _ = w.Write([]byte(body))
	}))
	return "http://" + ln.Addr().String()
}

package wire

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// ByHeader is a JSON-RPC agent that speaks the protocol version the A2A-Version header of each request names, as
// servers serving v1.0 and v0.3 on one endpoint do: "1.x" gets v1.0 answers, anything else (or none) v0.3 answers,
// whatever the body's method names. Its tasks complete at once with the artifact "echo: <text>" and the usage
// metadata {"inputTokens":12,"outputTokens":34}.
type ByHeader struct {
	URL string

	mu    sync.Mutex
	calls []HeaderCall
}

// HeaderCall is one request a ByHeader agent answered: the A2A-Version header it carried ("" when none) and the
// JSON-RPC method ("" for the card).
type HeaderCall struct {
	Version, Method string
}

// StartByHeader starts a ByHeader agent; it stops in t.Cleanup. Its card has one JSON-RPC interface: of version
// cardVersion ("1.0" or "0.3"), or, with cardVersion "", of the version the card request's header names (v1.0 for
// "1.x", v0.3 otherwise). The v0.3 card sets supportsAuthenticatedExtendedCard.
func StartByHeader(t testing.TB, cardVersion string) *ByHeader {
	t.Helper()
	a := &ByHeader{}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /.well-known/agent-card.json", func(w http.ResponseWriter, r *http.Request) {
		hv := a.record(r, "")
		v := cardVersion
		if v == "" {
			v = "0.3"
			if speaksV1(hv) {
				v = "1.0"
			}
		}
		w.Header().Set("Content-Type", "application/json")
		extra := ""
		if strings.HasPrefix(v, "0.3") {
			extra = `,"supportsAuthenticatedExtendedCard":true`
		}
		fmt.Fprint(w, cardOf(v, "by header", "http://"+r.Host, extra))
	})
	mux.HandleFunc("POST /", func(w http.ResponseWriter, r *http.Request) {
		var req rpcRequest
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		v1 := speaksV1(a.record(r, req.Method))
		text := "echo: " + req.text()
		var task string
		if v1 {
			task = `{"id":"t-1","contextId":"c-1","status":{"state":"TASK_STATE_COMPLETED"},"artifacts":[{"artifactId":"a-1",` +
				`"parts":[{"text":"` + jsonEscape(text) + `"}]}],"metadata":{"usage":{"inputTokens":12,"outputTokens":34}}}`
		} else {
			task = `{"kind":"task","id":"t-1","contextId":"c-1","status":{"state":"completed"},"artifacts":[{"artifactId":"a-1",` +
				`"parts":[{"kind":"text","text":"` + jsonEscape(text) + `"}]}],"metadata":{"usage":{"inputTokens":12,"outputTokens":34}}}`
		}
		switch {
		case streamingMethod(req.Method):
			w.Header().Set("Content-Type", "text/event-stream")
			result := task
			if v1 {
				result = `{"task":` + task + `}`
			}
			fmt.Fprintf(w, "data: {\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":%s}\n\n", req.ID, result)
		case v1:
			writeRPC(w, req.ID, `{"task":`+task+`}`, "")
		default:
			writeRPC(w, req.ID, task, "")
		}
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	a.URL = srv.URL
	return a
}

func speaksV1(v string) bool { return strings.HasPrefix(strings.TrimPrefix(v, "v"), "1") }

func (a *ByHeader) record(r *http.Request, method string) string {
	v := r.Header.Get("A2A-Version")
	a.mu.Lock()
	defer a.mu.Unlock()
	a.calls = append(a.calls, HeaderCall{Version: v, Method: method})
	return v
}

// Calls are the requests answered so far, in order.
func (a *ByHeader) Calls() []HeaderCall {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]HeaderCall(nil), a.calls...)
}

// V03Method reports whether a JSON-RPC method is v0.3's ("message/send") rather than v1.0's ("SendMessage").
func V03Method(m string) bool { return strings.Contains(m, "/") }

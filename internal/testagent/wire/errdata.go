package wire

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// ErrorDataStack is the stack trace ErrorData's agent sends as its errors' data.
const ErrorDataStack = "Error: the model is down\n    at handler (server.js:12:9)"

// ErrorDataMessage is the message of ErrorData's errors.
const ErrorDataMessage = "boom: the model is down"

// ErrorData starts a JSON-RPC agent of protocol version "1.0" or "0.3" that answers every call with a JSON-RPC error
// whose data is an object, as servers built on a JSON-RPC framework of their own do (JSON-RPC 2.0 and A2A v0.3 allow
// any value there): -32603 ErrorDataMessage with data {"stack": ErrorDataStack}. A streaming call gets the error as
// the one event of an event stream. It returns the agent's URL; the agent stops in t.Cleanup.
func ErrorData(t testing.TB, version string) string {
	t.Helper()
	mux := http.NewServeMux()
	mux.HandleFunc("GET /.well-known/agent-card.json", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, cardOf(version, "error data", "http://"+r.Host, ""))
	})
	mux.HandleFunc("POST /", func(w http.ResponseWriter, r *http.Request) {
		var req rpcRequest
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		data, _ := json.Marshal(map[string]any{"stack": ErrorDataStack}) // a map of strings always marshals
		rpcErr := fmt.Sprintf(`{"code":-32603,"message":%q,"data":%s}`, ErrorDataMessage, data)
		if streamingMethod(req.Method) {
			w.Header().Set("Content-Type", "text/event-stream")
			fmt.Fprintf(w, "data: {\"jsonrpc\":\"2.0\",\"id\":%s,\"error\":%s}\n\n", req.ID, rpcErr)
			return
		}
		writeRPC(w, req.ID, "", rpcErr)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv.URL
}

// streamingMethod reports whether a JSON-RPC method of v1.0 or v0.3 answers with an event stream.
func streamingMethod(m string) bool {
	switch m {
	case "SendStreamingMessage", "SubscribeToTask", "message/stream", "tasks/resubscribe":
		return true
	}
	return false
}

// cardOf is a minimal card of protocol version "1.0" or "0.3" with one JSON-RPC interface at url; extra is added to
// the card's members (a leading comma and members, or "").
func cardOf(version, name, url, extra string) string {
	if strings.HasPrefix(version, "0.3") {
		return fmt.Sprintf(`{"name":%q,"description":"d","version":"1","protocolVersion":"0.3.0","url":%q,`+
			`"preferredTransport":"JSONRPC","capabilities":{"streaming":true},"defaultInputModes":["text/plain"],`+
			`"defaultOutputModes":["text/plain"],"skills":[]%s}`, name, url, extra)
	}
	return fmt.Sprintf(`{"name":%q,"description":"d","version":"1","supportedInterfaces":[{"url":%q,`+
		`"protocolBinding":"JSONRPC","protocolVersion":"1.0"}],"capabilities":{"streaming":true},`+
		`"defaultInputModes":["text/plain"],"defaultOutputModes":["text/plain"],"skills":[]%s}`, name, url, extra)
}

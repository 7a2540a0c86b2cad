package wire

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

// rest serves the v0.3 HTTP+JSON binding (proto JSON of the v0.3 google.a2a.v1 messages) the way the a2a-js SDK
// 0.3 line does: POST /v1/message:send answers 201 Created.
func (a *Agent) rest(w http.ResponseWriter, r *http.Request) {
	path := strings.TrimPrefix(r.URL.Path, "/v1")
	a.record(r.Method + " /v1" + path)
	if a.opts.Kind == HTMLError {
		htmlError(w)
		return
	}
	switch {
	case r.Method == http.MethodPost && path == "/message:send":
		id, ok := a.restMessage(w, r)
		if !ok {
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusCreated)
		fmt.Fprintf(w, `{"task":%s}`, a.task03(id, "TASK_STATE_COMPLETED"))
	case r.Method == http.MethodPost && path == "/message:stream":
		id, ok := a.restMessage(w, r)
		if !ok {
			return
		}
		a.sse03(w, id, "TASK_STATE_COMPLETED")
	case r.Method == http.MethodGet && strings.HasPrefix(path, "/tasks/") && strings.HasSuffix(path, ":subscribe"):
		a.sse03(w, strings.TrimSuffix(strings.TrimPrefix(path, "/tasks/"), ":subscribe"), "TASK_STATE_COMPLETED")
	case r.Method == http.MethodPost && strings.HasPrefix(path, "/tasks/") && strings.HasSuffix(path, ":cancel"):
		id := strings.TrimSuffix(strings.TrimPrefix(path, "/tasks/"), ":cancel")
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, a.task03(id, "TASK_STATE_CANCELLED"))
	case r.Method == http.MethodGet && strings.HasPrefix(path, "/tasks/"):
		id := strings.TrimPrefix(path, "/tasks/")
		if a.text(id) == "" {
			// The a2a-js shape of an error: the JSON-RPC code and message, no wrapper.
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusNotFound)
			fmt.Fprintf(w, `{"code":-32001,"message":"Task not found: %s"}`, jsonEscape(id))
			return
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, a.task03(id, "TASK_STATE_COMPLETED"))
	default:
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusNotFound)
		fmt.Fprint(w, `{"code":-32601,"message":"Method not found"}`)
	}
}

// restMessage reads a v0.3 SendMessageRequest and starts its task.
func (a *Agent) restMessage(w http.ResponseWriter, r *http.Request) (string, bool) {
	var req struct {
		Message struct {
			Content []struct {
				Text string `json:"text"`
			} `json:"content"`
		} `json:"message"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		fmt.Fprint(w, `{"code":-32700,"message":"Invalid JSON"}`)
		return "", false
	}
	var b strings.Builder
	for _, p := range req.Message.Content {
		b.WriteString(p.Text)
	}
	return a.newTask(b.String()), true
}

func (a *Agent) sse03(w http.ResponseWriter, id, state string) {
	w.Header().Set("Content-Type", "text/event-stream")
	fmt.Fprintf(w, "data: {\"task\":%s}\n\n", a.task03(id, state))
}

// task03 is a v0.3 Task in proto JSON, with the artifact "echo: <text>".
func (a *Agent) task03(id, state string) string {
	return `{"id":"` + jsonEscape(id) + `","contextId":"ctx-` + jsonEscape(id) + `","status":{"state":"` + state + `"},` +
		`"artifacts":[{"artifactId":"out","parts":[{"text":"echo: ` + jsonEscape(a.text(id)) + `"}]}]}`
}

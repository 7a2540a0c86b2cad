package wire

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
)

// TaskEveryTurn starts a JSON-RPC agent whose streams, like the Gemini CLI server's, start every answer with a
// snapshot of the whole task: the first message gets a question (input-required), a follow-up on the same task
// completes it with "hello, <text>". It returns the agent's URL; the agent stops in t.Cleanup. Chat tests use it
// to check that a task's header shows once over its turns.
func TaskEveryTurn(t testing.TB) string {
	t.Helper()
	const taskID, ctxID = "task-every-turn", "ctx-every-turn"
	mux := http.NewServeMux()
	mux.HandleFunc("GET /.well-known/agent-card.json", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"name":"every turn","description":"d","version":"1","supportedInterfaces":[{"url":%q,`+
			`"protocolBinding":"JSONRPC","protocolVersion":"1.0"}],"capabilities":{"streaming":true},`+
			`"defaultInputModes":["text/plain"],"defaultOutputModes":["text/plain"],"skills":[]}`, "http://"+r.Host)
	})
	mux.HandleFunc("POST /", func(w http.ResponseWriter, r *http.Request) {
		var req rpcRequest
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		send := func(result string) {
			fmt.Fprintf(w, "data: {\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":%s}\n\n", req.ID, result)
		}
		status := func(state, msg string) string {
			s := `{"statusUpdate":{"taskId":"` + taskID + `","contextId":"` + ctxID + `","status":{"state":"` + state + `"`
			if msg != "" {
				s += `,"message":{"messageId":"m-` + state + `","role":"ROLE_AGENT","parts":[{"text":"` + msg + `"}]}`
			}
			return s + `}}}`
		}
		answer := req.Params.Message != nil && req.Params.Message.TaskID == taskID // the second turn
		state := "TASK_STATE_SUBMITTED"
		if answer {
			state = "TASK_STATE_WORKING"
		}
		send(`{"task":{"id":"` + taskID + `","contextId":"` + ctxID + `","status":{"state":"` + state + `"}}}`)
		if !answer {
			send(status("TASK_STATE_INPUT_REQUIRED", "what is your name?"))
			return
		}
		send(status("TASK_STATE_COMPLETED", "hello, "+req.text()))
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv.URL
}

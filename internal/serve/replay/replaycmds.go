package replay

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"

	"github.com/a2acli/a2a/internal/serve"
)

// maxRPCPeek bounds how much of a JSON-RPC body is read to find its method.
const maxRPCPeek = 16 << 20

// commandsHandler serves the slash commands of the recordings in front of next: the Gemini
// server's GET /listCommands and POST /executeCommand, and the RFC's JSON-RPC methods
// commands/get and command/execute (on POST / and POST /jsonrpc).
func (r *replayer) commandsHandler(next http.Handler) http.Handler {
	if r.cmds.empty() {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		switch {
		case req.URL.Path == "/listCommands" && req.Method == http.MethodGet && r.cmds.List != nil:
			writeJSON(w, http.StatusOK, r.cmds.List)
		case req.URL.Path == "/executeCommand" && req.Method == http.MethodPost && r.cmds.Execute != nil:
			r.executeCommand(w, req)
		case req.Method == http.MethodPost && (req.URL.Path == "/" || req.URL.Path == serve.JSONRPCPath) &&
			(r.cmds.Get != nil || r.cmds.ExecuteRPC != nil):
			r.commandRPC(w, req, next)
		default:
			next.ServeHTTP(w, req)
		}
	})
}

func writeJSON(w http.ResponseWriter, code int, body []byte) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_, _ = w.Write(body) // the client went away: nothing to do
}

func (r *replayer) executeCommand(w http.ResponseWriter, req *http.Request) {
	var body struct {
		Command string   `json:"command"`
		Args    []string `json:"args"`
	}
	if err := json.NewDecoder(io.LimitReader(req.Body, maxRPCPeek)).Decode(&body); err != nil {
		writeJSON(w, http.StatusBadRequest, []byte(`{"error":"invalid request body"}`))
		return
	}
	line := strings.TrimSpace(strings.Join(append([]string{body.Command}, body.Args...), " "))
	for _, key := range []string{line, body.Command} {
		if resp, ok := r.cmds.Execute[key]; ok {
			writeJSON(w, http.StatusOK, resp)
			return
		}
	}
	msg, _ := json.Marshal(map[string]string{"error": "Command not found: " + body.Command})
	writeJSON(w, http.StatusNotFound, msg)
}

// commandRPC answers commands/get and command/execute; any other request goes on to next with its
// body restored.
func (r *replayer) commandRPC(w http.ResponseWriter, req *http.Request, next http.Handler) {
	body, err := io.ReadAll(io.LimitReader(req.Body, maxRPCPeek))
	if err != nil {
		http.Error(w, "read body", http.StatusBadRequest)
		return
	}
	var rpc struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params struct {
			CommandPath []string `json:"command_path"`
			Args        string   `json:"args"`
		} `json:"params"`
	}
	var result json.RawMessage
	if json.Unmarshal(body, &rpc) == nil {
		switch rpc.Method {
		case "commands/get":
			result = r.cmds.Get
		case "command/execute":
			result = r.cmds.ExecuteRPC[strings.Join(rpc.Params.CommandPath, " ")]
			if result == nil {
				result = r.cmds.ExecuteRPC[strings.TrimSpace(strings.Join(rpc.Params.CommandPath, " ")+" "+rpc.Params.Args)]
			}
			if result == nil {
				writeRPC(w, rpc.ID, "error", map[string]any{"code": -32602, "message": "command not found"})
				return
			}
		}
	}
	if result == nil {
		req.Body = io.NopCloser(bytes.NewReader(body))
		next.ServeHTTP(w, req)
		return
	}
	writeRPC(w, rpc.ID, "result", result)
}

func writeRPC(w http.ResponseWriter, id json.RawMessage, key string, v any) {
	if id == nil {
		id = json.RawMessage("null")
	}
	out, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, key: v})
	if err != nil {
		http.Error(w, "encode response", http.StatusInternalServerError)
		return
	}
	writeJSON(w, http.StatusOK, out)
}

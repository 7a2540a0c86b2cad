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

// InTaskAuth is an agent (JSON-RPC, v1.0) with in-task authorization (A2A §7.6) the way the specification's SHOULD
// reads: a message whose request carries no credential its Check accepts puts its task at auth-required (status
// message "sign in to go on"), and the task takes messages while it waits there. A follow-up that brings an accepted
// Authorization header completes the task with an artifact "authorized: <text of the first message>, <text of the
// follow-up>"; one without asks again. GetTask only reports: credentials reach the agent with a message, not
// otherwise. Streaming or not (Stream); its card declares the security schemes given (JSON), none when empty.
type InTaskAuth struct {
	URL string
	mu  sync.Mutex
	// tasks by id: the text of the first message, and the task's state.
	tasks map[string]*authTask
}

type authTask struct {
	id, first, state, answer string
	history                  []string
}

// InTaskAuthOptions configure an InTaskAuth agent.
type InTaskAuthOptions struct {
	Stream bool
	// Schemes is the card's securitySchemes object ("" for none); Requirements its securityRequirements array.
	Schemes, Requirements string
	// Check accepts an Authorization value (nil: any non-empty one).
	Check func(authorization string) bool
}

// StartInTaskAuth starts an InTaskAuth agent on 127.0.0.1:0; it stops when the test ends.
func StartInTaskAuth(t testing.TB, o InTaskAuthOptions) *InTaskAuth {
	t.Helper()
	a := &InTaskAuth{tasks: map[string]*authTask{}}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /.well-known/agent-card.json", func(w http.ResponseWriter, r *http.Request) {
		extra := ""
		if o.Schemes != "" {
			extra = `,"securitySchemes":` + o.Schemes
		}
		if o.Requirements != "" {
			extra += `,"securityRequirements":` + o.Requirements
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"name":"in-task auth","description":"asks for credentials mid-task","version":"1",`+
			`"supportedInterfaces":[{"url":%q,"protocolBinding":"JSONRPC","protocolVersion":"1.0"}],"capabilities":{"streaming":%t},`+
			`"defaultInputModes":["text/plain"],"defaultOutputModes":["text/plain"],"skills":[]%s}`, "http://"+r.Host, o.Stream, extra)
	})
	mux.HandleFunc("POST /", func(w http.ResponseWriter, r *http.Request) { a.serve(w, r, o) })
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	a.URL = srv.URL
	return a
}

func (k *authTask) json() string {
	st := `"state":"` + k.state + `"`
	if k.state == "TASK_STATE_AUTH_REQUIRED" {
		st += `,"message":` + agentMsg("ask-"+k.id+fmt.Sprint(len(k.history)), "sign in to go on")
	}
	arts := ""
	if k.answer != "" {
		arts = `,"artifacts":[{"artifactId":"answer","parts":[{"text":"` + jsonEscape(k.answer) + `"}]}]`
	}
	return `{"id":"` + k.id + `","contextId":"ctx-` + k.id + `","status":{` + st + `},"history":[` + strings.Join(k.history, ",") + `]` + arts + `}`
}

func (a *InTaskAuth) serve(w http.ResponseWriter, r *http.Request, o InTaskAuthOptions) {
	var req askRequest
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 1<<20)).Decode(&req); err != nil {
		http.Error(w, "bad JSON", http.StatusBadRequest)
		return
	}
	authz := r.Header.Get("Authorization")
	ok := authz != "" && (o.Check == nil || o.Check(authz))
	a.mu.Lock()
	var res string
	switch req.Method {
	case "SendMessage", "SendStreamingMessage":
		var m askMessage
		json.Unmarshal(req.Params.Message, &m) //nolint:errcheck // a bad message is an empty one
		var text strings.Builder
		for _, p := range m.Parts {
			text.WriteString(p.Text)
		}
		k := a.tasks[m.TaskID]
		if m.TaskID != "" && k == nil {
			a.mu.Unlock()
			writeRPC(w, req.ID, "", `{"code":-32001,"message":"task not found"}`)
			return
		}
		if k == nil {
			k = &authTask{id: fmt.Sprintf("auth-%d", len(a.tasks)+1), first: text.String()}
			a.tasks[k.id] = k
		} else if k.state != "TASK_STATE_AUTH_REQUIRED" {
			a.mu.Unlock()
			writeRPC(w, req.ID, "", `{"code":-32002,"message":"task cannot take messages in its state"}`)
			return
		}
		k.history = append(k.history, string(req.Params.Message))
		k.state = "TASK_STATE_AUTH_REQUIRED"
		if ok {
			k.state = "TASK_STATE_COMPLETED"
			k.answer = "authorized: " + k.first
			if m.TaskID != "" {
				k.answer += ", " + text.String()
			}
		}
		res = k.json()
	case "GetTask":
		k := a.tasks[req.Params.ID]
		if k == nil {
			a.mu.Unlock()
			writeRPC(w, req.ID, "", `{"code":-32001,"message":"task not found"}`)
			return
		}
		res = k.json()
	default:
		a.mu.Unlock()
		writeRPC(w, req.ID, "", `{"code":-32601,"message":"method not found"}`)
		return
	}
	a.mu.Unlock()
	switch req.Method {
	case "SendMessage":
		writeRPC(w, req.ID, `{"task":`+res+`}`, "")
	case "GetTask":
		writeRPC(w, req.ID, res, "")
	default:
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprintf(w, "data: {\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":{\"task\":%s}}\n\n", req.ID, res)
	}
}

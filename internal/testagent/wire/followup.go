package wire

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// Asker is an agent (JSON-RPC, v1.0) that asks for input and answers a follow-up the way the a2a-js SDK's agents do:
// first the task as it stands, still input-required with the question as its status message and the user's new
// message appended to its history (the question is in the history too, as the SDKs keep it), and only then what it
// does with the message: working, an artifact "hello, <text>", completed. A first message "ask" gets the question
// "what is your name?"; a follow-up "?" gets a new question "what is your last name?" (a status update) and "??" a
// new question as a lone task snapshot ("what is your age?", not in the history). Not streaming (Stream false),
// SendMessage answers a follow-up with that first snapshot and GetTask reports the task working once, then done.
type Asker struct {
	URL    string
	stream bool
	mu     sync.Mutex
	tasks  map[string]*askTask
}

type askTask struct {
	id      string
	state   string
	status  string // the status message, JSON ("" none)
	at      string // the status's time, kept as a store keeps it
	history []string
	arts    string
	polls   int // GetTask calls since the last follow-up (non-streaming)
	pending string
}

// StartAsker starts an Asker on 127.0.0.1:0, streaming or not; it stops when the test ends.
func StartAsker(t testing.TB, stream bool) *Asker {
	t.Helper()
	a := &Asker{stream: stream, tasks: map[string]*askTask{}}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /.well-known/agent-card.json", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"name":"asker","description":"asks for input","version":"1","supportedInterfaces":[{"url":%q,`+
			`"protocolBinding":"JSONRPC","protocolVersion":"1.0"}],"capabilities":{"streaming":%t},`+
			`"defaultInputModes":["text/plain"],"defaultOutputModes":["text/plain"],"skills":[]}`, "http://"+r.Host, stream)
	})
	mux.HandleFunc("POST /", a.serve)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	a.URL = srv.URL
	return a
}

// askRequest is the part of a request the Asker reads.
type askRequest struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params struct {
		ID      string          `json:"id"`
		Message json.RawMessage `json:"message"`
	} `json:"params"`
}

type askMessage struct {
	ID     string `json:"messageId"`
	TaskID string `json:"taskId"`
	Parts  []struct {
		Text string `json:"text"`
	} `json:"parts"`
}

func agentMsg(id, text string) string {
	return `{"messageId":"` + id + `","role":"ROLE_AGENT","parts":[{"text":"` + jsonEscape(text) + `"}]}`
}

// stamp is a status time: the n-th second of 2026.
func stamp(n int) string { return time.Date(2026, 1, 1, 0, 0, n, 0, time.UTC).Format(time.RFC3339) }

func (k *askTask) json() string {
	st := `"state":"` + k.state + `"`
	if k.status != "" {
		st += `,"message":` + k.status + `,"timestamp":"` + k.at + `"`
	}
	return `{"id":"` + k.id + `","contextId":"ctx-` + k.id + `","status":{` + st + `},"history":[` +
		strings.Join(k.history, ",") + `]` + k.arts + `}`
}

func (k *askTask) statusEvent(state, msg string) string {
	s := `{"statusUpdate":{"taskId":"` + k.id + `","contextId":"ctx-` + k.id + `","status":{"state":"` + state + `"`
	if msg != "" {
		s += `,"message":` + msg + `,"timestamp":"` + k.at + `"`
	}
	return s + `}}}`
}

func (a *Asker) serve(w http.ResponseWriter, r *http.Request) {
	var req askRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, "bad JSON", http.StatusBadRequest)
		return
	}
	var events []string
	a.mu.Lock()
	switch req.Method {
	case "SendMessage", "SendStreamingMessage":
		var m askMessage
		json.Unmarshal(req.Params.Message, &m) //nolint:errcheck // a bad message is an empty one
		var text strings.Builder
		for _, p := range m.Parts {
			text.WriteString(p.Text)
		}
		events = a.turn(m, string(req.Params.Message), text.String())
	case "GetTask":
		k := a.tasks[req.Params.ID]
		if k == nil {
			a.mu.Unlock()
			writeRPC(w, req.ID, "", `{"code":-32001,"message":"task not found"}`)
			return
		}
		if k.pending != "" {
			if k.polls++; k.polls == 1 {
				k.state, k.status = "TASK_STATE_WORKING", ""
			} else {
				a.finish(k, k.pending)
			}
		}
		events = []string{k.json()}
	default:
		a.mu.Unlock()
		writeRPC(w, req.ID, "", `{"code":-32601,"message":"method not found"}`)
		return
	}
	a.mu.Unlock()
	if req.Method != "SendStreamingMessage" {
		res := events[0]
		if req.Method == "SendMessage" {
			res = `{"task":` + res + `}`
		}
		writeRPC(w, req.ID, res, "")
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	for _, ev := range events {
		fmt.Fprintf(w, "data: {\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":%s}\n\n", req.ID, ev)
	}
}

// turn takes the message m (raw: its JSON) and returns the events of the answer; for SendMessage only the first
// counts (a task), the rest happens as GetTask is polled. Called with a.mu held.
func (a *Asker) turn(m askMessage, raw, text string) []string {
	k := a.tasks[m.TaskID]
	if k == nil {
		k = &askTask{id: fmt.Sprintf("ask-%d", len(a.tasks)+1), state: "TASK_STATE_SUBMITTED", history: []string{raw}}
		a.tasks[k.id] = k
		first := `{"task":` + k.json() + `}`
		q := agentMsg("q-"+k.id+"-1", "what is your name?")
		k.state, k.status, k.history, k.at = "TASK_STATE_INPUT_REQUIRED", q, append(k.history, q), stamp(1)
		if !a.stream {
			return []string{k.json()}
		}
		return []string{first, k.statusEvent(k.state, q)}
	}
	// A follow-up: the task as it stands first, our message appended.
	k.history = append(k.history, raw)
	stale := `{"task":` + k.json() + `}`
	if !a.stream {
		k.pending, k.polls = text, 0
		return []string{k.json()}
	}
	switch text {
	case "?":
		q := agentMsg(fmt.Sprintf("q-%s-%d", k.id, len(k.history)), "what is your last name?")
		k.status, k.history, k.at = q, append(k.history, q), stamp(len(k.history))
		return []string{stale, k.statusEvent(k.state, q)}
	case "??":
		k.status, k.at = agentMsg(fmt.Sprintf("q-%s-%d", k.id, len(k.history)), "what is your age?"), stamp(len(k.history))
		return []string{`{"task":` + k.json() + `}`}
	}
	out := []string{stale, k.statusEvent("TASK_STATE_WORKING", "")}
	a.finish(k, text)
	art := `{"artifactUpdate":{"taskId":"` + k.id + `","contextId":"ctx-` + k.id + `","artifact":{"artifactId":"answer","parts":[{"text":"hello, ` +
		jsonEscape(text) + `"}]},"lastChunk":true}}`
	return append(out, art, k.statusEvent(k.state, ""))
}

// finish completes k with the artifact "hello, <text>".
func (a *Asker) finish(k *askTask, text string) {
	k.state, k.status, k.pending = "TASK_STATE_COMPLETED", "", ""
	k.arts = `,"artifacts":[{"artifactId":"answer","parts":[{"text":"hello, ` + jsonEscape(text) + `"}]}]`
}

// Package wire owns hand-written A2A agents for tests of the CLI: plain net/http servers that write the protocol's
// JSON by hand, so that they behave like agents nobody on the project wrote (other SDKs, other languages) and not
// like a2a-go's server or our own serve code. Each Kind is one behaviour a legal agent may have that a client must
// survive: answering SendMessage before the task is done, cutting a stream, holding a stream open at input-required,
// answering with 201 Created, answering a streaming call with a plain JSON-RPC error, answering in HTML.
//
// The package is imported only from tests and imports nothing of this repository. An agent is ready when Start
// returns (its listener is open) and stops in t.Cleanup; nothing in it sleeps to wait for readiness.
package wire

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

// Kind selects an agent's behaviour.
type Kind int

const (
	// NonBlocking (JSON-RPC, v1.0, not streaming) answers SendMessage with the task still working; GetTask reports it
	// working Options.Polls times, then completed with an artifact "done: <text>" (Polls < 0: never done), and an
	// unknown task with -32001 "task not found". Streaming calls get -32004 "streaming is not supported". With
	// Options.Submitted, SendMessage answers submitted and the first Submitted polls too, before the working ones.
	NonBlocking Kind = iota
	// CutStream (JSON-RPC, v1.0, streaming) sends the task and a working status on every stream (send or
	// subscribe), then ends the stream, the first Options.Cuts streams only; later streams complete the task.
	// Options.Abrupt cuts the connection instead of ending the response; Options.After says what works after a cut.
	CutStream
	// HoldInput (JSON-RPC, v1.0, streaming) streams the task, then input-required with the question "what is your
	// name?", and keeps the stream open until the client goes.
	HoldInput
	// RPCErrorStream (JSON-RPC, v1.0, streaming) answers every streaming call and GetTask with a plain JSON
	// JSON-RPC error -32001 "task not found" (Content-Type application/json, HTTP 200), as the Python SDK does.
	RPCErrorStream
	// REST201 (HTTP+JSON, v0.3) answers POST /v1/message:send with 201 Created, like the a2a-js SDK 0.3 line; the
	// other calls answer 200. Tasks complete at once with an artifact "echo: <text>".
	REST201
	// Silent (JSON-RPC, v1.0, streaming) streams the task working, then says nothing more and keeps the stream
	// open; GetTask reports it working Options.Polls times, then completed.
	Silent
	// ToolPrompt (JSON-RPC, v1.0, streaming, a card declaring the development-tool extension) streams a turn in the
	// RFC shape that stops for permission: a tool call "write_file-1" PENDING in a working status message, then
	// input-required without a message; the stream then ends and idle connections close after IdleClose.
	ToolPrompt
	// HTMLError answers every A2A call with an HTML page and HTTP 502, as a proxy in front of a dead agent does.
	// Options.REST serves the HTTP+JSON binding in the card, else JSON-RPC.
	HTMLError
	// HoldSend (JSON-RPC, v1.0, not streaming) ignores returnImmediately, as hand-made agents often do: it holds
	// every SendMessage for Options.Hold (or until the client goes), then answers the task completed.
	HoldSend
	// Replace (JSON-RPC, v1.0, streaming) sends artifact updates without append, each the whole artifact so far, as
	// the specification allows (the new artifact replaces the old). The first stream sends artifact "a" as "one\n",
	// then "one\ntwo\n", and ends while working; a resubscription sends the task (with "a" as it stands), "a" whole
	// again as "one\ntwo\nthree\n", then an artifact "b" as "draft\n" replaced by "final\n", and completes.
	Replace
	// NoStream (JSON-RPC, v1.0) has a card that says it streams, but answers every streaming call with JSON-RPC
	// -32601 "method not found", as an agent whose card overstates it does; SendMessage completes at once. GetTask
	// reports a task working Options.Polls times, then completed.
	NoStream
	// Forgetful (JSON-RPC, v1.0, streaming) streams the task working on every stream (send or subscribe), then says
	// nothing more and keeps the stream open, like Silent; but GetTask answers -32001 "task not found" for every
	// task, as a replica behind a load balancer that never saw it does.
	Forgetful
)

// After is what works once a stream was cut.
type After int

const (
	// Resubscribe: SubscribeToTask streams the rest of the task.
	Resubscribe After = iota
	// PollOnly: SubscribeToTask answers an UnsupportedOperationError; GetTask reports the task completed.
	PollOnly
	// Down: the agent stops listening, as a server that went away.
	Down
)

// IdleClose is how long an agent keeps an idle keep-alive connection.
const IdleClose = 300 * time.Millisecond

// DevtoolURI is the development-tool extension's URI.
const DevtoolURI = "https://github.com/google-gemini/gemini-cli/blob/main/docs/a2a/developer-profile/v0/spec.md"

// Options configure an agent.
type Options struct {
	Kind   Kind
	Polls  int
	Cuts   int
	Abrupt bool
	After  After
	REST   bool
	Hold   time.Duration
	// Submitted: polls of a NonBlocking task that report it submitted before it works.
	Submitted int
}

// Agent is a running hand-written agent.
type Agent struct {
	// URL is the base URL: the card is at URL/.well-known/agent-card.json, the endpoint at URL.
	URL  string
	opts Options
	ln   net.Listener
	srv  *http.Server

	mu      sync.Mutex
	calls   []Call
	streams int
	polls   map[string]int
	texts   map[string]string
	down    chan struct{}
	once    sync.Once
}

// Call is one request the agent answered.
type Call struct {
	Method string // JSON-RPC method, or REST "METHOD /path"
	At     time.Time
}

// Start starts an agent on 127.0.0.1:0 and stops it when the test ends.
func Start(t testing.TB, o Options) *Agent {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	a := &Agent{URL: "http://" + ln.Addr().String(), opts: o, ln: ln, polls: map[string]int{}, texts: map[string]string{},
		down: make(chan struct{})}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /.well-known/agent-card.json", a.card)
	switch {
	case o.Kind == REST201:
		mux.HandleFunc("/v1/", a.rest)
	case o.Kind == HTMLError && o.REST:
		mux.HandleFunc("/", a.rest)
	default:
		mux.HandleFunc("POST /", a.jsonrpc)
	}
	// Idle connections close soon, like Node's keep-alive timeout: a client honouring a coding agent's connection
	// rule waits for that.
	a.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second, IdleTimeout: IdleClose}
	go a.srv.Serve(ln) //nolint:errcheck // ends with ErrServerClosed at cleanup
	t.Cleanup(a.Stop)
	return a
}

// Stop closes the listener and every connection: the agent is gone.
func (a *Agent) Stop() {
	a.goDown()
	a.srv.Close() //nolint:errcheck // closing a server has nothing useful to report
}

// goDown makes the agent unreachable at once: the listener closes, and a request on a connection still open is cut.
func (a *Agent) goDown() {
	a.once.Do(func() {
		close(a.down)
		a.ln.Close() //nolint:errcheck // the server's Serve reports it
	})
}

func (a *Agent) isDown() bool {
	select {
	case <-a.down:
		return true
	default:
		return false
	}
}

// Calls returns the requests answered so far.
func (a *Agent) Calls() []Call {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]Call(nil), a.calls...)
}

// Count returns how many calls of method were answered.
func (a *Agent) Count(method string) int {
	n := 0
	for _, c := range a.Calls() {
		if c.Method == method {
			n++
		}
	}
	return n
}

func (a *Agent) record(method string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.calls = append(a.calls, Call{Method: method, At: time.Now()})
}

func (a *Agent) card(w http.ResponseWriter, _ *http.Request) {
	var card string
	switch {
	case a.opts.Kind == REST201:
		card = fmt.Sprintf(`{"name":"Wire REST 0.3 Agent","description":"answers 201 Created","version":"1.0.0",`+
			`"protocolVersion":"0.3.0","url":%q,"preferredTransport":"HTTP+JSON",`+
			`"capabilities":{"streaming":true},"defaultInputModes":["text/plain"],"defaultOutputModes":["text/plain"],"skills":[]}`, a.URL)
	default:
		binding, exts := "JSONRPC", ""
		if a.opts.Kind == ToolPrompt {
			exts = `,"extensions":[{"uri":"` + DevtoolURI + `"}]`
		}
		if a.opts.REST {
			binding = "HTTP+JSON"
		}
		card = fmt.Sprintf(`{"name":"Wire Agent","description":"hand-written","version":"1.0.0",`+
			`"supportedInterfaces":[{"url":%q,"protocolBinding":%q,"protocolVersion":"1.0"}],`+
			`"capabilities":{"streaming":%t%s},"defaultInputModes":["text/plain"],"defaultOutputModes":["text/plain"],"skills":[]}`,
			a.URL, binding, a.opts.Kind != NonBlocking && a.opts.Kind != HoldSend, exts)
	}
	w.Header().Set("Content-Type", "application/json")
	fmt.Fprint(w, card)
}

// rpcRequest is the part of a JSON-RPC request the agents read.
type rpcRequest struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params struct {
		ID      string `json:"id"`
		Message *struct {
			TaskID string `json:"taskId"`
			Parts  []struct {
				Text string `json:"text"`
			} `json:"parts"`
		} `json:"message"`
	} `json:"params"`
}

func (r *rpcRequest) text() string {
	if r.Params.Message == nil {
		return ""
	}
	var b strings.Builder
	for _, p := range r.Params.Message.Parts {
		b.WriteString(p.Text)
	}
	return b.String()
}

func (a *Agent) jsonrpc(w http.ResponseWriter, r *http.Request) {
	if a.isDown() {
		panic(http.ErrAbortHandler) // a keep-alive connection to an agent that went away
	}
	var req rpcRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, "bad JSON", http.StatusBadRequest)
		return
	}
	a.record(req.Method)
	if a.opts.Kind == HTMLError {
		htmlError(w)
		return
	}
	if a.opts.Kind == NoStream && (req.Method == "SendStreamingMessage" || req.Method == "SubscribeToTask") {
		writeRPC(w, req.ID, "", `{"code":-32601,"message":"method not found"}`)
		return
	}
	if a.opts.Kind == NonBlocking && (req.Method == "SendStreamingMessage" || req.Method == "SubscribeToTask") {
		writeRPC(w, req.ID, "", `{"code":-32004,"message":"streaming is not supported"}`)
		return
	}
	if a.opts.Kind == RPCErrorStream && req.Method != "SendMessage" {
		writeRPC(w, req.ID, "", `{"code":-32001,"message":"task not found: `+jsonEscape(req.Params.ID)+`"}`)
		return
	}
	switch req.Method {
	case "SendMessage":
		id := a.newTask(req.text())
		if a.opts.Kind == NonBlocking {
			state := "TASK_STATE_WORKING"
			if a.opts.Submitted > 0 {
				state = "TASK_STATE_SUBMITTED"
			}
			writeRPC(w, req.ID, `{"task":`+a.task(id, state, false)+`}`, "")
			return
		}
		if a.opts.Kind == HoldSend {
			select {
			case <-time.After(a.opts.Hold):
			case <-r.Context().Done():
				return
			case <-a.down:
				return
			}
		}
		writeRPC(w, req.ID, `{"task":`+a.task(id, "TASK_STATE_COMPLETED", true)+`}`, "")
	case "GetTask":
		a.getTask(w, req)
	case "SendStreamingMessage":
		id := req.Params.Message.TaskID
		if id == "" {
			id = a.newTask(req.text())
		}
		a.stream(w, r, req.ID, id)
	case "SubscribeToTask":
		if a.opts.Kind == CutStream && a.opts.After == PollOnly && a.streamCount() >= a.opts.Cuts {
			writeRPC(w, req.ID, "", `{"code":-32004,"message":"resubscription is not supported"}`)
			return
		}
		a.stream(w, r, req.ID, req.Params.ID)
	case "CancelTask":
		writeRPC(w, req.ID, `{"task":`+a.task(req.Params.ID, "TASK_STATE_CANCELED", false)+`}`, "")
	default:
		writeRPC(w, req.ID, "", `{"code":-32601,"message":"method not found"}`)
	}
}

func (a *Agent) getTask(w http.ResponseWriter, req rpcRequest) {
	id := req.Params.ID
	state, done := "TASK_STATE_WORKING", false
	a.mu.Lock()
	_, known := a.texts[id]
	if (a.opts.Kind == NonBlocking && !known) || a.opts.Kind == Forgetful {
		a.mu.Unlock()
		writeRPC(w, req.ID, "", `{"code":-32001,"message":"task not found: `+jsonEscape(id)+`"}`)
		return
	}
	a.polls[id]++
	n := a.polls[id]
	a.mu.Unlock()
	switch a.opts.Kind {
	case NonBlocking, Silent, NoStream:
		if n <= a.opts.Submitted {
			state = "TASK_STATE_SUBMITTED"
		}
		done = a.opts.Polls >= 0 && n > a.opts.Submitted+a.opts.Polls
	case CutStream:
		done = a.streamCount() > a.opts.Cuts || a.opts.After == PollOnly
	}
	if done {
		state = "TASK_STATE_COMPLETED"
	}
	writeRPC(w, req.ID, a.task(id, state, done), "")
}

func (a *Agent) streamCount() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.streams
}

// stream answers a streaming call with SSE events as its Kind says.
func (a *Agent) stream(w http.ResponseWriter, r *http.Request, rpcID json.RawMessage, id string) {
	a.mu.Lock()
	a.streams++
	n := a.streams
	a.mu.Unlock()
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	fl := w.(http.Flusher)
	event := func(result string) {
		fmt.Fprintf(w, "data: {\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":%s}\n\n", rpcID, result)
		fl.Flush()
	}
	switch a.opts.Kind {
	case Silent, Forgetful:
		event(`{"task":` + a.task(id, "TASK_STATE_WORKING", false) + `}`)
		select {
		case <-r.Context().Done():
		case <-a.down:
		}
	case ToolPrompt:
		meta := `"metadata":{"` + DevtoolURI + `":{"kind":"TOOL_CALL_UPDATE"}}`
		event(`{"task":{"id":"` + id + `","contextId":"ctx-` + id + `","status":{"state":"TASK_STATE_SUBMITTED"}}}`)
		event(`{"statusUpdate":{"taskId":"` + id + `","contextId":"ctx-` + id + `",` + meta + `,"status":{"state":"TASK_STATE_WORKING",` +
			`"message":{"messageId":"call-` + id + `","role":"ROLE_AGENT","parts":[{"data":{"tool_call_id":"write_file-1","tool_name":"WriteFile",` +
			`"status":"PENDING","input_parameters":{"file_path":"hello.txt"},"confirmation_request":{"options":[` +
			`{"id":"proceed_once","name":"Allow once"},{"id":"cancel","name":"Reject"}]}}}]}}}}`)
		event(`{"statusUpdate":{"taskId":"` + id + `","contextId":"ctx-` + id + `",` + meta + `,"status":{"state":"TASK_STATE_INPUT_REQUIRED"}}}`)
	case HoldInput:
		event(`{"task":` + a.task(id, "TASK_STATE_WORKING", false) + `}`)
		event(`{"statusUpdate":{"taskId":"` + id + `","contextId":"ctx-` + id + `","status":{"state":"TASK_STATE_INPUT_REQUIRED",` +
			`"message":{"messageId":"q-` + id + `","role":"ROLE_AGENT","parts":[{"text":"what is your name?"}]}}}}`)
		select {
		case <-r.Context().Done():
		case <-a.down:
		}
	case Replace:
		art := func(artID, text string) {
			event(`{"artifactUpdate":{"taskId":"` + id + `","contextId":"ctx-` + id + `","artifact":{"artifactId":"` + artID +
				`","name":"` + artID + `","parts":[{"text":"` + jsonEscape(text) + `"}]}}}`)
		}
		if n == 1 {
			event(`{"task":` + a.task(id, "TASK_STATE_WORKING", false) + `}`)
			art("a", "one\n")
			art("a", "one\ntwo\n")
			return
		}
		event(`{"task":{"id":"` + id + `","contextId":"ctx-` + id + `","status":{"state":"TASK_STATE_WORKING"},` +
			`"artifacts":[{"artifactId":"a","name":"a","parts":[{"text":"one\n"},{"text":"two\n"}]}]}}`)
		art("a", "one\ntwo\nthree\n")
		art("b", "draft\n")
		art("b", "final\n")
		event(`{"statusUpdate":{"taskId":"` + id + `","contextId":"ctx-` + id + `","status":{"state":"TASK_STATE_COMPLETED"}}}`)
	case CutStream:
		if n <= a.opts.Cuts {
			event(`{"task":` + a.task(id, "TASK_STATE_WORKING", false) + `}`)
			event(`{"statusUpdate":{"taskId":"` + id + `","contextId":"ctx-` + id + `","status":{"state":"TASK_STATE_WORKING",` +
				`"message":{"messageId":"w-` + id + `","role":"ROLE_AGENT","parts":[{"text":"working on it"}]}}}}`)
			if a.opts.After == Down {
				a.goDown()
			}
			if a.opts.Abrupt {
				panic(http.ErrAbortHandler)
			}
			return
		}
		event(`{"artifactUpdate":{"taskId":"` + id + `","contextId":"ctx-` + id + `","artifact":{"artifactId":"out","parts":[{"text":"done: ` +
			jsonEscape(a.text(id)) + `"}]}}}`)
		event(`{"statusUpdate":{"taskId":"` + id + `","contextId":"ctx-` + id + `","status":{"state":"TASK_STATE_COMPLETED"}}}`)
	default:
		event(`{"task":` + a.task(id, "TASK_STATE_COMPLETED", true) + `}`)
	}
}

func (a *Agent) newTask(text string) string {
	a.mu.Lock()
	defer a.mu.Unlock()
	id := fmt.Sprintf("task-%d", len(a.texts)+1)
	a.texts[id] = text
	return id
}

func (a *Agent) text(id string) string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.texts[id]
}

// task is a v1.0 Task in JSON; done adds the artifact "done: <text>".
func (a *Agent) task(id, state string, done bool) string {
	arts := ""
	if done {
		arts = `,"artifacts":[{"artifactId":"out","parts":[{"text":"done: ` + jsonEscape(a.text(id)) + `"}]}]`
	}
	return `{"id":"` + id + `","contextId":"ctx-` + id + `","status":{"state":"` + state + `"}` + arts + `}`
}

func writeRPC(w http.ResponseWriter, id json.RawMessage, result, rpcErr string) {
	if len(id) == 0 {
		id = json.RawMessage("null")
	}
	w.Header().Set("Content-Type", "application/json")
	if rpcErr != "" {
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"error":%s}`, id, rpcErr)
		return
	}
	fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":%s}`, id, result)
}

// HTMLPage is the body HTMLError answers with.
const HTMLPage = "<html><head><title>502 Bad Gateway</title></head><body><h1>502 Bad Gateway</h1></body></html>\n"

func htmlError(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(http.StatusBadGateway)
	fmt.Fprint(w, HTMLPage)
}

func jsonEscape(s string) string {
	b, _ := json.Marshal(s) // a string always marshals
	return string(b[1 : len(b)-1])
}

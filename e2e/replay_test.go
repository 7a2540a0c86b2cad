package e2e

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2aclient"
	"github.com/a2aproject/a2a-go/v2/a2aclient/agentcard"
	"github.com/a2aproject/a2a-go/v2/a2acompat/a2av0"
	"github.com/google/go-cmp/cmp"
)

const recordings = "../testdata/recordings"

func recording(name string) string { return filepath.Join(recordings, name) }

const writeCall = "write_file-1795324972793-a995cfc9dfd04"

func geminiAnswer(task a2a.TaskID, call, outcome string) *a2a.SendMessageRequest {
	m := a2a.NewMessage(a2a.MessageRoleUser, a2a.NewDataPart(map[string]any{"callId": call, "outcome": outcome}))
	m.TaskID = task
	return &a2a.SendMessageRequest{Message: m}
}

func streamAll(ctx context.Context, c *a2aclient.Client, req *a2a.SendMessageRequest) ([]a2a.Event, error) {
	var out []a2a.Event
	for ev, err := range c.SendStreamingMessage(ctx, req) {
		if err != nil {
			return out, err
		}
		out = append(out, ev)
	}
	return out, nil
}

// toolStatuses lists the tool-call statuses (either shape) carried by a stream's status updates.
func toolStatuses(evs []a2a.Event) []string {
	var out []string
	for _, ev := range evs {
		su, ok := ev.(*a2a.TaskStatusUpdateEvent)
		if !ok || su.Status.Message == nil {
			continue
		}
		for _, p := range su.Status.Message.Parts {
			if d, ok := p.Data().(map[string]any); ok {
				if s, ok := d["status"].(string); ok {
					out = append(out, s)
				}
			}
		}
	}
	return out
}

// firstTurn streams the first turn and returns the task id; the turn must end input-required.
func firstTurn(t *testing.T, ctx context.Context, c *a2aclient.Client, text string) a2a.TaskID {
	t.Helper()
	evs, err := streamAll(ctx, c, &a2a.SendMessageRequest{Message: a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart(text))})
	if err != nil || len(evs) == 0 {
		t.Fatalf("turn 1: %d events, %v", len(evs), err)
	}
	if st := lastState(t, evs); st != a2a.TaskStateInputRequired {
		t.Fatalf("turn 1 ends %v, want input-required", st)
	}
	return evs[0].TaskInfo().TaskID
}

// TestReplayBranchesV1: an answer picks its branch; an answer no branch expects gets nothing. This is not about the
// connection rule (TestReplayConnectionRuleV03 is), so the rule is off: with it on, the outcome would hang on the
// client keeping each turn's connection open until it answers, which Go's transport does not promise. It closes a
// connection after an answer whenever its writer goroutine has not confirmed the request within 50 ms
// (maxWriteWaitBeforeConnReuse, as happens under load), and the rule then rightly aborts that turn's pending
// tools: the test flaked that way ("unknown answer: 2 events", the abort's). The client here opens a connection
// per call, so the test holds whatever the transport does.
func TestReplayBranchesV1(t *testing.T) {
	t.Parallel()
	srv := startServe(t, "--replay", recording("gemini-approve-write.jsonl"), "--replay", recording("gemini-reject-write.jsonl"),
		"--connection-rule", "off", "--quiet")
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	card, err := agentcard.DefaultResolver.Resolve(ctx, srv.url)
	if err != nil {
		t.Fatal(err)
	}
	hc := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	c, err := a2aclient.NewFromCard(ctx, card, a2aclient.WithRESTTransport(hc),
		a2aclient.WithConfig(a2aclient.Config{PreferredTransports: []a2a.TransportProtocol{a2a.TransportProtocolHTTPJSON}}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Destroy() })
	for outcome, want := range map[string][]string{"proceed_once": {"scheduled", "executing", "success"}, "cancel": {"cancelled"}} {
		id := firstTurn(t, ctx, c, "Please write hello.txt")
		evs, err := streamAll(ctx, c, geminiAnswer(id, writeCall, outcome))
		if err != nil {
			t.Fatalf("answer %s: %v", outcome, err)
		}
		if diff := cmp.Diff(want, toolStatuses(evs)); diff != "" {
			t.Errorf("answer %s: tool statuses (-want +got):\n%s", outcome, diff)
		}
		task, err := c.GetTask(ctx, &a2a.GetTaskRequest{ID: id})
		if err != nil || task.Status.State != a2a.TaskStateInputRequired {
			t.Errorf("GetTask after %s = %v, %v; want input-required", outcome, task, err)
		}
		// A subscription to the waiting task starts with its snapshot and stays open for the turn an answer starts
		// (§3.1.6); the client leaves after the snapshot.
		next, stop := iter.Pull2(c.SubscribeToTask(ctx, &a2a.SubscribeToTaskRequest{ID: id}))
		ev, err, ok := next()
		stop()
		if task, isTask := ev.(*a2a.Task); err != nil || !ok || !isTask || task.ID != id || task.Status.State != a2a.TaskStateInputRequired {
			t.Errorf("SubscribeToTask on a waiting task: first event %v, %v; want its snapshot at input-required", ev, err)
		}
	}
	// An answer no branch expects (the RFC's shape, which the Gemini server ignores) gets no event:
	// the client's own deadline fires.
	id := firstTurn(t, ctx, c, "Please write hello.txt")
	short, cancelShort := context.WithTimeout(ctx, 300*time.Millisecond)
	defer cancelShort()
	m := a2a.NewMessage(a2a.MessageRoleUser, a2a.NewDataPart(map[string]any{"tool_call_id": writeCall, "selected_option_id": "proceed_once"}))
	m.TaskID = id
	evs, err := streamAll(short, c, &a2a.SendMessageRequest{Message: m})
	if len(evs) != 0 || !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("unknown answer: %d events, %v; want none and the client's deadline", len(evs), err)
	}
}

// geminiClient is a v0.3 JSON-RPC client with its own connection pool, like one client process.
func geminiClient(t *testing.T, url string) (*a2aclient.Client, *http.Client) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	resolver := &agentcard.Resolver{Client: agentcard.DefaultResolver.Client, CardParser: a2av0.NewAgentCardParser()}
	card, err := resolver.Resolve(ctx, url)
	if err != nil {
		t.Fatalf("Resolve(%s) = %v", url, err)
	}
	if card.Name != "Gemini SDLC Agent" {
		t.Fatalf("card name %q, want the captured Gemini card's", card.Name)
	}
	hc := &http.Client{Transport: &http.Transport{}}
	c, err := a2aclient.NewFromCard(ctx, card, a2av0.WithJSONRPCTransport(a2av0.JSONRPCTransportConfig{Client: hc}),
		a2aclient.WithConfig(a2aclient.Config{PreferredTransports: []a2a.TransportProtocol{a2a.TransportProtocolJSONRPC}}))
	if err != nil {
		t.Fatalf("NewFromCard() = %v", err)
	}
	t.Cleanup(func() { c.Destroy(); hc.CloseIdleConnections() })
	return c, hc
}

func TestReplayConnectionRuleV03(t *testing.T) {
	t.Parallel()
	srv := startServe(t, "--replay", recording("gemini-approve-write.jsonl"), "--card", recording("gemini-agent-card.json"),
		"--protocol", "0.3", "--transport", "jsonrpc", "--idle-timeout", "400ms")
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()

	// The first process streams turn 1 and exits: its connection closes before the server's.
	first, firstHTTP := geminiClient(t, srv.url)
	id := firstTurn(t, ctx, first, "Please write hello.txt")
	firstHTTP.CloseIdleConnections()
	eventually(t, 5*time.Second, "the server sees the client's close", func() bool {
		return strings.Contains(srv.Log(), fmt.Sprintf("task %s: the client closed", id))
	})
	later, _ := geminiClient(t, srv.url)
	evs, err := streamAll(ctx, later, geminiAnswer(id, writeCall, "proceed_once"))
	if err != nil || !cmp.Equal(toolStatuses(evs), []string{"cancelled"}) {
		t.Fatalf("approval after the client closed: statuses %v, %v; want [cancelled]", toolStatuses(evs), err)
	}
	if !strings.Contains(fmt.Sprint(evs[0].(*a2a.TaskStatusUpdateEvent).Status.Message.Parts[0].Data()), "Execution aborted by client.") {
		t.Errorf("cancelled tool = %v, want the abort error", evs[0])
	}

	// A process that keeps its connection until the server closes it leaves the tool pending. It streams its turn
	// over a connection of its own: Go's transport would not promise to keep one (it closes a connection after an
	// answer when its write loop is late to confirm the request, as under load), and that close is the client's.
	id = keptTurn(t, srv.url, "Please write hello.txt")
	eventually(t, 5*time.Second, "the server closes the idle connection", func() bool {
		return strings.Contains(srv.Log(), fmt.Sprintf("task %s: the server closed", id))
	})
	later, _ = geminiClient(t, srv.url)
	evs, err = streamAll(ctx, later, geminiAnswer(id, writeCall, "proceed_once"))
	if err != nil || !cmp.Equal(toolStatuses(evs), []string{"scheduled", "executing", "success"}) {
		t.Fatalf("approval after the server closed: statuses %v, %v; want the tool to run", toolStatuses(evs), err)
	}
}

// keptTurn streams a first turn as a v0.3 JSON-RPC client on a TCP connection it keeps open until the server closes
// it (or the test ends), and returns the task's id; the turn must end input-required.
func keptTurn(t *testing.T, url, text string) a2a.TaskID {
	t.Helper()
	conn, err := net.Dial("tcp", strings.TrimPrefix(url, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	body := `{"jsonrpc":"2.0","id":1,"method":"message/stream","params":{"message":{"kind":"message","messageId":"m1",` +
		`"role":"user","parts":[{"kind":"text","text":` + strconv.Quote(text) + `}]}}}`
	req, err := http.NewRequest(http.MethodPost, url+"/", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "text/event-stream")
	if err := req.Write(conn); err != nil {
		t.Fatal(err)
	}
	_ = conn.SetReadDeadline(time.Now().Add(20 * time.Second))
	resp, err := http.ReadResponse(bufio.NewReader(conn), req)
	if err != nil {
		t.Fatal(err)
	}
	var id, state string
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for sc.Scan() {
		data, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok {
			continue
		}
		var ev struct {
			Result struct {
				Kind   string `json:"kind"`
				ID     string `json:"id"`
				TaskID string `json:"taskId"`
				Status struct {
					State string `json:"state"`
				} `json:"status"`
			} `json:"result"`
		}
		if err := json.Unmarshal([]byte(data), &ev); err != nil {
			t.Fatalf("event %s: %v", data, err)
		}
		if id == "" {
			id = ev.Result.TaskID // a status or artifact update
			if ev.Result.Kind == "task" {
				id = ev.Result.ID
			}
		}
		if ev.Result.Status.State != "" {
			state = ev.Result.Status.State
		}
	}
	if err := sc.Err(); err != nil || id == "" || state != "input-required" {
		t.Fatalf("kept turn: task %q ends %q, %v; want input-required", id, state, err)
	}
	_ = conn.SetReadDeadline(time.Time{})
	return a2a.TaskID(id)
}

func TestReplayRFC(t *testing.T) {
	t.Parallel()
	srv := startServe(t, "--replay", recording("rfc-approve-write.jsonl"), "--replay", recording("rfc-reject-write.jsonl"), "--quiet")
	c := libClient(t, srv.url, a2a.TransportProtocolHTTPJSON, false)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	for option, want := range map[string][]string{"proceed_once": {"EXECUTING", "SUCCEEDED"}, "cancel": {"CANCELLED"}} {
		id := firstTurn(t, ctx, c, "Please write hello.txt")
		m := a2a.NewMessage(a2a.MessageRoleUser, a2a.NewDataPart(map[string]any{"tool_call_id": "write_file-rfc-1", "selected_option_id": option}))
		m.TaskID = id
		evs, err := streamAll(ctx, c, &a2a.SendMessageRequest{Message: m})
		if err != nil {
			t.Fatalf("answer %s: %v", option, err)
		}
		if diff := cmp.Diff(want, toolStatuses(evs)); diff != "" {
			t.Errorf("answer %s: tool statuses (-want +got):\n%s", option, diff)
		}
	}
	card, err := agentcard.DefaultResolver.Resolve(ctx, srv.url)
	if err != nil || len(card.Capabilities.Extensions) != 1 || !strings.Contains(card.Capabilities.Extensions[0].URI, "developer-profile") {
		t.Errorf("card extensions = %v, %v; want the development-tool extension", card, err)
	}
}

func httpBody(t *testing.T, method, url, body string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(b)
}

func TestReplayCommands(t *testing.T) {
	t.Parallel()
	srv := startServe(t, "--replay", recording("commands.jsonl"), "--replay", recording("rfc-approve-write.jsonl"),
		"--transport", "jsonrpc", "--quiet")
	checkCalls(t, srv.url, append(commandCalls,
		httpCall{"POST", "/", `{"jsonrpc":"2.0","id":2,"method":"command/execute","params":{"command_path":["memory","show"],"args":""}}`, 200, `"STARTED"`},
		httpCall{"POST", "/", `{"jsonrpc":"2.0","id":3,"method":"tasks/get","params":{"id":"missing"}}`, 200, `"error"`}))
}

// httpCall is one plain HTTP request and what its answer must be.
type httpCall struct {
	method, path, body string
	code               int
	want               string
}

// commandCalls exercise both shapes of slash-command endpoints served from testdata/recordings/commands.jsonl.
var commandCalls = []httpCall{
	{"GET", "/listCommands", "", 200, `"subCommands"`},
	{"POST", "/executeCommand", `{"command":"memory show","args":[]}`, 200, "Current memory content"},
	{"POST", "/executeCommand", `{"command":"nope","args":[]}`, 404, "Command not found"},
	{"POST", "/", `{"jsonrpc":"2.0","id":1,"method":"commands/get"}`, 200, `"sub_commands"`},
}

// checkCalls sends each call to base and checks its status and that the body contains what it wants.
func checkCalls(t *testing.T, base string, calls []httpCall) {
	t.Helper()
	for _, c := range calls {
		code, body := httpBody(t, c.method, base+c.path, c.body)
		if code != c.code || !strings.Contains(body, c.want) {
			t.Errorf("%s %s %s = %d %s, want %d containing %s", c.method, c.path, c.body, code, body, c.code, c.want)
		}
	}
}

// lineShape summarises a recording line: the user's decision or the event's kind, state and
// tool status, which an equivalent recording must reproduce in order.
func lineShapes(t *testing.T, data []byte) []string {
	t.Helper()
	var out []string
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		var sr a2a.StreamResponse
		if err := json.Unmarshal(sc.Bytes(), &sr); err != nil {
			t.Fatalf("recorded line %q: %v", sc.Text(), err)
		}
		switch v := sr.Event.(type) {
		case *a2a.Message:
			var outcomes []any
			for _, p := range v.Parts {
				if d, ok := p.Data().(map[string]any); ok {
					outcomes = append(outcomes, d["outcome"])
				}
			}
			out = append(out, fmt.Sprintf("%s %v", v.Role, outcomes))
		case *a2a.Task:
			out = append(out, "task "+string(v.Status.State))
		case *a2a.TaskStatusUpdateEvent:
			out = append(out, fmt.Sprintf("status %s %v", v.Status.State, toolStatuses([]a2a.Event{v})))
		case *a2a.TaskArtifactUpdateEvent:
			out = append(out, "artifact "+string(v.Artifact.ID))
		}
	}
	return out
}

func TestRecordThroughProxy(t *testing.T) {
	t.Parallel()
	name := "gemini-approve-shell.jsonl"
	upstream := startServe(t, "--replay", recording(name), "--quiet")
	out := filepath.Join(t.TempDir(), "recorded.jsonl")
	proxy := startServe(t, "--proxy", upstream.url, "--record", out, "--quiet")
	c := libClient(t, proxy.url, a2a.TransportProtocolHTTPJSON, false)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	id := firstTurn(t, ctx, c, "Please run the shell command echo hi")
	if _, err := streamAll(ctx, c, geminiAnswer(id, "run_shell_command-1795324975068-92d8af13bdf29", "proceed_once")); err != nil {
		t.Fatalf("answer: %v", err)
	}
	proxy.stop(t)
	got, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile(recording(name))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(lineShapes(t, want), lineShapes(t, got)); diff != "" {
		t.Errorf("recording through the proxy differs from the replayed one (-want +got):\n%s", diff)
	}
	// The recording replays: the same turn comes back from it.
	again := startServe(t, "--replay", out, "--quiet")
	c2 := libClient(t, again.url, a2a.TransportProtocolHTTPJSON, false)
	firstTurn(t, ctx, c2, "anything")
}

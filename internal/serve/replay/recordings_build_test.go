package replay

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	legacy "github.com/a2aproject/a2a-go/a2a"
	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2acompat/a2av0"
)

var buildRecordings = flag.Bool("build-recordings", false,
	"regenerate ../../../testdata/recordings from ../../../../shared/devtool/captures")

const (
	recordingsDir = "../../../testdata/recordings"
	capturesDir   = "../../../../shared/devtool/captures"
)

// capture is one captured turn: the JSON-RPC results of its envelopes, as generic JSON.
type capture []map[string]any

func loadCapture(t *testing.T, name string) capture {
	t.Helper()
	f, err := os.Open(filepath.Join(capturesDir, name))
	if err != nil {
		t.Fatalf("open capture: %v", err)
	}
	defer f.Close()
	var out capture
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		var env struct{ Result map[string]any }
		if err := json.Unmarshal(sc.Bytes(), &env); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		out = append(out, env.Result)
	}
	return out
}

// ids returns the task and context ids of a capture.
func (c capture) ids() (string, string) {
	r := c[0]
	if id, ok := r["taskId"].(string); ok {
		return id, r["contextId"].(string)
	}
	return r["id"].(string), r["contextId"].(string)
}

// retarget rewrites a capture's ids to those of another task (for splicing), then replaces each
// further old, new pair of strings.
func retarget(t *testing.T, c capture, taskID, ctxID string, pairs ...string) capture {
	t.Helper()
	oldT, oldC := c.ids()
	b, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	pairs = append([]string{oldT, taskID, oldC, ctxID}, pairs...)
	for i := 0; i+1 < len(pairs); i += 2 {
		b = bytes.ReplaceAll(b, []byte(pairs[i]), []byte(pairs[i+1]))
	}
	var out capture
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// recWriter builds one recording file.
type recWriter struct {
	t   *testing.T
	buf bytes.Buffer
}

func (w *recWriter) line(v any) {
	b, err := json.Marshal(v)
	if err != nil {
		w.t.Fatalf("marshal line: %v", err)
	}
	w.buf.Write(b)
	w.buf.WriteByte('\n')
}

// events converts v0.3 results to v1 stream responses through a2a-go's compat conversion.
func (w *recWriter) events(c capture) {
	for _, r := range c {
		b, err := json.Marshal(r)
		if err != nil {
			w.t.Fatal(err)
		}
		old, err := legacy.UnmarshalEventJSON(b)
		if err != nil {
			w.t.Fatalf("decode v0.3 event: %v", err)
		}
		ev, err := a2av0.ToV1Event(old)
		if err != nil {
			w.t.Fatalf("convert event: %v", err)
		}
		w.line(a2a.StreamResponse{Event: ev})
	}
}

// request writes the first user message, taken from the task's history.
func (w *recWriter) request(c capture) {
	hist := c[0]["history"].([]any)
	b, err := json.Marshal(hist[0])
	if err != nil {
		w.t.Fatal(err)
	}
	var old legacy.Message
	if err := json.Unmarshal(b, &old); err != nil {
		w.t.Fatalf("decode request: %v", err)
	}
	m, err := a2av0.ToV1Message(&old)
	if err != nil {
		w.t.Fatalf("convert request: %v", err)
	}
	m.TaskID, m.ContextID = "", ""
	w.line(a2a.StreamResponse{Event: m})
}

// answer writes a user message answering tool calls on the capture's task.
func (w *recWriter) answer(c capture, id string, data ...map[string]any) {
	taskID, ctxID := c.ids()
	parts := make([]*a2a.Part, len(data))
	for i, d := range data {
		parts[i] = a2a.NewDataPart(d)
	}
	m := a2a.NewMessage(a2a.MessageRoleUser, parts...)
	m.ID, m.TaskID, m.ContextID = id, a2a.TaskID(taskID), ctxID
	w.line(a2a.StreamResponse{Event: m})
}

func (w *recWriter) save(name string) {
	if err := os.WriteFile(filepath.Join(recordingsDir, name), w.buf.Bytes(), 0o644); err != nil {
		w.t.Fatal(err)
	}
}

// callID is the id of the tool call waiting for approval in a capture.
func callID(c capture) string {
	for _, r := range c {
		if d := toolData(r); d != nil && d["status"] == "awaiting_approval" {
			return d["request"].(map[string]any)["callId"].(string)
		}
	}
	return ""
}

func toolData(r map[string]any) map[string]any {
	st, _ := r["status"].(map[string]any)
	msg, _ := st["message"].(map[string]any)
	parts, _ := msg["parts"].([]any)
	if len(parts) == 0 {
		return nil
	}
	p, _ := parts[0].(map[string]any)
	d, _ := p["data"].(map[string]any)
	if _, ok := d["request"]; !ok {
		return nil
	}
	return d
}

func gemini(call, outcome string) map[string]any {
	return map[string]any{"callId": call, "outcome": outcome}
}

func TestBuildRecordings(t *testing.T) {
	if !*buildRecordings {
		t.Skip("run with -build-recordings to regenerate testdata/recordings")
	}
	if err := os.MkdirAll(recordingsDir, 0o755); err != nil {
		t.Fatal(err)
	}
	card, err := os.ReadFile(filepath.Join(capturesDir, "agent-card.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(recordingsDir, "gemini-agent-card.json"), card, 0o644); err != nil {
		t.Fatal(err)
	}
	twoTurns := map[string][3]string{
		"gemini-approve-write.jsonl": {"approve-write-1.jsonl", "approve-write-2.jsonl", "proceed_once"},
		"gemini-approve-shell.jsonl": {"approve-shell-1.jsonl", "approve-shell-2.jsonl", "proceed_once"},
	}
	for out, in := range twoTurns {
		w := &recWriter{t: t}
		first, second := loadCapture(t, in[0]), loadCapture(t, in[1])
		w.request(first)
		w.events(first)
		w.answer(first, "msg-"+strings.TrimSuffix(out, ".jsonl")+"-2", gemini(callID(first), in[2]))
		w.events(second)
		w.save(out)
	}
	buildRejectWrite(t)
	oneTurn := map[string]string{
		"gemini-auto-execute.jsonl": "auto-execute-1.jsonl",
		"gemini-live-output.jsonl":  "live-output-1.jsonl",
		"gemini-api-error.jsonl":    "api-error-1.jsonl",
	}
	for out, in := range oneTurn {
		w := &recWriter{t: t}
		c := loadCapture(t, in)
		w.request(c)
		w.events(c)
		w.save(out)
	}
	buildApproveEdit(t)
	buildTwoTools(t)
	buildRFC(t)
	buildCommands(t)
}

// buildRejectWrite shares its first turn with gemini-approve-write, so that the two files served
// together are the approve and reject branches of one session: the captured rejection is moved
// onto the approved capture's task, call and workspace.
func buildRejectWrite(t *testing.T) {
	first := loadCapture(t, "approve-write-1.jsonl")
	rejected := loadCapture(t, "reject-write-1.jsonl")
	taskID, ctxID := first.ids()
	second := retarget(t, loadCapture(t, "reject-write-2.jsonl"), taskID, ctxID,
		callID(rejected), callID(first), "/reject-write", "/approve-write")
	w := &recWriter{t: t}
	w.request(first)
	w.events(first)
	w.answer(first, "msg-gemini-reject-write-2", gemini(callID(first), "cancel"))
	w.events(second)
	w.save("gemini-reject-write.jsonl")
}

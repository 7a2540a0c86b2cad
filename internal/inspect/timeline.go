package inspect

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/a2acli/a2a/internal/devtool"
)

// decodeEvent reads one observed answer as an a2a event: a StreamResponse (REST, or what the decoding path
// hands over), a JSON-RPC envelope around one, or a bare Task (REST GetTask). ok is false for anything else (a
// list, an error, a v0.3 payload).
func decodeEvent(raw []byte) (ev a2a.Event, ok bool) {
	var env struct {
		JSONRPC string          `json:"jsonrpc"`
		Result  json.RawMessage `json:"result"`
	}
	if json.Unmarshal(raw, &env) != nil {
		return nil, false
	}
	if env.JSONRPC != "" {
		raw = env.Result
	}
	var sr a2a.StreamResponse
	if json.Unmarshal(raw, &sr) == nil {
		return sr.Event, true
	}
	var t a2a.Task
	if json.Unmarshal(raw, &t) == nil && t.ID != "" && t.Status.State != "" {
		return &t, true
	}
	return nil, false
}

// requestMessage finds the message of a SendMessage request body: REST's {"message": …}, JSON-RPC's params.
func requestMessage(body []byte) *a2a.Message {
	var req struct {
		Message *a2a.Message `json:"message"`
		Params  *struct {
			Message *a2a.Message `json:"message"`
		} `json:"params"`
	}
	if json.Unmarshal(body, &req) != nil {
		return nil
	}
	if req.Params != nil && req.Params.Message != nil {
		return req.Params.Message
	}
	return req.Message
}

// Item is one thing that happened to a task (GET /_a2a/api/tasks/{id}).
type Item struct {
	Time     string  `json:"time"`
	OffsetMS float64 `json:"offsetMs"` // since the task's first item
	Call     int64   `json:"call"`
	Kind     string  `json:"kind"` // call, message, task, status, artifact, tool, permission, thought, error
	State    string  `json:"state,omitempty"`
	Text     string  `json:"text,omitempty"`
}

// Timeline is a task's history across every call that touched it.
type Timeline struct {
	Task    string  `json:"task"`
	Context string  `json:"context,omitempty"`
	Calls   []int64 `json:"calls"`
	Items   []Item  `json:"items"`
}

type stamped struct {
	at   time.Time
	item Item
}

// timeline builds a task's timeline from the kept calls.
func (h *hub) timeline(task string) *Timeline {
	type snap struct {
		c   call
		evs []event
	}
	var calls []snap
	h.mu.Lock()
	for _, c := range h.calls {
		if !c.gone && h.byID[c.id] != nil && (c.taskID == task || (c.taskID == "" && strings.Contains(string(c.body), task))) {
			calls = append(calls, snap{c: *c, evs: append([]event(nil), c.evs...)})
		}
	}
	h.mu.Unlock()
	if len(calls) == 0 {
		return nil
	}
	tl := &Timeline{Task: task, Calls: []int64{}, Items: []Item{}}
	var all []stamped
	for _, s := range calls {
		c := &s.c
		tl.Calls = append(tl.Calls, c.id)
		if tl.Context == "" {
			tl.Context = c.contextID
		}
		add := func(at time.Time, kind, state, text string) {
			all = append(all, stamped{at, Item{Call: c.id, Kind: kind, State: state, Text: clip(text)}})
		}
		add(c.start, "call", "", c.method)
		if m := requestMessage(c.body); m != nil && strings.HasPrefix(c.method, "Send") {
			add(c.start, "message", "", "user: "+partsText(m.Parts))
		}
		for _, e := range s.evs {
			ev, ok := decodeEvent(e.raw)
			if !ok || string(ev.TaskInfo().TaskID) != task {
				continue
			}
			for _, it := range describeEvent(ev) {
				add(e.at, it.Kind, it.State, it.Text)
			}
		}
		if c.errMsg != "" {
			add(c.end, "error", "", c.errMsg)
		}
	}
	sortStamped(all)
	for i := range all {
		it := all[i].item
		it.Time = all[i].at.UTC().Format(time.RFC3339Nano)
		it.OffsetMS = float64(all[i].at.Sub(all[0].at).Microseconds()) / 1000
		tl.Items = append(tl.Items, it)
	}
	return tl
}

func sortStamped(s []stamped) {
	// insertion sort keeps calls' own order for equal times; timelines are short
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j].at.Before(s[j-1].at); j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}

// describeEvent turns one event into timeline items: the development-tool extension's tool calls, permission
// prompts and thoughts (decoded by internal/devtool), or the plain status, artifact and message.
func describeEvent(ev a2a.Event) []Item {
	var out []Item
	if ups, ok := devtool.Decode(ev); ok {
		for _, u := range ups {
			switch {
			case u.Kind == devtool.KindTool && u.Tool != nil && u.Tool.Confirmation != nil:
				cf := u.Tool.Confirmation
				out = append(out, Item{Kind: "permission", Text: firstOf(cf.Title, cf.Command, cf.FilePath, cf.Prompt, u.Tool.Label()) + " (asks permission: " + u.Tool.Label() + ")"})
			case u.Kind == devtool.KindTool && u.Tool != nil:
				out = append(out, Item{Kind: "tool", State: string(u.Tool.Status), Text: strings.TrimSpace(u.Tool.Label() + " " + u.Tool.KeyArg)})
			case u.Kind == devtool.KindThought:
				out = append(out, Item{Kind: "thought", Text: strings.TrimSpace(u.Thought.Subject + ": " + u.Thought.Description)})
			}
		}
	}
	switch v := ev.(type) {
	case *a2a.Task:
		out = append(out, Item{Kind: "task", State: short(v.Status.State), Text: fmt.Sprintf("%d artifacts, %d messages", len(v.Artifacts), len(v.History))})
	case *a2a.TaskStatusUpdateEvent:
		text := ""
		if v.Status.Message != nil && len(out) == 0 { // the extension's events say it better than their raw parts
			text = partsText(v.Status.Message.Parts)
		}
		out = append(out, Item{Kind: "status", State: short(v.Status.State), Text: text})
	case *a2a.TaskArtifactUpdateEvent:
		what := "new"
		if v.Append {
			what = "append"
		}
		if v.LastChunk {
			what += ", last chunk"
		}
		name := ""
		if v.Artifact != nil {
			name = firstOf(v.Artifact.Name, string(v.Artifact.ID))
			what += ": " + partsText(v.Artifact.Parts)
		}
		out = append(out, Item{Kind: "artifact", Text: name + " (" + what + ")"})
	case *a2a.Message:
		out = append(out, Item{Kind: "message", Text: strings.ToLower(strings.TrimPrefix(string(v.Role), "ROLE_")) + ": " + partsText(v.Parts)})
	}
	return out
}

func short(s a2a.TaskState) string {
	return strings.ReplaceAll(strings.ToLower(strings.TrimPrefix(string(s), "TASK_STATE_")), "_", "-")
}

func partsText(parts a2a.ContentParts) string {
	var b strings.Builder
	for _, p := range parts {
		if p == nil {
			continue
		}
		switch c := p.Content.(type) {
		case a2a.Text:
			b.WriteString(string(c))
		case a2a.Data:
			raw, _ := json.Marshal(c.Value) // a decoded value encodes
			b.Write(raw)
		default:
			b.WriteString("[file]")
		}
	}
	return b.String()
}

func firstOf(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}

// clip keeps timeline text short.
func clip(s string) string {
	const n = 300
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}

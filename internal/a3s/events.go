package a3s

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/a2acli/a2a/internal/devtool"
)

// The development-tool extension's event kinds and tool-call states, as the RFC names them.
const (
	kindToolUpdate  = "TOOL_CALL_UPDATE"
	kindThought     = "THOUGHT"
	kindStateChange = "STATE_CHANGE"

	statusPending   = "PENDING"
	statusExecuting = "EXECUTING"
	statusSucceeded = "SUCCEEDED"
	statusFailed    = "FAILED"
	statusCancelled = "CANCELLED"
)

// Option ids of a confirmation: A3S Code's ConfirmToolExecution is yes or no.
const (
	optionApprove = "proceed_once"
	optionReject  = "cancel"
)

// callState is what the bridge knows of one tool call of a generation.
type callState struct {
	id, name, args string
	status         string
	confirm        bool // waits (or waited) for permission
	rejected       bool // the user said no
	output, errMsg string
	live           string // tool_output_delta so far
}

func devtoolMeta(kind string) map[string]any {
	return map[string]any{devtool.URI: map[string]any{"kind": kind}}
}

// stateEvent is a working status marked as the extension's state change.
func stateEvent(info a2a.TaskInfo) a2a.Event {
	ev := a2a.NewStatusUpdateEvent(info, a2a.TaskStateWorking, nil)
	ev.Metadata = devtoolMeta(kindStateChange)
	return ev
}

// toolEvent is the RFC's ToolCall for cs in a working status update.
func toolEvent(info a2a.TaskInfo, cs *callState) a2a.Event {
	data := map[string]any{"tool_call_id": cs.id, "tool_name": cs.name, "status": cs.status}
	params := argsObject(cs.args)
	if params != nil {
		data["input_parameters"] = params
	}
	if cs.confirm && cs.status == statusPending {
		data["confirmation_request"] = confirmationRequest(cs, params)
	}
	if cs.output != "" {
		data["output"] = map[string]any{"text": cs.output}
	}
	if cs.errMsg != "" {
		data["error"] = map[string]any{"message": cs.errMsg}
	}
	if cs.live != "" && cs.status == statusExecuting {
		data["live_content"] = cs.live
	}
	msg := a2a.NewMessageForTask(a2a.MessageRoleAgent, info, a2a.NewDataPart(data))
	ev := a2a.NewStatusUpdateEvent(info, a2a.TaskStateWorking, msg)
	ev.Metadata = devtoolMeta(kindToolUpdate)
	return ev
}

// confirmationRequest offers the two answers ConfirmToolExecution has: a shell-like call (an
// argument "command") shows as an execution, anything else as a generic description.
func confirmationRequest(cs *callState, params map[string]any) map[string]any {
	cr := map[string]any{"options": []any{
		map[string]any{"id": optionApprove, "name": "Allow once"},
		map[string]any{"id": optionReject, "name": "Reject"},
	}}
	if cmd, ok := params["command"].(string); ok && cmd != "" {
		d := map[string]any{"command": cmd}
		if cwd, ok := params["cwd"].(string); ok {
			d["working_directory"] = cwd
		}
		cr["execute_details"] = d
		return cr
	}
	desc := "Run " + cs.name
	if cs.args != "" && cs.args != "{}" {
		desc += " " + cs.args
	}
	cr["generic_details"] = map[string]any{"description": desc}
	return cr
}

func argsObject(s string) map[string]any {
	if strings.TrimSpace(s) == "" {
		return nil
	}
	var m map[string]any
	if json.Unmarshal([]byte(s), &m) != nil || len(m) == 0 {
		return nil
	}
	return m
}

// thoughtEvent is a reasoning step as the extension's thought.
func thoughtEvent(info a2a.TaskInfo, text string) a2a.Event {
	msg := a2a.NewMessageForTask(a2a.MessageRoleAgent, info,
		a2a.NewDataPart(map[string]any{"subject": "Reasoning", "description": text}))
	ev := a2a.NewStatusUpdateEvent(info, a2a.TaskStateWorking, msg)
	ev.Metadata = devtoolMeta(kindThought)
	return ev
}

// reasoningKeys are the metadata keys of a metadata chunk that carry the model's reasoning.
var reasoningKeys = []string{"reasoning", "reasoning_content", "thinking", "thought"}

func reasoning(meta map[string]string) string {
	for _, k := range reasoningKeys {
		if v := meta[k]; v != "" {
			return v
		}
	}
	return ""
}

// answerOf reads an answer to a tool call from msg: the RFC's ToolCallConfirmation
// {tool_call_id, selected_option_id} or the Gemini server's {callId, outcome}.
func answerOf(msg *a2a.Message) (callID, option string, ok bool) {
	for _, p := range msg.Parts {
		if p == nil {
			continue
		}
		d, isData := p.Content.(a2a.Data)
		if !isData {
			continue
		}
		m, _ := d.Value.(map[string]any)
		id := firstString(m, "tool_call_id", "toolCallId", "callId")
		opt := firstString(m, "selected_option_id", "selectedOptionId", "outcome")
		if id != "" && opt != "" {
			return id, opt, true
		}
	}
	return "", "", false
}

func firstString(m map[string]any, keys ...string) string {
	for _, k := range keys {
		if s, ok := m[k].(string); ok && s != "" {
			return s
		}
	}
	return ""
}

// rejects reports whether an option id says no.
func rejects(option string) bool {
	o := strings.ToLower(option)
	for _, w := range []string{"cancel", "reject", "deny", "decline"} {
		if strings.Contains(o, w) {
			return true
		}
	}
	return false
}

// promptText is what the A3S agent gets from an A2A message: text parts as they are, data parts
// as JSON, text files inline; other files are named only (the interface has no attachments).
func promptText(msg *a2a.Message) string {
	var parts []string
	for _, p := range msg.Parts {
		if p == nil {
			continue
		}
		switch c := p.Content.(type) {
		case a2a.Text:
			parts = append(parts, string(c))
		case a2a.Data:
			b, err := json.Marshal(c.Value)
			if err == nil {
				parts = append(parts, string(b))
			}
		case a2a.Raw:
			if strings.HasPrefix(p.MediaType, "text/") {
				parts = append(parts, string(c))
			} else {
				parts = append(parts, fmt.Sprintf("[file %s (%s, %d bytes) not sent: the A3S interface takes text only]", p.Filename, p.MediaType, len(c)))
			}
		case a2a.URL:
			parts = append(parts, fmt.Sprintf("[file %s: %s]", p.Filename, string(c)))
		}
	}
	return strings.Join(parts, "\n")
}

// settingsOf reads the development-tool agent settings of msg (either shape): the workspace, and
// whether tools run without asking (auto is nil when the message does not say).
func settingsOf(msg *a2a.Message) (workspace string, auto *bool) {
	if msg == nil {
		return "", nil
	}
	if m, ok := msg.Metadata[devtool.URI].(map[string]any); ok {
		workspace = firstString(m, "workspace_path", "workspacePath")
		auto = boolOf(m, "auto_execute", "autoExecute")
	}
	if m, ok := msg.Metadata["coderAgent"].(map[string]any); ok {
		if workspace == "" {
			workspace = firstString(m, "workspacePath")
		}
		if auto == nil {
			auto = boolOf(m, "autoExecute")
		}
	}
	return workspace, auto
}

func boolOf(m map[string]any, keys ...string) *bool {
	for _, k := range keys {
		if b, ok := m[k].(bool); ok {
			return &b
		}
	}
	return nil
}

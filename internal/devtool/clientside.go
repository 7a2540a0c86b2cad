package devtool

import "github.com/a2aproject/a2a-go/v2/a2a"

// What the client side of a development-tool conversation needs beyond decoding: telling the dialect from a
// task's history, replaying that history through a Session, and standing in for a call a later process answers.

// StandInCall is the pending call with id in the shape the agent speaks, for an answer from a later process whose
// session never saw the call. An RFC stand-in lists no options, so that any option id the user read from the agent
// passes; Gemini's outcomes are fixed (never modify_with_editor: it opens an editor on the agent's machine). Plain
// means the dialect is unknown: Gemini's (that server declares nothing).
func StandInCall(id string, shape Shape) *ToolCall {
	if shape == RFC {
		return &ToolCall{ID: id, Shape: RFC, Status: Pending, Confirmation: &Confirmation{Kind: "generic"}}
	}
	return &ToolCall{ID: id, Shape: Gemini, Status: Pending, Confirmation: &Confirmation{
		Kind: "generic",
		Options: []Option{
			{ID: "proceed_once"}, {ID: "proceed_always"}, {ID: "cancel"}, {ID: "proceed_always_server"}, {ID: "proceed_always_tool"},
		},
	}}
}

// HistoryEvent is an agent message m of task's history as the tool-call status update the dialect's stream
// carries it in, so that a Session applying it learns the calls and options the message holds.
func HistoryEvent(shape Shape, task *a2a.Task, m *a2a.Message) *a2a.TaskStatusUpdateEvent {
	meta := map[string]any{"coderAgent": map[string]any{"kind": "tool-call-update"}}
	if shape == RFC {
		meta = map[string]any{URI: map[string]any{"kind": "TOOL_CALL_UPDATE"}}
	}
	return &a2a.TaskStatusUpdateEvent{TaskID: task.ID, ContextID: task.ContextID, Metadata: meta,
		Status: a2a.TaskStatus{State: a2a.TaskStateWorking, Message: m}}
}

// TaskWorkspace is the workspace a coding agent recorded for the task (Gemini keeps its AgentSettings in the
// task's metadata), or "".
func TaskWorkspace(task *a2a.Task) string {
	s := NewSession()
	s.Apply(task)
	return s.Workspace()
}

// HistoryShape tells the dialect from the tool calls in agent messages: Gemini's {request:{callId}} or the RFC's
// {tool_call_id}.
func HistoryShape(history []*a2a.Message) Shape {
	for _, m := range history {
		if m.Role != a2a.MessageRoleAgent {
			continue
		}
		for _, p := range m.Parts {
			d, ok := p.Data().(map[string]any)
			if !ok {
				continue
			}
			if _, ok := d["tool_call_id"]; ok {
				return RFC
			}
			if req, ok := d["request"].(map[string]any); ok && req["callId"] != nil {
				return Gemini
			}
		}
	}
	return Plain
}

// CardDeclares reports whether the card declares the development-tool extension (the RFC shape).
func CardDeclares(card *a2a.AgentCard) bool {
	if card == nil {
		return false
	}
	for _, ext := range card.Capabilities.Extensions {
		if ext.URI == URI {
			return true
		}
	}
	return false
}

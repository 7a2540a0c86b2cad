package replay

import (
	"encoding/json"
	"maps"
	"slices"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/a2acli/a2a/internal/devtool"
)

// abortedText is what the Gemini server reports for tools cancelled by the connection rule.
const abortedText = "Execution aborted by client."

// abortEvents is what an answer gets after the connection rule fired: every tool call that waited
// for permission in the last played step, now cancelled, then the end of the turn.
func abortEvents(sess *session, answer *a2a.Message) []a2a.Event {
	info := a2a.TaskInfo{TaskID: sess.taskID, ContextID: sess.ctxID}
	var out []a2a.Event
	for _, ev := range pendingCalls(sess, answer) {
		out = append(out, ev)
	}
	// the abort is final for this task: nothing recorded applies after it
	end := a2a.NewStatusUpdateEvent(info, a2a.TaskStateInputRequired, nil)
	shape := devtool.Gemini
	if len(sess.cands) > 0 && sess.cands[0].Shape == "rfc" {
		shape = devtool.RFC
	}
	end.Metadata = devtool.StateChangeMetadata(shape)
	return append(out, end)
}

// pendingCalls finds, in the last played step, the latest update of each tool call that waited for
// permission, and turns it into a cancelled update.
func pendingCalls(sess *session, answer *a2a.Message) []*a2a.TaskStatusUpdateEvent {
	if sess.last == nil || len(sess.cands) == 0 {
		return nil
	}
	evs, _, err := stepEvents(sess.cands[0], sess.pos-1, sess.taskID, sess.ctxID)
	if err != nil {
		return nil
	}
	byID := map[string]*a2a.TaskStatusUpdateEvent{}
	var order []string
	for _, ev := range evs {
		su, ok := ev.(*a2a.TaskStatusUpdateEvent)
		if !ok || su.Status.Message == nil {
			continue
		}
		for _, p := range su.Status.Message.Parts {
			d, ok := p.Data().(map[string]any)
			if !ok {
				continue
			}
			if id, waiting := waitingCall(d); waiting {
				if _, seen := byID[id]; !seen {
					order = append(order, id)
				}
				byID[id] = cancelledUpdate(su, d)
			}
		}
	}
	answered := map[string]bool{}
	for _, d := range decisions(answer) {
		answered[d.callID] = true
	}
	some := slices.ContainsFunc(order, func(id string) bool { return answered[id] })
	var out []*a2a.TaskStatusUpdateEvent
	for _, id := range order {
		if !some || answered[id] {
			out = append(out, byID[id])
		}
	}
	return out
}

// waitingCall reports the id of a tool call waiting for permission in either shape.
func waitingCall(d map[string]any) (string, bool) {
	if st, _ := d["status"].(string); st == "awaiting_approval" {
		req, _ := d["request"].(map[string]any)
		id, _ := req["callId"].(string)
		return id, id != ""
	}
	if _, ok := d["confirmation_request"]; ok {
		id, _ := d["tool_call_id"].(string)
		return id, id != ""
	}
	return "", false
}

// cancelledUpdate copies a waiting tool call's update as cancelled with the abort error.
func cancelledUpdate(su *a2a.TaskStatusUpdateEvent, d map[string]any) *a2a.TaskStatusUpdateEvent {
	c := deepCopy(d)
	meta := maps.Clone(su.Metadata)
	if meta == nil {
		meta = map[string]any{}
	}
	if _, ok := c["confirmation_request"]; ok {
		delete(c, "confirmation_request")
		c["status"] = "CANCELLED"
		c["error"] = map[string]any{"message": abortedText}
		devtool.MarkToolCallUpdate(meta, devtool.RFC)
	} else {
		req, _ := c["request"].(map[string]any)
		id, _ := req["callId"].(string)
		name, _ := req["name"].(string)
		delete(c, "confirmationDetails")
		c["status"] = "cancelled"
		c["response"] = map[string]any{
			"callId": id,
			"responseParts": []any{map[string]any{"functionResponse": map[string]any{
				"id": id, "name": name, "response": map[string]any{"error": abortedText}}}},
			"resultDisplay": abortedText,
		}
		devtool.MarkToolCallUpdate(meta, devtool.Gemini)
	}
	info := a2a.TaskInfo{TaskID: su.TaskID, ContextID: su.ContextID}
	msg := a2a.NewMessageForTask(a2a.MessageRoleAgent, info, a2a.NewDataPart(c))
	ev := a2a.NewStatusUpdateEvent(info, a2a.TaskStateInputRequired, msg)
	ev.Metadata = meta
	return ev
}

func deepCopy(d map[string]any) map[string]any {
	b, err := json.Marshal(d)
	if err != nil {
		return maps.Clone(d)
	}
	var out map[string]any
	if err := json.Unmarshal(b, &out); err != nil {
		return maps.Clone(d)
	}
	return out
}

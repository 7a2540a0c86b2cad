package replay

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/a2acli/a2a/internal/devtool"
)

func clone(t *testing.T, r map[string]any) map[string]any {
	t.Helper()
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	var out map[string]any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// stamp sets a result's status timestamp to base+ms.
func stamp(r map[string]any, base string, ms int) map[string]any {
	ts, err := time.Parse(time.RFC3339Nano, base)
	if err != nil {
		panic(err)
	}
	r["status"].(map[string]any)["timestamp"] = ts.Add(time.Duration(ms) * time.Millisecond).UTC().Format("2006-01-02T15:04:05.000Z")
	return r
}

func timestampOf(r map[string]any) string {
	return r["status"].(map[string]any)["timestamp"].(string)
}

// toolUpdate derives a later update of the tool call in awaiting (a tool-call-confirmation result).
func toolUpdate(t *testing.T, awaiting map[string]any, status string, response map[string]any) map[string]any {
	r := clone(t, awaiting)
	r["status"].(map[string]any)["state"] = "input-required"
	r["final"] = false
	r["metadata"].(map[string]any)["coderAgent"] = map[string]any{"kind": "tool-call-update"}
	d := toolData(r)
	d["status"] = status
	delete(d, "confirmationDetails")
	if response != nil {
		d["response"] = response
	}
	return r
}

func withText(t *testing.T, r map[string]any, text string) map[string]any {
	r = clone(t, r)
	parts := r["status"].(map[string]any)["message"].(map[string]any)["parts"].([]any)
	parts[0].(map[string]any)["text"] = text
	return r
}

// buildApproveEdit: the capture has the first turn only; the second is spliced from the approved
// write's second turn with the edit's own tool call.
func buildApproveEdit(t *testing.T) {
	edit := loadCapture(t, "approve-edit-1.jsonl")
	taskID, ctxID := edit.ids()
	w2 := retarget(t, loadCapture(t, "approve-write-2.jsonl"), taskID, ctxID)
	awaiting := edit[5]
	base := timestampOf(awaiting)
	details := toolData(awaiting)["confirmationDetails"].(map[string]any)
	call := callID(edit)
	success := map[string]any{
		"callId": call,
		"responseParts": []any{map[string]any{"functionResponse": map[string]any{"id": call, "name": "replace",
			"response": map[string]any{"output": "Successfully modified file: " + details["filePath"].(string) + " (1 replacements)."}}}},
		"resultDisplay": map[string]any{"fileDiff": details["fileDiff"], "fileName": details["fileName"],
			"filePath": details["filePath"], "originalContent": details["originalContent"], "newContent": details["newContent"]},
	}
	second := capture{
		stamp(toolUpdate(t, awaiting, "scheduled", nil), base, 300),
		stamp(toolUpdate(t, awaiting, "executing", nil), base, 300),
		stamp(toolUpdate(t, awaiting, "success", success), base, 306),
		stamp(clone(t, w2[3]), base, 310),
		stamp(withText(t, w2[5], "Replaced the greeting in hello.txt."), base, 340),
		stamp(clone(t, w2[8]), base, 370),
	}
	w := &recWriter{t: t}
	w.request(edit)
	w.events(edit)
	w.answer(edit, "msg-gemini-approve-edit-2", gemini(call, "proceed_once"))
	w.events(second)
	w.save("gemini-approve-edit.jsonl")
}

// buildTwoTools splices the shell call of approve-shell into the write turn of approve-write:
// both wait in turn 1 and are confirmed one at a time.
func buildTwoTools(t *testing.T) {
	w1, w2 := loadCapture(t, "approve-write-1.jsonl"), loadCapture(t, "approve-write-2.jsonl")
	taskID, ctxID := w1.ids()
	s1 := retarget(t, loadCapture(t, "approve-shell-1.jsonl"), taskID, ctxID)
	s2 := retarget(t, loadCapture(t, "approve-shell-2.jsonl"), taskID, ctxID)
	first := capture{w1[0], w1[1], w1[2], w1[3], w1[4], w1[5],
		stamp(clone(t, s1[5]), timestampOf(w1[5]), 1), w1[6],
		stamp(clone(t, s1[6]), timestampOf(w1[6]), 1), stamp(clone(t, w1[7]), timestampOf(w1[6]), 2)}
	afterWrite := capture{w2[0], w2[1], w2[2], stamp(clone(t, w1[7]), timestampOf(w2[2]), 1)}
	w := &recWriter{t: t}
	w.request(w1)
	w.events(first)
	w.answer(w1, "msg-gemini-two-tools-2", gemini(callID(w1), "proceed_once"))
	w.events(afterWrite)
	w.answer(w1, "msg-gemini-two-tools-3", gemini(callID(s1), "proceed_once"))
	w.events(s2)
	w.save("gemini-two-tools.jsonl")
}

// rfcEvent is a status update in the RFC's shape.
func rfcEvent(state a2a.TaskState, kind string, ms int, parts ...*a2a.Part) a2a.StreamResponse {
	info := a2a.TaskInfo{TaskID: "rfc-task-0001", ContextID: "rfc-context-0001"}
	var msg *a2a.Message
	if len(parts) > 0 {
		msg = a2a.NewMessageForTask(a2a.MessageRoleAgent, info, parts...)
		msg.ID = "rfc-msg-" + kind + "-" + time.Duration(ms*int(time.Millisecond)).String()
	}
	ev := a2a.NewStatusUpdateEvent(info, state, msg)
	ts := time.Date(2026, 11, 22, 6, 0, 0, 0, time.UTC).Add(time.Duration(ms) * time.Millisecond)
	ev.Status.Timestamp = &ts
	ev.Metadata = map[string]any{devtool.URI: map[string]any{"kind": kind, "model": "gemini-2.5-pro"}}
	return a2a.StreamResponse{Event: ev}
}

func rfcWriteCall(status string, extra map[string]any) *a2a.Part {
	d := map[string]any{
		"tool_call_id": "write_file-rfc-1", "status": status, "tool_name": "WriteFile",
		"description":      "Write hello.txt",
		"input_parameters": map[string]any{"file_path": "/home/dev/project/rfc/hello.txt", "content": "hello from the RFC agent\n"},
	}
	for k, v := range extra {
		d[k] = v
	}
	return a2a.NewDataPart(d)
}

// buildRFC writes the RFC-shaped recordings (seeds/000): ToolCall DataParts with a confirmation
// request listing options, answered by a ToolCallConfirmation.
func buildRFC(t *testing.T) {
	diff := map[string]any{"file_name": "hello.txt", "file_path": "/home/dev/project/rfc/hello.txt", "old_content": "",
		"new_content":    "hello from the RFC agent\n",
		"formatted_diff": "--- hello.txt\n+++ hello.txt\n@@ -0,0 +1,1 @@\n+hello from the RFC agent\n"}
	confirm := map[string]any{"confirmation_request": map[string]any{
		"options": []any{
			map[string]any{"id": "proceed_once", "name": "Allow once"},
			map[string]any{"id": "proceed_always", "name": "Allow always", "description": "Allow WriteFile for the rest of the session"},
			map[string]any{"id": "cancel", "name": "Reject"},
		},
		"file_edit_details": diff,
	}}
	for _, branch := range []string{"approve", "reject"} {
		w := &recWriter{t: t}
		req := a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("Please write hello.txt"))
		req.ID = "msg-rfc-" + branch + "-1"
		req.Metadata = map[string]any{devtool.URI: map[string]any{"workspace_path": "/home/dev/project/rfc", "auto_execute": false}}
		w.line(a2a.StreamResponse{Event: req})
		task := &a2a.Task{ID: "rfc-task-0001", ContextID: "rfc-context-0001", History: []*a2a.Message{req}}
		ts := time.Date(2026, 11, 22, 6, 0, 0, 0, time.UTC)
		task.Status = a2a.TaskStatus{State: a2a.TaskStateSubmitted, Timestamp: &ts}
		w.line(a2a.StreamResponse{Event: task})
		w.line(rfcEvent(a2a.TaskStateWorking, "STATE_CHANGE", 1))
		w.line(rfcEvent(a2a.TaskStateWorking, "THOUGHT", 20, a2a.NewDataPart(map[string]any{
			"subject": "Planning the file write", "description": "I will create hello.txt with a greeting."})))
		w.line(rfcEvent(a2a.TaskStateWorking, "TEXT_CONTENT", 50, a2a.NewTextPart("I'll write hello.txt.")))
		w.line(rfcEvent(a2a.TaskStateWorking, "TOOL_CALL_UPDATE", 300, rfcWriteCall("PENDING", confirm)))
		w.line(rfcEvent(a2a.TaskStateInputRequired, "STATE_CHANGE", 301))
		option := map[string]string{"approve": "proceed_once", "reject": "cancel"}[branch]
		ans := a2a.NewMessage(a2a.MessageRoleUser, a2a.NewDataPart(map[string]any{"tool_call_id": "write_file-rfc-1", "selected_option_id": option}))
		ans.ID, ans.TaskID, ans.ContextID = "msg-rfc-"+branch+"-2", "rfc-task-0001", "rfc-context-0001"
		w.line(a2a.StreamResponse{Event: ans})
		if branch == "approve" {
			w.line(rfcEvent(a2a.TaskStateWorking, "TOOL_CALL_UPDATE", 800, rfcWriteCall("EXECUTING", nil)))
			w.line(rfcEvent(a2a.TaskStateWorking, "TOOL_CALL_UPDATE", 820, rfcWriteCall("SUCCEEDED", map[string]any{"output": map[string]any{"diff": diff}})))
			w.line(rfcEvent(a2a.TaskStateWorking, "TEXT_CONTENT", 850, a2a.NewTextPart("I wrote hello.txt.")))
			w.line(rfcEvent(a2a.TaskStateCompleted, "STATE_CHANGE", 880))
		} else {
			w.line(rfcEvent(a2a.TaskStateWorking, "TOOL_CALL_UPDATE", 800, rfcWriteCall("CANCELLED", map[string]any{
				"error": map[string]any{"message": "The user rejected the tool call.", "type": "cancelled"}})))
			w.line(rfcEvent(a2a.TaskStateWorking, "TEXT_CONTENT", 830, a2a.NewTextPart("OK, I left hello.txt alone.")))
			w.line(rfcEvent(a2a.TaskStateInputRequired, "STATE_CHANGE", 860))
		}
		w.save("rfc-" + branch + "-write.jsonl")
	}
}

// buildCommands writes the slash commands in both shapes as extension lines. They are not
// captured traffic: the shapes follow seeds/002 (Gemini) and seeds/000 (RFC).
func buildCommands(t *testing.T) {
	arg := map[string]any{"name": "text", "description": "The text to remember.", "isRequired": true}
	memory := map[string]any{"name": "memory", "description": "Commands for interacting with memory.", "arguments": []any{},
		"subCommands": []any{
			map[string]any{"name": "show", "description": "Show the current memory contents.", "arguments": []any{}, "subCommands": []any{}},
			map[string]any{"name": "add", "description": "Add content to the memory.", "arguments": []any{arg}, "subCommands": []any{}},
		}}
	extensions := map[string]any{"name": "extensions", "description": "List active extensions.", "arguments": []any{}, "subCommands": []any{}}
	rfcArg := map[string]any{"name": "text", "description": "The text to remember.", "is_required": true}
	rfcMemory := map[string]any{"name": "memory", "description": "Commands for interacting with memory.", "arguments": []any{},
		"sub_commands": []any{
			map[string]any{"name": "show", "description": "Show the current memory contents.", "arguments": []any{}, "sub_commands": []any{}},
			map[string]any{"name": "add", "description": "Add content to the memory.", "arguments": []any{rfcArg}, "sub_commands": []any{}},
		}}
	w := &recWriter{t: t}
	ext := func(v map[string]any) { w.line(map[string]any{ReplayExtKey: v}) }
	ext(map[string]any{"listCommands": map[string]any{"commands": []any{memory, extensions}}})
	ext(map[string]any{"executeCommand": map[string]any{
		"memory show": map[string]any{"name": "memory show", "data": "Current memory content from 1 file(s):\n\n# Project notes\n- Tests run with go test -race.\n"},
		"extensions":  map[string]any{"name": "extensions", "data": "No extensions installed."},
	}})
	ext(map[string]any{"commandsGet": map[string]any{"commands": []any{rfcMemory}}})
	ext(map[string]any{"commandExecute": map[string]any{
		"memory show": map[string]any{"execution_id": "exec-memory-show-1", "status": "STARTED"},
		"memory add":  map[string]any{"execution_id": "exec-memory-add-1", "status": "STARTED"},
	}})
	w.save("commands.jsonl")
}

package output

import (
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

// Fixtures with fixed IDs and times, shared by the golden, JSON and benchmark tests.

var fixedTime = time.Date(2025, 3, 14, 15, 9, 26, 0, time.UTC)

var taskInfo = a2a.TaskInfo{TaskID: "task-0001", ContextID: "ctx-0001"}

func fixtureCard() *a2a.AgentCard {
	return &a2a.AgentCard{
		Name:        "Echo Agent",
		Description: "Repeats what it is told.\nSecond line of the description.",
		Version:     "1.2.3",
		SupportedInterfaces: []*a2a.AgentInterface{
			{URL: "http://127.0.0.1:8080", ProtocolBinding: a2a.TransportProtocolJSONRPC, ProtocolVersion: "1.0"},
			{URL: "127.0.0.1:8081", ProtocolBinding: a2a.TransportProtocolGRPC, ProtocolVersion: "1.0", Tenant: "acme"},
		},
		Capabilities: a2a.AgentCapabilities{
			Streaming: true,
			Extensions: []a2a.AgentExtension{
				{URI: "https://example.com/ext/trace", Required: true},
				{URI: "https://example.com/ext/cost"},
			},
		},
		DefaultInputModes:  []string{"text/plain", "application/json"},
		DefaultOutputModes: []string{"text/plain"},
		Skills: []a2a.AgentSkill{
			{ID: "echo", Name: "Echo", Description: "Echoes the input", Examples: []string{"hello", "say it back"}},
			{ID: "shout", Name: "Shout"},
		},
		SecuritySchemes: a2a.NamedSecuritySchemes{
			"bearer": a2a.HTTPAuthSecurityScheme{Scheme: "Bearer"},
			"apiKey": a2a.APIKeySecurityScheme{Name: "X-API-Key", Location: a2a.APIKeySecuritySchemeLocationHeader},
		},
		Provider:         &a2a.AgentProvider{Org: "Example Org", URL: "https://example.com"},
		DocumentationURL: "https://example.com/docs",
	}
}

func fixtureMessage(role a2a.MessageRole, id string, parts ...*a2a.Part) *a2a.Message {
	return &a2a.Message{ID: id, ContextID: taskInfo.ContextID, TaskID: taskInfo.TaskID, Role: role, Parts: parts}
}

func fixtureTask() *a2a.Task {
	file := a2a.NewRawPart([]byte("%PDF-1.7 not really"))
	file.Filename, file.MediaType = "report.pdf", "application/pdf"
	return &a2a.Task{
		ID:        taskInfo.TaskID,
		ContextID: taskInfo.ContextID,
		Status: a2a.TaskStatus{
			State:     a2a.TaskStateCompleted,
			Message:   fixtureMessage(a2a.MessageRoleAgent, "msg-0003", a2a.NewTextPart("All done.")),
			Timestamp: &fixedTime,
		},
		Artifacts: []*a2a.Artifact{
			{ID: "art-0001", Name: "answer", Parts: a2a.ContentParts{a2a.NewTextPart("Hello, world!\nThis second line is long enough that a narrow terminal has to wrap it.\n\nAfter a blank line.")}},
			{ID: "art-0002", Parts: a2a.ContentParts{a2a.NewDataPart(map[string]any{"count": 3, "tags": []any{"a", "b"}, "ok": true})}},
			{ID: "art-0003", Name: "files", Parts: a2a.ContentParts{
				file,
				a2a.NewRawPart([]byte{0, 1, 2}),
				a2a.NewFileURLPart("https://example.com/image.png", "image/png"),
			}},
		},
		History: []*a2a.Message{
			fixtureMessage(a2a.MessageRoleUser, "msg-0001", a2a.NewTextPart("hello")),
			fixtureMessage(a2a.MessageRoleAgent, "msg-0002", a2a.NewTextPart("Hello, world!")),
		},
	}
}

func fixtureWorkingTask(state a2a.TaskState, id a2a.TaskID) *a2a.Task {
	return &a2a.Task{ID: id, ContextID: taskInfo.ContextID, Status: a2a.TaskStatus{State: state, Timestamp: &fixedTime}}
}

func fixtureTaskList() *a2a.ListTasksResponse {
	return &a2a.ListTasksResponse{
		Tasks: []*a2a.Task{
			fixtureWorkingTask(a2a.TaskStateCompleted, "task-0001"),
			fixtureWorkingTask(a2a.TaskStateInputRequired, "task-0002"),
			fixtureWorkingTask(a2a.TaskStateFailed, "task-0003"),
		},
		TotalSize:     7,
		PageSize:      3,
		NextPageToken: "page-2",
	}
}

// fixtureStream is a typical streamed send: the task, working, three chunks of one artifact
// (the last one marked lastChunk), then completed.
func fixtureStream() []a2a.Event {
	chunk := func(text string, appendChunk, last bool) a2a.Event {
		return &a2a.TaskArtifactUpdateEvent{
			TaskID: taskInfo.TaskID, ContextID: taskInfo.ContextID, Append: appendChunk, LastChunk: last,
			Artifact: &a2a.Artifact{ID: "art-0001", Name: "answer", Parts: a2a.ContentParts{a2a.NewTextPart(text)}},
		}
	}
	status := func(state a2a.TaskState, msg *a2a.Message) a2a.Event {
		return &a2a.TaskStatusUpdateEvent{
			TaskID: taskInfo.TaskID, ContextID: taskInfo.ContextID,
			Status: a2a.TaskStatus{State: state, Message: msg, Timestamp: &fixedTime},
		}
	}
	return []a2a.Event{
		fixtureWorkingTask(a2a.TaskStateSubmitted, taskInfo.TaskID),
		status(a2a.TaskStateWorking, fixtureMessage(a2a.MessageRoleAgent, "msg-0002", a2a.NewTextPart("Thinking…"))),
		chunk("Hel", false, false),
		chunk("lo, wor", true, false),
		chunk("ld! This reply is long enough to wrap on a narrow terminal.\nBye.", true, true),
		status(a2a.TaskStateCompleted, nil),
	}
}

func fixtureErrorDoc() ErrorDoc {
	code := -32001
	return ErrorDoc{Code: "TaskNotFoundError", Message: "task task-9999 not found", A2ACode: &code}
}

// evil holds agent text that tries to drive the terminal: a title set (OSC), a colour and a
// screen clear (CSI, also in its 8-bit form), a bell, a carriage-return overwrite and a
// bidi override.
const evil = "safe\x1b]0;pwned\x07\x1b[31mred\x1b[0m\u009b2J\a\rEVIL\u202e"

func fixtureEvilTask() *a2a.Task {
	return &a2a.Task{
		ID:        "task\x1b[2J",
		ContextID: taskInfo.ContextID,
		Status: a2a.TaskStatus{
			State:   a2a.TaskStateFailed,
			Message: fixtureMessage(a2a.MessageRoleAgent, "m\x1b]8;;http://x\x07", a2a.NewTextPart(evil)),
		},
		Artifacts: []*a2a.Artifact{{
			ID: "a\x1b[1m", Name: evil,
			Parts: a2a.ContentParts{a2a.NewTextPart(evil), a2a.NewDataPart(map[string]any{"k": evil})},
		}},
	}
}

func evilChunk() *a2a.TaskArtifactUpdateEvent {
	return &a2a.TaskArtifactUpdateEvent{
		TaskID: taskInfo.TaskID, ContextID: taskInfo.ContextID, Append: true,
		Artifact: &a2a.Artifact{ID: "art-0001", Name: evil, Parts: a2a.ContentParts{a2a.NewTextPart(evil + "\n" + evil)}},
	}
}

// execLines is what a wrapped command wrote, cut into the chunks `serve --exec CMD --chunk $'\n'` sends: each
// with its delimiter, a blank line and an indented line among them, no final newline.
var execLines = []string{"total 3\n", "\n", "  - alpha\n", "\tbeta\n", "gamma (no final newline)"}

// fixtureExecStream is a streamed exec turn: the task, working, the first chunk as a new unnamed artifact, the
// rest appended, the empty closing chunk with lastChunk, then completed.
func fixtureExecStream() []a2a.Event {
	evs := []a2a.Event{
		fixtureWorkingTask(a2a.TaskStateSubmitted, taskInfo.TaskID),
		&a2a.TaskStatusUpdateEvent{TaskID: taskInfo.TaskID, ContextID: taskInfo.ContextID,
			Status: a2a.TaskStatus{State: a2a.TaskStateWorking, Timestamp: &fixedTime}},
	}
	for i, text := range append(append([]string(nil), execLines...), "") {
		evs = append(evs, &a2a.TaskArtifactUpdateEvent{
			TaskID: taskInfo.TaskID, ContextID: taskInfo.ContextID, Append: i > 0, LastChunk: i == len(execLines),
			Artifact: &a2a.Artifact{ID: "art-0009", Parts: a2a.ContentParts{a2a.NewTextPart(text)}},
		})
	}
	return append(evs, &a2a.TaskStatusUpdateEvent{TaskID: taskInfo.TaskID, ContextID: taskInfo.ContextID,
		Status: a2a.TaskStatus{State: a2a.TaskStateCompleted, Timestamp: &fixedTime}})
}

// fixtureExecTask is the task GetTask returns after fixtureExecStream: one artifact, a part per chunk.
func fixtureExecTask() *a2a.Task {
	t := fixtureWorkingTask(a2a.TaskStateCompleted, taskInfo.TaskID)
	a := &a2a.Artifact{ID: "art-0009"}
	for _, text := range append(append([]string(nil), execLines...), "") {
		a.Parts = append(a.Parts, a2a.NewTextPart(text))
	}
	t.Artifacts = []*a2a.Artifact{a}
	return t
}

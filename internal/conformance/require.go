package conformance

import "strings"

// Level is a requirement's strength (RFC 2119).
type Level int

const (
	MUST Level = iota
	SHOULD
	MAY
)

func (l Level) String() string {
	switch l {
	case MUST:
		return "MUST"
	case SHOULD:
		return "SHOULD"
	}
	return "MAY"
}

// ParseLevel reads --level: must, should or may (the weakest level still checked).
func ParseLevel(s string) (Level, bool) {
	switch strings.ToLower(s) {
	case "must":
		return MUST, true
	case "should":
		return SHOULD, true
	case "may", "":
		return MAY, true
	}
	return MAY, false
}

// requirement is one requirement of the specification, named as the A2A TCK names it (our own ids start with A2ANC-).
type requirement struct {
	id, area, section, title string
	level                    Level
}

// requirements is every requirement a check of this package tests. A slice of constants: nothing runs at init.
var requirements = []requirement{
	{"CARD-DISC-001", "card", "8.2", "Agent Card available at /.well-known/agent-card.json", MUST},
	{"CARD-STRUCT-001", "card", "4.4.1", "Agent Card matches the specification's JSON schema", MUST},
	{"CARD-PROTO-001", "card", "8.3", "Agent Card declares its protocols (interfaces)", MUST},
	{"CARD-PROTO-002", "card", "8.3.1", "Each interface declares binding, URL and version", MUST},
	{"CARD-CACHE-001", "card", "8.6.1", "Agent Card response has a Cache-Control header", SHOULD},
	{"CARD-CACHE-002", "card", "8.6.1", "Agent Card response has an ETag header", SHOULD},
	{"CARD-CTYPE-001", "card", "8.2", "Agent Card is served as application/json", MUST},
	{"CARD-SEC-001", "card", "4.5", "Every security requirement names a declared security scheme", MUST},
	{"CARD-SIGN-001", "card", "8.4.1", "Agent Card signatures verify over the card's JCS (RFC 8785) canonical form", MUST},
	{"CARD-SIGN-003", "card", "8.4.2", "Each signature's protected header carries alg and kid", MUST},
	{"BIND-FIELD-001", "card", "5.2", "Every declared interface is reachable and answers its binding", MUST},

	{"CORE-SEND-001", "messages", "3.1.1", "SendMessage returns a Task or a Message", MUST},
	{"CORE-SEND-002", "messages", "3.1.1", "SendMessage to a terminal task is UnsupportedOperationError", MUST},
	{"CORE-EXECUTION-MODE-001", "messages", "3.2.2", "Blocking send returns at a terminal or interrupted state", MUST},
	{"CORE-EXECUTION-MODE-002", "messages", "3.2.2", "Non-blocking send returns at once", MUST},
	{"DM-TASK-001", "messages", "4.1.1", "Task has id, contextId and status", MUST},
	{"DM-MSG-001", "messages", "4.1.4", "Message has role, parts and messageId", MUST},
	{"DM-ART-001", "messages", "4.1.7", "Artifact has artifactId and parts", MUST},
	{"CORE-GET-001", "messages", "3.1.3", "GetTask returns the task's current state", MUST},
	{"CORE-GET-002", "errors", "3.1.3", "GetTask of an unknown id is TaskNotFoundError", MUST},
	{"CORE-HIST-001", "messages", "3.2.4", "historyLength=0 omits history", SHOULD},
	{"CORE-HIST-002", "messages", "3.2.4", "History does not exceed historyLength", MUST},
	{"CORE-LIST-002", "messages", "3.1.4", "ListTasks pages with a cursor", MUST},
	{"CORE-LIST-003", "messages", "3.1.4", "ListTasks sorts by status timestamp, newest first", MUST},
	{"CORE-LIST-004", "messages", "3.1.4", "ListTasks nextPageToken is empty on the last page", MUST},
	{"CORE-LIST-006", "messages", "3.1.4", "ListTasks filters by contextId and status", MUST},
	{"CORE-CANCEL-001", "messages", "3.1.5", "CancelTask of a live task returns it canceled", MUST},
	{"CORE-CANCEL-002", "errors", "3.1.5", "CancelTask of a terminal task is TaskNotCancelableError", MUST},
	{"CORE-CANCEL-003", "errors", "3.1.5", "CancelTask of an unknown id is TaskNotFoundError", MUST},
	{"CORE-MULTI-001a", "messages", "3.4.1", "A generated contextId is in the response", MUST},
	{"CORE-MULTI-004", "errors", "3.4.2", "A message naming an unknown taskId is TaskNotFoundError", MUST},
	{"CORE-MULTI-005", "messages", "3.4.3", "A follow-up with only taskId keeps the task's contextId", MUST},
	{"CORE-MULTI-006", "errors", "3.4.3", "A taskId with another task's contextId is refused", MUST},
	{"CORE-STREAM-001", "streaming", "3.1.2", "SendStreamingMessage streams events", MUST},
	{"CORE-STREAM-003", "streaming", "3.1.2", "A task stream begins with the Task and ends at a terminal or interrupted state", MUST},
	{"STREAM-SUB-001", "streaming", "3.1.6", "SubscribeToTask's first event is the Task", MUST},
	{"STREAM-SUB-002", "streaming", "3.1.6", "A subscription lasts until the task is terminal", MUST},
	{"STREAM-SUB-003", "errors", "3.1.6", "SubscribeToTask of a terminal task is UnsupportedOperationError", MUST},
	{"STREAM-SUB-004", "errors", "3.1.6", "SubscribeToTask of an unknown id is TaskNotFoundError", MUST},
	{"CORE-CAP-001", "errors", "3.3.4", "Push config operations fail when push is not declared", MUST},
	{"CORE-CAP-002", "errors", "3.3.4", "Streaming fails when streaming is not declared", MUST},
	{"CORE-CAP-003", "errors", "3.3.4", "The extended card fails when it is not declared", MUST},
	{"CARD-EXT-001", "card", "3.1.11", "The declared extended card is returned", MUST},
	{"CORE-INPUT-001", "scenarios", "3.1.1", "An input-required task continues with a follow-up", MUST},
	{"CORE-AUTH-001", "scenarios", "4.1.3", "An auth-required task stops at TASK_STATE_AUTH_REQUIRED", MUST},
	{"CORE-FAIL-001", "scenarios", "4.1.3", "Failed and rejected tasks are terminal", MUST},
	{"DM-PART-001", "scenarios", "4.1.6", "Parts carry one of text, raw/url file or data", MUST},

	{"JSONRPC-FMT-002", "wire", "9.1", "JSON-RPC responses are application/json", MUST},
	{"JSONRPC-ERR-001", "wire", "9.5", "JSON-RPC errors are error objects (code, message); unknown method is -32601", MUST},
	{"JSONRPC-SSE-002", "wire", "5.4", "A2A errors map to their JSON-RPC codes (TaskNotFoundError -32001, ContentTypeNotSupportedError -32005, VersionNotSupportedError -32009)", MUST},
	{"HTTP_JSON-SVC-001", "wire", "11.1", "HTTP+JSON responses are application/json", MUST},
	{"HTTP_JSON-STATUS-001", "wire", "5.4", "A2A errors map to their HTTP status (TaskNotFoundError 404, ContentTypeNotSupportedError 415, VersionNotSupportedError 400)", MUST},
	{"HTTP_JSON-ERR-001", "wire", "11.6", "HTTP+JSON errors use the AIP-193 shape", MUST},
	{"HTTP_JSON-ERR-002", "wire", "11.6", "HTTP+JSON errors carry a google.rpc.ErrorInfo with the A2A reason", MUST},
	{"GRPC-ERR-002", "wire", "5.4", "A2A errors map to their gRPC status (TaskNotFoundError NOT_FOUND, what the card does not declare UNIMPLEMENTED)", MUST},
	{"VER-SERVER-002", "wire", "3.6.2", "An unsupported A2A-Version is VersionNotSupportedError", MUST},

	{"PUSH-CREATE-001", "push", "3.1.7", "CreateTaskPushNotificationConfig stores the webhook", MUST},
	{"PUSH-GET-001", "push", "3.1.8", "GetTaskPushNotificationConfig returns it", MUST},
	{"PUSH-GET-002", "push", "3.1.8", "GetTaskPushNotificationConfig of an unknown config fails", MUST},
	{"PUSH-LIST-001", "push", "3.1.9", "ListTaskPushNotificationConfigs lists it", MUST},
	{"PUSH-DEL-001", "push", "3.1.10", "DeleteTaskPushNotificationConfig removes it", MUST},
	{"PUSH-DELIVER-003", "push", "4.3.3", "The webhook receives a StreamResponse for the task, with its token", MUST},

	{"BIND-EQUIV-001", "bindings", "5.1", "A task made on one binding is visible on the others", MUST},
}

func lookup(id string) requirement {
	for _, r := range requirements {
		if r.id == id {
			return r
		}
	}
	return requirement{id: id, area: "other", level: MUST}
}

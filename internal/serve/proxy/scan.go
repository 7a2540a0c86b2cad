package proxy

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/a2acli/a2a/internal/redact"
	"github.com/a2acli/a2a/internal/serve/tasks"
)

// The fast path's traffic log reads a few fields of what it forwards without decoding it into
// a2a types: a unary answer is decoded into the small structs below, a stream event is scanned
// for its task ID and state.

// peekObject holds the fields of a task, a message or an event that the log shows.
type peekObject struct {
	ID     string `json:"id"`
	TaskID string `json:"taskId"`
	Kind   string `json:"kind"`
	Status *struct {
		State string `json:"state"`
	} `json:"status"`
}

// peekResult is a unary answer: a task or message itself, or one wrapped as v1.0 wraps them.
type peekResult struct {
	peekObject
	Task    *peekObject `json:"task"`
	Message *peekObject `json:"message"`
	Tasks   []struct{}  `json:"tasks"`
	Error   *peekError  `json:"error"` // REST
}

type peekError struct {
	Message string `json:"message"`
}

// peekRPC is a JSON-RPC answer.
type peekRPC struct {
	Result *peekResult `json:"result"`
	Error  *peekError  `json:"error"`
}

// peekRequest is a JSON-RPC request: its ID, method and the task it is about.
type peekRequest struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params struct {
		ID      string `json:"id"`
		TaskID  string `json:"taskId"`
		Message struct {
			TaskID string `json:"taskId"`
		} `json:"message"`
	} `json:"params"`
}

func (r *peekRequest) taskID() string {
	for _, id := range []string{r.Params.Message.TaskID, r.Params.TaskID, r.Params.ID} {
		if id != "" {
			return id
		}
	}
	return ""
}

// describeResult is describe for a peeked answer.
func describeResult(r *peekResult) (id, state string) {
	switch {
	case r.Task != nil:
		return describeObject(r.Task)
	case r.Message != nil:
		return r.Message.TaskID, "message"
	case r.Tasks != nil:
		return fmt.Sprintf("(%d tasks)", len(r.Tasks)), "-"
	}
	return describeObject(&r.peekObject)
}

func describeObject(o *peekObject) (id, state string) {
	switch {
	case o.Kind == "message":
		return o.TaskID, "message"
	case o.Status != nil:
		id = o.TaskID
		if id == "" {
			id = o.ID
		}
		return id, tasks.ShortState(a2a.TaskState(o.Status.State))
	}
	return o.TaskID, "-"
}

// scanUnary reads the task, state and error of a whole unary answer; status is the HTTP status.
// A body that does not decode (cut short, or not JSON) is scanned like a stream event.
func scanUnary(rpc bool, status int, body []byte) (id, state, errMsg string) {
	var res *peekResult
	var perr *peekError
	if rpc {
		var env peekRPC
		if json.Unmarshal(body, &env) != nil && env.Result == nil && env.Error == nil {
			id, state, errMsg = scanEvent(body)
			return id, state, errMsg
		}
		res, perr = env.Result, env.Error
	} else {
		res = &peekResult{}
		if json.Unmarshal(body, res) != nil && res.Status == nil && res.Task == nil && res.Message == nil {
			res = nil
		}
		if res != nil {
			perr = res.Error
		}
	}
	if res != nil && perr == nil {
		id, state = describeResult(res)
	}
	switch {
	case perr != nil:
		errMsg = perr.Message
	case status >= 400:
		errMsg = fmt.Sprintf("HTTP %d", status)
	}
	if state == "" {
		state = "-"
	}
	return id, state, errMsg
}

var (
	keyResult   = []byte(`"result":`)
	keyTaskID   = []byte(`"taskId"`)
	keyID       = []byte(`"id"`)
	keyStatus   = []byte(`"status":`)
	keyState    = []byte(`"state"`)
	keyError    = []byte(`"error"`)
	artifactOne = []byte(`"artifactUpdate"`)
	artifactTwo = []byte(`"artifact-update"`)
)

// scanEvent reads the task ID and state of one stream event (the data of an SSE event, in either
// binding and version) without decoding it, and the message of an error event.
func scanEvent(data []byte) (id, state, errMsg string) {
	obj := data
	if i := bytes.Index(data, keyResult); i >= 0 {
		obj = data[i+len(keyResult):]
	} else if bytes.Contains(data, keyError) {
		var e struct {
			Error *peekError `json:"error"`
		}
		if json.Unmarshal(data, &e) == nil && e.Error != nil {
			return "", "-", e.Error.Message
		}
	}
	id = stringField(obj, keyTaskID)
	if id == "" {
		id = stringField(obj, keyID)
	}
	state = "-"
	if bytes.Contains(obj, artifactOne) || bytes.Contains(obj, artifactTwo) {
		return id, state, ""
	}
	if i := bytes.Index(obj, keyStatus); i >= 0 {
		if s := stringField(obj[i:], keyState); s != "" {
			state = tasks.ShortState(a2a.TaskState(s))
		}
	}
	return id, state, ""
}

// stringField returns the value of the first string member named key ("\"taskId\"") in data.
func stringField(data, key []byte) string {
	for {
		i := bytes.Index(data, key)
		if i < 0 {
			return ""
		}
		rest := bytes.TrimLeft(data[i+len(key):], " \t\r\n")
		data = data[i+len(key):]
		if len(rest) == 0 || rest[0] != ':' {
			continue
		}
		rest = bytes.TrimLeft(rest[1:], " \t\r\n")
		if len(rest) == 0 || rest[0] != '"' {
			continue
		}
		rest = rest[1:]
		for j := 0; j < len(rest); j++ {
			switch rest[j] {
			case '\\':
				j++
			case '"':
				return string(rest[:j])
			}
		}
		return ""
	}
}

// rawPayload is a forwarded payload as the verbose log shows it: redacted and bounded.
func rawPayload(raw []byte) string {
	n := len(raw)
	if n > 4*maxLoggedPayload {
		raw = raw[:4*maxLoggedPayload]
	}
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || (raw[0] != '{' && raw[0] != '[') {
		return fmt.Sprintf("(%d bytes, not JSON)", n)
	}
	raw = redact.JSON(raw)
	if len(raw) > maxLoggedPayload || n > 4*maxLoggedPayload {
		return fmt.Sprintf("%s… (%d bytes)", raw[:min(len(raw), maxLoggedPayload)], n)
	}
	return string(raw)
}

package mcpbridge

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

// An input-required task asks the host's user through MCP's multi round-trip requests (SEP-2322): the call's
// result carries an elicitation and a request state naming the task; the host (or, for a host on an older protocol
// version, the SDK on its behalf, by elicitation/create) retries the call with the answer, which goes to the task as
// a follow-up. The state comes back from the host, so it is signed with a key of this process: a host cannot make
// the bridge answer a task it did not ask about.

// pending is what a request state carries: the agent (its index) and the task that asked.
type pending struct {
	Agent     int    `json:"a"`
	TaskID    string `json:"t"`
	ContextID string `json:"c,omitempty"`
}

const answerKey = "answer"

// newStateKey is the key request states are signed with, new for every process.
func newStateKey() []byte {
	k := make([]byte, 32)
	_, _ = rand.Read(k) // crypto/rand.Read never fails (it crashes the program instead)
	return k
}

func (b *Bridge) sign(p pending) string {
	j, _ := json.Marshal(p) // a struct of strings and an int cannot fail
	m := hmac.New(sha256.New, b.stateKey)
	m.Write(j)
	return base64.RawURLEncoding.EncodeToString(j) + "." + base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

func (b *Bridge) verify(state string) (*pending, error) {
	body, sig, ok := strings.Cut(state, ".")
	j, err1 := base64.RawURLEncoding.DecodeString(body)
	s, err2 := base64.RawURLEncoding.DecodeString(sig)
	if !ok || err1 != nil || err2 != nil {
		return nil, errors.New("a request state this server did not make")
	}
	m := hmac.New(sha256.New, b.stateKey)
	m.Write(j)
	if !hmac.Equal(m.Sum(nil), s) {
		return nil, errors.New("a request state this server did not make")
	}
	var p pending
	if err := json.Unmarshal(j, &p); err != nil || p.Agent < 0 || p.Agent >= len(b.agents) {
		return nil, errors.New("a request state this server did not make")
	}
	return &p, nil
}

// canElicit reports whether the host can ask its user (it declared elicitation).
func canElicit(req *mcp.CallToolRequest) bool {
	if req.Session == nil {
		return false
	}
	ip := req.Session.InitializeParams()
	return ip != nil && ip.Capabilities != nil && ip.Capabilities.Elicitation != nil
}

// askHost is the result that asks the host's user to answer task.
func (b *Bridge) askHost(a *agent, task *a2a.Task) *mcp.CallToolResult {
	return &mcp.CallToolResult{
		InputRequests: mcp.InputRequestMap{answerKey: &mcp.ElicitParams{
			Message: fmt.Sprintf("%s asks: %s", a.label(), question(task)),
			RequestedSchema: map[string]any{"type": "object", "required": []string{answerKey},
				"properties": map[string]any{answerKey: map[string]any{"type": "string", "title": "Answer"}}},
		}},
		RequestState: b.sign(pending{Agent: b.indexOf(a), TaskID: string(task.ID), ContextID: task.ContextID}),
	}
}

func (b *Bridge) indexOf(a *agent) int {
	for i, x := range b.agents {
		if x == a {
			return i
		}
	}
	return -1
}

// retry is a call the host retried with the answer to askHost's elicitation: the message that carries the answer
// to the agent's task, or the task when the user declined (then the question is returned for the continue tool).
type retry struct {
	agent    *agent
	msg      *a2a.Message
	declined *a2a.Task
}

// retried reads the retry of a call (nil: the call is not one).
func (b *Bridge) retried(req *mcp.CallToolRequest) (*retry, error) {
	if req.Params.RequestState == "" {
		return nil, nil
	}
	p, err := b.verify(req.Params.RequestState)
	if err != nil {
		return nil, err
	}
	a := b.agents[p.Agent]
	task := &a2a.Task{ID: a2a.TaskID(p.TaskID), ContextID: p.ContextID, Status: a2a.TaskStatus{State: a2a.TaskStateInputRequired}}
	res, _ := req.Params.InputResponses[answerKey].(*mcp.ElicitResult) // absent or of another kind: declined
	answer, isString := "", false
	if res != nil && res.Action == "accept" {
		answer, isString = res.Content[answerKey].(string)
	}
	if !isString {
		return &retry{agent: a, declined: task}, nil
	}
	msg := a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart(answer))
	msg.TaskID, msg.ContextID = task.ID, task.ContextID
	return &retry{agent: a, msg: msg}, nil
}

package conformance

import (
	"encoding/base64"
	"strings"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

func TestOrderRule(t *testing.T) {
	t.Parallel()
	info := a2a.TaskInfo{TaskID: "t1", ContextID: "c1"}
	task := &a2a.Task{ID: "t1", ContextID: "c1", Status: a2a.TaskStatus{State: a2a.TaskStateSubmitted}}
	status := func(s a2a.TaskState) a2a.Event { return a2a.NewStatusUpdateEvent(info, s, nil) }
	art := a2a.NewArtifactEvent(info, a2a.NewTextPart("x"))
	for _, c := range []struct {
		name string
		evs  []a2a.Event
		want string // a part of the reason, "" when the rule holds
	}{
		{"task lifecycle", []a2a.Event{task, status(a2a.TaskStateWorking), art, status(a2a.TaskStateCompleted)}, ""},
		{"stops at input", []a2a.Event{task, status(a2a.TaskStateInputRequired)}, ""},
		{"one message", []a2a.Event{a2a.NewMessage(a2a.MessageRoleAgent, a2a.NewTextPart("hi"))}, ""},
		{"no event", nil, "no event"},
		{"artifact first", []a2a.Event{art, status(a2a.TaskStateCompleted)}, "first event"},
		{"after the end", []a2a.Event{task, status(a2a.TaskStateCompleted), status(a2a.TaskStateWorking)}, "follow"},
		{"never ends", []a2a.Event{task, status(a2a.TaskStateWorking)}, "closed before"},
		{"other task", []a2a.Event{task, a2a.NewStatusUpdateEvent(a2a.TaskInfo{TaskID: "t2", ContextID: "c1"}, a2a.TaskStateCompleted, nil)}, "belongs to task t2"},
	} {
		got := orderRule(c.evs)
		if (c.want == "") != (got == "") || !strings.Contains(got, c.want) {
			t.Errorf("%s: orderRule = %q, want %q", c.name, got, c.want)
		}
	}
}

func TestValidateCard(t *testing.T) {
	t.Parallel()
	v1 := `{"name":"a","description":"d","version":"1","supportedInterfaces":[{"url":"http://h","protocolBinding":"JSONRPC","protocolVersion":"1.0"}],"capabilities":{},"defaultInputModes":["text/plain"],"defaultOutputModes":["text/plain"],"skills":[]}`
	v03 := `{"name":"a","description":"d","version":"1","url":"http://h","protocolVersion":"0.3.0","capabilities":{},"defaultInputModes":["text/plain"],"defaultOutputModes":["text/plain"],"skills":[]}`
	for _, c := range []struct {
		name, body, which, bad string
	}{
		{"v1.0", v1, "v1.0 AgentCard", ""},
		{"v0.3", v03, "v0.3 AgentCard", ""},
		{"both", strings.Replace(v1, `"skills"`, `"url":"http://h","protocolVersion":"0.3.0","skills"`, 1), "v1.0 AgentCard (v0.3 fields set aside)", ""},
		{"v1.0 wrong type", strings.Replace(v1, `"name":"a"`, `"name":7`, 1), "v1.0 AgentCard", `"/name"`},
		{"v0.3 missing url", strings.Replace(v03, `"url":"http://h",`, "", 1), "v0.3 AgentCard", "url"},
		{"unknown field", strings.Replace(v1, `"name":"a"`, `"name":"a","nickname":"b"`, 1), "v1.0 AgentCard", "nickname"},
	} {
		which, err := validateCard([]byte(c.body))
		if which != c.which {
			t.Errorf("%s: schema %q, want %q", c.name, which, c.which)
		}
		switch {
		case c.bad == "" && err != nil:
			t.Errorf("%s: %v", c.name, oneLine(err))
		case c.bad != "" && (err == nil || !strings.Contains(oneLine(err), c.bad)):
			t.Errorf("%s: error %v, want one naming %s", c.name, err, c.bad)
		}
	}
}

func TestSelected(t *testing.T) {
	t.Parallel()
	r := &runner{o: Options{Level: SHOULD, Only: []string{"CORE-LIST-*", "wire"}, Skip: []string{"CORE-LIST-003"}}}
	for id, want := range map[string]bool{
		"CORE-LIST-002": true, "CORE-LIST-003": false, "JSONRPC-SSE-002": true, "CORE-SEND-001": false, "CARD-SIGN-001": false,
	} {
		if got := r.selected(lookup(id)); got != want {
			t.Errorf("selected(%s) = %v, want %v", id, got, want)
		}
	}
}

func TestProtectedHeaderProblems(t *testing.T) {
	t.Parallel()
	b64 := func(s string) string { return base64.RawURLEncoding.EncodeToString([]byte(s)) }
	for _, c := range []struct {
		protected, want string // want: a part of the problem, "" when none
	}{
		{b64(`{"alg":"ES256","typ":"JOSE","kid":"key-1","jku":"https://example.com/agent/jwks.json"}`), ""},
		{b64(`{"alg":"ES256","kid":"key-1"}`) + "==", ""},
		{b64(`{"alg":"ES256"}`), "no kid"},
		{b64(`{"kid":"k","alg":""}`), "no alg"},
		{b64(`{"alg":"ES256","kid":7}`), "no kid"},
		{b64(`[1]`), "not a JSON object"},
		{"*", "not base64url"},
	} {
		got := protectedHeaderProblems([]a2a.AgentCardSignature{{Protected: c.protected, Signature: "AAAA"}})
		if (c.want == "") != (got == "") || !strings.Contains(got, c.want) {
			t.Errorf("%s: %q, want %q", c.protected, got, c.want)
		}
	}
}

package reference

import (
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

// TestChoose: the longest scenario id the message id starts with wins (tck-artifact-file-url is not
// tck-artifact-file), and a message no scenario claims has none.
func TestChoose(t *testing.T) {
	t.Parallel()
	for id, want := range map[string]string{
		"tck-artifact-file-url-abc":      "tck-artifact-file-url",
		"tck-artifact-file-abc":          "tck-artifact-file",
		"tck-stream-artifact-chunked-1":  "tck-stream-artifact-chunked",
		"test-resubscribe-message-id-42": "test-resubscribe-message-id",
		"cancel-test-9f":                 "cancel-test",
		"hello":                          "",
		"xtck-artifact-text":             "",
	} {
		m := a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("hi"))
		m.ID = id
		if got := choose(m); got != want {
			t.Errorf("choose(%q) = %q, want %q", id, got, want)
		}
	}
}

// TestReply: only tck-message-response gets a Message without a task, and not as a follow-up to a task.
func TestReply(t *testing.T) {
	t.Parallel()
	a := agent(New(Config{}).(backend))
	m := a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("hi"))
	m.ID = "tck-message-response-1"
	if r := a.Reply(m); r == nil || r.Parts[0].Text() != "Direct message response" {
		t.Errorf("Reply(%s) = %v", m.ID, r)
	}
	m.TaskID = "t1"
	if r := a.Reply(m); r != nil {
		t.Errorf("Reply to a task = %v, want none", r)
	}
	m.TaskID, m.ID = "", "tck-artifact-text-1"
	if r := a.Reply(m); r != nil {
		t.Errorf("Reply(%s) = %v, want none", m.ID, r)
	}
}

// TestSkills: the card lists echo and every scenario, once.
func TestSkills(t *testing.T) {
	t.Parallel()
	seen := map[string]bool{}
	for _, s := range skills() {
		if seen[s.ID] {
			t.Errorf("skill %s listed twice", s.ID)
		}
		seen[s.ID] = true
	}
	if len(seen) != len(scenarios())+1 || !seen["echo"] || !seen["tck-input-required"] {
		t.Errorf("skills %v", seen)
	}
}

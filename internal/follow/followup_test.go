package follow

import (
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

// TestFollowUpJudge: what tells the task's state from before a follow-up from the agent's answer.
func TestFollowUpJudge(t *testing.T) {
	t.Parallel()
	msg := func(id string, role a2a.MessageRole) *a2a.Message {
		m := a2a.NewMessage(role, a2a.NewTextPart(id))
		m.ID = id
		return m
	}
	at, later := time.Unix(100, 0), time.Unix(200, 0)
	u0, q, u, n := msg("u0", a2a.MessageRoleUser), msg("q", a2a.MessageRoleAgent), msg("u", a2a.MessageRoleUser), msg("n", a2a.MessageRoleAgent)
	input := func(m *a2a.Message, ts time.Time) a2a.TaskStatus {
		return a2a.TaskStatus{State: a2a.TaskStateInputRequired, Message: m, Timestamp: &ts}
	}
	prior := input(q, at)
	cases := []struct {
		name    string
		f       *FollowUp
		status  a2a.TaskStatus
		history []*a2a.Message
		want    staleness
	}{
		{"no follow-up", nil, input(q, at), []*a2a.Message{u0, q, u}, fresh},
		{"not interrupted", &FollowUp{MsgID: "u"}, a2a.TaskStatus{State: a2a.TaskStateWorking}, []*a2a.Message{u0, q, u}, fresh},
		{"question older than our message (a2a-js)", &FollowUp{MsgID: "u"}, input(q, at), []*a2a.Message{u0, q, u}, stale},
		{"history ends with ours, question not in it", &FollowUp{MsgID: "u"}, input(q, at), []*a2a.Message{u0, u}, maybeStale},
		{"the agent spoke since", &FollowUp{MsgID: "u"}, input(n, later), []*a2a.Message{u0, q, u, n}, fresh},
		{"our message not in history", &FollowUp{MsgID: "u"}, input(q, at), []*a2a.Message{u0, q}, fresh},
		{"prior status again", &FollowUp{MsgID: "u", Prior: &prior}, input(q, at), nil, stale},
		{"prior state, new question", &FollowUp{MsgID: "u", Prior: &prior}, input(n, later), []*a2a.Message{u0, q, u}, fresh},
		{"prior question, new time", &FollowUp{MsgID: "u", Prior: &prior}, input(q, later), nil, fresh},
	}
	for _, tc := range cases {
		if got := tc.f.judge(tc.status, tc.history); got != tc.want {
			t.Errorf("%s: judge = %d, want %d", tc.name, got, tc.want)
		}
	}
}

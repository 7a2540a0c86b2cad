package follow

import "github.com/a2aproject/a2a-go/v2/a2a"

// FollowUp is a message sent on a task that already exists (send --task, a chat's next turn). Some agents (the a2a-js
// SDK's) answer it by first sending the task as it stands: still input-required, our message appended to its
// history, and only then what they do with the message. A state the agent held before the message arrived is not
// its answer: a follow is not settled by it (Turn.held), a polled answer is polled past it (Env.PollTaskPast).
type FollowUp struct {
	// MsgID is the id of the message sent.
	MsgID string
	// Prior is the task's status before the message, when known (nil: unknown).
	Prior *a2a.TaskStatus
}

// staleness says how sure it is that a task's interrupted state is the one it had before the follow-up.
type staleness int

const (
	fresh      staleness = iota // the agent's answer (or no follow-up at all)
	maybeStale                  // nothing in the task shows that the agent reacted: its history ends with our message
	stale                       // the status predates the message: the prior status, or a status message older than it
)

// judge tells whether status (with the task's history, nil for a status update) is the task's state from before the
// follow-up. Only interrupted states are judged: any other is news.
func (f *FollowUp) judge(status a2a.TaskStatus, history []*a2a.Message) staleness {
	if f == nil || (status.State != a2a.TaskStateInputRequired && status.State != a2a.TaskStateAuthRequired) {
		return fresh
	}
	if f.Prior != nil {
		if sameStatus(*f.Prior, status) {
			return stale
		}
		return fresh
	}
	ours := -1
	for i, m := range history {
		if m != nil && m.ID == f.MsgID && f.MsgID != "" {
			ours = i
		}
	}
	if ours < 0 {
		return fresh
	}
	for _, m := range history[ours+1:] {
		if m != nil && m.Role == a2a.MessageRoleAgent {
			return fresh // the agent said something since
		}
	}
	if sm := status.Message; sm != nil && sm.ID != "" {
		for _, m := range history[:ours] {
			if m != nil && m.ID == sm.ID {
				return stale // the question is older than our message
			}
		}
	}
	return maybeStale
}

// judgeEvent judges a task snapshot or a status update (see judge); other events are fresh.
func (f *FollowUp) judgeEvent(ev a2a.Event) staleness {
	switch e := ev.(type) {
	case *a2a.Task:
		return f.judge(e.Status, e.History)
	case *a2a.TaskStatusUpdateEvent:
		if f != nil && f.Prior != nil {
			return f.judge(e.Status, nil)
		}
	}
	return fresh
}

// sameStatus reports whether a and b are one status: the same state, status message and time.
func sameStatus(a, b a2a.TaskStatus) bool {
	if a.State != b.State {
		return false
	}
	switch {
	case (a.Message == nil) != (b.Message == nil):
		return false
	case a.Message != nil && a.Message.ID != b.Message.ID:
		return false
	}
	if a.Timestamp != nil && b.Timestamp != nil {
		return a.Timestamp.Equal(*b.Timestamp)
	}
	return true
}

// Stale reports whether task, the answer to the follow-up f, is surely the task as it stood before f's message: it
// is to be polled past (PollTaskPast), not shown as the answer.
func (f *FollowUp) Stale(task *a2a.Task) bool {
	return task != nil && f.judge(task.Status, task.History) == stale
}

package devtool

import "github.com/a2aproject/a2a-go/v2/a2a"

// Session follows one task's dev-tool traffic across a turn: de-duplicates tool updates by
// call id + status, remembers which calls wait for permission (Gemini sends the confirmation
// once, then stale input-required updates), and says when the turn ends. It is not safe for
// concurrent use; events must be applied in order.
type Session struct {
	shape     Shape
	seen      map[string]bool // call id + status (+ confirmation) already reported
	calls     map[string]*ToolCall
	order     []string // call ids in arrival order
	screens   map[string]string
	state     a2a.TaskState
	turnOver  bool
	model     string
	workspace string
}

// NewSession returns an empty session.
func NewSession() *Session {
	return &Session{seen: map[string]bool{}, calls: map[string]*ToolCall{}, screens: map[string]string{}}
}

// Apply takes the next event of the stream and returns only what is new in it: repeated tool
// states, unchanged live screens and repeated non-final states are dropped. It returns nil for
// events that are not dev-tool traffic. A Task event is not dev-tool traffic, but the session
// learns the task's state and, from Gemini's persisted settings, the workspace path.
func (s *Session) Apply(ev a2a.Event) []Update {
	ups, _ := s.Feed(ev)
	return ups
}

// Feed is Apply that also says whether the event was dev-tool traffic at all, so that a
// caller can tell "nothing new" (nil, true) from "not ours" (nil, false).
func (s *Session) Feed(ev a2a.Event) (updates []Update, ok bool) {
	if t, isTask := ev.(*a2a.Task); isTask && t != nil {
		s.noteTask(t)
		return nil, false
	}
	ups, shape := decode(ev)
	if shape == Plain {
		return nil, false
	}
	if s.shape == Plain {
		s.shape = shape
	}
	s.turnOver = false
	var out []Update
	for _, u := range ups {
		if u.Model != "" {
			s.model = u.Model
		}
		if s.keep(u) {
			out = append(out, u)
		}
	}
	return out, true
}

// keep records u and reports whether it is new.
func (s *Session) keep(u Update) bool {
	switch u.Kind {
	case KindTool:
		tc := u.Tool
		if _, known := s.calls[tc.ID]; !known {
			s.order = append(s.order, tc.ID)
		}
		s.calls[tc.ID] = tc
		key := tc.ID + "\x00" + string(tc.Status)
		if tc.Confirmation != nil {
			key += "\x00confirm"
		}
		if s.seen[key] {
			return false
		}
		s.seen[key] = true
	case KindLiveOutput:
		if prev, ok := s.screens[u.CallID]; ok && prev == u.Screen {
			return false
		}
		s.screens[u.CallID] = u.Screen
	case KindState:
		changed := u.State != s.state
		s.state = u.State
		if u.Final {
			s.turnOver = true
		}
		return changed || u.Final
	}
	return true
}

func (s *Session) noteTask(t *a2a.Task) {
	s.state = t.Status.State
	settings := obj(obj(t.Metadata, "__persistedState"), "_agentSettings")
	if ws := str(settings, "workspacePath"); ws != "" {
		s.workspace = ws
	}
}

// Active reports whether dev-tool traffic was seen.
func (s *Session) Active() bool { return s.shape != Plain }

// Shape is the shape of the first dev-tool event seen (Plain before that).
func (s *Session) Shape() Shape { return s.shape }

// Pending returns the calls waiting for permission, in arrival order. A call drops out once
// a later update shows it moved on (scheduled, executing, finished) or it was answered.
func (s *Session) Pending() []*ToolCall {
	var out []*ToolCall
	for _, id := range s.order {
		if c := s.calls[id]; c.Confirmation != nil && c.Status == Pending {
			out = append(out, c)
		}
	}
	return out
}

// TurnOver reports whether the last dev-tool event ended the turn (input-required on a
// state-change event, or a terminal state).
func (s *Session) TurnOver() bool { return s.turnOver }

// YourTurn reports whether the turn is over with no confirmation pending: the agent waits
// for the user's next message.
func (s *Session) YourTurn() bool { return s.turnOver && len(s.Pending()) == 0 }

// Call returns the latest state of a tool call, or nil.
func (s *Session) Call(id string) *ToolCall { return s.calls[id] }

// Calls returns the latest state of every tool call seen, in arrival order.
func (s *Session) Calls() []*ToolCall {
	out := make([]*ToolCall, 0, len(s.order))
	for _, id := range s.order {
		out = append(out, s.calls[id])
	}
	return out
}

// Screen returns the last live output screen of a tool call.
func (s *Session) Screen(callID string) string { return s.screens[callID] }

// State is the last task state seen.
func (s *Session) State() a2a.TaskState { return s.state }

// Model is the last model the agent named.
func (s *Session) Model() string { return s.model }

// Workspace is the workspace path the Gemini server persisted for the task, if it said.
func (s *Session) Workspace() string { return s.workspace }

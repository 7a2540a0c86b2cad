package devtool

import "github.com/a2aproject/a2a-go/v2/a2a"

// Session follows one task's dev-tool traffic across a turn: de-duplicates tool updates by
// call id + status, remembers which calls wait for permission (Gemini sends the confirmation
// once, then stale input-required updates); the turn's end is a state update marked Final. It
// is not safe for concurrent use; events must be applied in order.
type Session struct {
	shape     Shape
	seen      map[string]bool // call id + status (+ confirmation) already reported
	calls     map[string]*ToolCall
	order     []string // call ids in arrival order
	screens   map[string]string
	state     a2a.TaskState
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
	var out []Update
	for _, u := range ups {
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

// Workspace is the workspace path the Gemini server persisted for the task, if it said.
func (s *Session) Workspace() string { return s.workspace }

package follow

import "github.com/a2aproject/a2a-go/v2/a2a"

// View follows a stream of events and keeps what a client needs at the end: the task's ids, its last state and
// its artifacts (chunks appended in place, never copied per event).
type View struct {
	Task      *a2a.Task
	Message   *a2a.Message
	artifacts map[a2a.ArtifactID]*a2a.Artifact
	// Light keeps artifacts without their parts: the stream is printed (and saved) as it arrives, so holding its
	// content would only grow the client with the stream's length.
	Light bool
	// Max bounds what a view that is not Light holds of the task's content (artifact parts and messages), as
	// --max-response-bytes bounds a unary answer; 0: no bound. held is what it holds (Over reports the excess).
	Max  int64
	held int64
}

// partsSize is what a view counts for parts: their text, bytes and URLs, and a little for each part, so that a
// stream of empty or data-only parts is bounded too.
func partsSize(parts a2a.ContentParts) int64 {
	var n int64
	for _, p := range parts {
		n += 64 + int64(len(p.Text())+len(p.Raw())+len(p.URL()))
	}
	return n
}

func messageSize(m *a2a.Message) int64 {
	if m == nil {
		return 0
	}
	return partsSize(m.Parts)
}

// Over reports whether the view holds more than Max.
func (v *View) Over() bool { return v.Max > 0 && v.held > v.Max }

func (v *View) apply(ev a2a.Event) {
	switch e := ev.(type) {
	case *a2a.Task:
		// A copy: the event may still be printed, and its artifacts must not be listed twice.
		cp := *e
		cp.Artifacts = nil
		cp.History = append([]*a2a.Message(nil), e.History...)
		v.Task = &cp
		v.artifacts = nil
		v.held = messageSize(cp.Status.Message)
		for _, m := range cp.History {
			v.held += messageSize(m)
		}
		for _, a := range e.Artifacts {
			ac := *a
			ac.Parts = nil
			if !v.Light {
				ac.Parts = append(a2a.ContentParts(nil), a.Parts...)
				v.held += partsSize(a.Parts)
			}
			v.artifact(ac.ID, &ac)
		}
	case *a2a.Message:
		v.Message = e
		v.held = messageSize(e)
	case *a2a.TaskStatusUpdateEvent:
		v.ensure(e.TaskID, e.ContextID)
		// As the A2A SDKs accumulate a task: a status message that a later status replaces moves into the history
		// (a coding agent's tool calls waiting for permission live in such messages).
		if old := v.Task.Status.Message; old != nil && (e.Status.Message == nil || e.Status.Message.ID != old.ID || old.ID == "") && !inHistory(v.Task.History, old) {
			v.Task.History = append(v.Task.History, old)
		}
		v.Task.Status = e.Status
		v.held += messageSize(e.Status.Message)
	case *a2a.TaskArtifactUpdateEvent:
		v.ensure(e.TaskID, e.ContextID)
		if e.Artifact == nil {
			return
		}
		prev, ok := v.artifacts[e.Artifact.ID]
		if ok && e.Append {
			if !v.Light {
				prev.Parts = append(prev.Parts, e.Artifact.Parts...)
				v.held += partsSize(e.Artifact.Parts)
			}
			return
		}
		if ok {
			v.held -= partsSize(prev.Parts) // replaced
		}
		cp := *e.Artifact
		cp.Parts = nil
		if !v.Light {
			cp.Parts = append(a2a.ContentParts(nil), e.Artifact.Parts...)
			v.held += partsSize(e.Artifact.Parts)
		}
		v.artifact(cp.ID, &cp)
	}
}

// inHistory reports whether m (by its id) is in history already: an agent's task snapshot may list its status message
// there too, as the a2a-js and Python SDKs keep it.
func inHistory(history []*a2a.Message, m *a2a.Message) bool {
	if m.ID == "" {
		return false
	}
	for _, h := range history {
		if h != nil && h.ID == m.ID {
			return true
		}
	}
	return false
}

func (v *View) artifact(id a2a.ArtifactID, a *a2a.Artifact) {
	if v.artifacts == nil {
		v.artifacts = map[a2a.ArtifactID]*a2a.Artifact{}
	}
	if _, ok := v.artifacts[id]; !ok {
		v.Task.Artifacts = append(v.Task.Artifacts, a)
		v.held += 64 // an artifact costs something even without parts
	} else {
		for i, old := range v.Task.Artifacts {
			if old.ID == id {
				v.Task.Artifacts[i] = a
			}
		}
	}
	v.artifacts[id] = a
}

func (v *View) ensure(id a2a.TaskID, contextID string) {
	if v.Task == nil {
		v.Task = &a2a.Task{ID: id, ContextID: contextID}
	}
}

// State is the last known task state, or "" before any task event.
func (v *View) State() a2a.TaskState {
	if v.Task == nil {
		return a2a.TaskStateUnspecified
	}
	return v.Task.Status.State
}

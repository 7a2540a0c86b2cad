package replay

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/a2acli/a2a/internal/serve/tasks"
)

// session is one replayed task: the recordings still consistent with what the client sent, all at
// the same step.
type session struct {
	mu      sync.Mutex
	taskID  a2a.TaskID
	ctxID   string
	cands   []*Recording
	pos     int   // index of the next step to match
	last    *Step // the step played last
	aborted bool  // the connection rule cancelled the pending tools
}

// abort applies the connection rule: the connection of the stream that led to waiting point pos
// was closed by the client while the session still waits there.
func (s *session) abort(pos int) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.pos == pos && len(s.cands) > 0 {
		s.aborted = true
	}
	return s.aborted
}

// play is a started turn.
type play struct {
	sess     *session
	snap     *a2a.Task
	leadSnap bool // the turn's events do not start with a task: stream the snapshot first
	waits    bool // the turn ends waiting for a confirmation answer
	waitPos  int
}

// begin matches msg, records it on its task, subscribes sub (when non-nil) and starts streaming
// the matched step. It returns errNoMatch when no branch expects msg.
func (r *replayer) begin(msg *a2a.Message, sub *tasks.Subscriber) (*play, error) {
	if r.ts.Base().Err() != nil {
		return nil, a2a.NewError(a2a.ErrServerError, "server is shutting down")
	}
	if msg.TaskID == "" {
		return r.beginTask(msg, sub)
	}
	r.mu.Lock()
	sess := r.sessions[msg.TaskID]
	r.mu.Unlock()
	if sess == nil {
		return nil, a2a.ErrTaskNotFound
	}
	sess.mu.Lock()
	defer sess.mu.Unlock()
	var events []a2a.Event
	var offsets []time.Duration
	var next []*Recording
	if sess.aborted {
		if !expectsAnswerMsg(msg) {
			return nil, errNoMatch
		}
		events = abortEvents(sess, msg)
		offsets = make([]time.Duration, len(events))
	} else {
		for _, rec := range sess.cands {
			if sess.pos < len(rec.Steps) && matchesUser(rec.Steps[sess.pos].User, msg) {
				next = append(next, rec)
			}
		}
		if len(next) == 0 {
			return nil, errNoMatch
		}
		var err error
		if events, offsets, err = stepEvents(next[0], sess.pos, sess.taskID, sess.ctxID); err != nil {
			return nil, err
		}
	}
	snap, err := r.ts.Start(msg, sub, tasks.StartOptions{Reopen: true, KeepStatus: true, Run: r.player(events, offsets)})
	if err != nil {
		return nil, err
	}
	p := &play{sess: sess, snap: snap}
	if sess.aborted {
		sess.aborted, sess.cands = false, nil
	} else {
		sess.cands, sess.last = next, next[0].Steps[sess.pos]
		sess.pos++
		p.waits, p.waitPos = waitsForAnswer(next, sess.pos), sess.pos
	}
	return p, nil
}

func expectsAnswerMsg(m *a2a.Message) bool { return len(decisions(m)) > 0 }

func waitsForAnswer(cands []*Recording, pos int) bool {
	for _, rec := range cands {
		if pos < len(rec.Steps) && expectsAnswer(rec.Steps[pos].User) {
			return true
		}
	}
	return false
}

// beginTask starts a new session for a message without a task id.
func (r *replayer) beginTask(msg *a2a.Message, sub *tasks.Subscriber) (*play, error) {
	var cands []*Recording
	for _, rec := range r.cfg.Recordings {
		if len(rec.Steps) > 0 && matchesUser(rec.Steps[0].User, msg) {
			cands = append(cands, rec)
		}
	}
	if len(cands) == 0 {
		return nil, errNoMatch
	}
	// The ids are chosen here, not by the runner: the recorded ones are rewritten to them before the turn starts.
	msg.TaskID = a2a.NewTaskID()
	if msg.ContextID == "" {
		msg.ContextID = a2a.NewContextID()
	}
	events, offsets, err := stepEvents(cands[0], 0, msg.TaskID, msg.ContextID)
	if err != nil {
		return nil, err
	}
	sess := &session{taskID: msg.TaskID, ctxID: msg.ContextID, cands: cands, pos: 1, last: cands[0].Steps[0]}
	r.mu.Lock()
	r.sessions[sess.taskID] = sess // before the turn starts: its events may be answered at once
	r.mu.Unlock()
	snap, err := r.ts.Start(msg, sub, tasks.StartOptions{Create: true, Reopen: true, KeepStatus: true, Run: r.player(events, offsets)})
	if err != nil {
		r.mu.Lock()
		delete(r.sessions, sess.taskID)
		r.mu.Unlock()
		return nil, err
	}
	_, isTask := firstEvent(events).(*a2a.Task)
	p := &play{sess: sess, snap: snap, leadSnap: !isTask, waits: waitsForAnswer(cands, 1), waitPos: 1}
	return p, nil
}

func firstEvent(evs []a2a.Event) a2a.Event {
	if len(evs) == 0 {
		return nil
	}
	return evs[0]
}

// stepEvents decodes the events of step i of rec with the recorded ids replaced by the session's.
func stepEvents(rec *Recording, i int, taskID a2a.TaskID, ctxID string) ([]a2a.Event, []time.Duration, error) {
	st := rec.Steps[i]
	evs := make([]a2a.Event, 0, len(st.Events))
	offs := make([]time.Duration, 0, len(st.Events))
	for _, e := range st.Events {
		raw := replaceID(e.raw, rec.taskID, string(taskID))
		raw = replaceID(raw, rec.contextID, ctxID)
		var sr a2a.StreamResponse
		if err := json.Unmarshal(raw, &sr); err != nil {
			return nil, nil, fmt.Errorf("replay %s: decode event: %w", rec.Name, err)
		}
		evs = append(evs, sr.Event)
		offs = append(offs, e.offset)
	}
	return evs, offs, nil
}

// minEmbeddedID is the length from which a recorded id is also replaced where it is embedded in
// a longer string (Gemini's prompt_id is "<task id>########0"); shorter ids are replaced only as
// whole JSON strings, so that "T1" does not rewrite a timestamp.
const minEmbeddedID = 16

func replaceID(raw []byte, old, new string) []byte {
	switch {
	case old == "":
		return raw
	case len(old) >= minEmbeddedID:
		return bytes.ReplaceAll(raw, []byte(old), []byte(new))
	}
	q := func(s string) []byte { b, _ := json.Marshal(s); return b }
	return bytes.ReplaceAll(raw, q(old), q(new))
}

// player is the replayed turn: it emits events on the task, paced by the recorded offsets; the
// last one ends the turn. A turn cancelled while it waits ends canceled, as any agent's does.
func (r *replayer) player(events []a2a.Event, offsets []time.Duration) func(context.Context, *tasks.Turn) (a2a.TaskState, *a2a.Message) {
	return func(ctx context.Context, t *tasks.Turn) (a2a.TaskState, *a2a.Message) {
		for i, ev := range events {
			if i > 0 && !r.wait(ctx, offsets[i]-offsets[i-1]) {
				return a2a.TaskStateCanceled, nil
			}
			ev = r.restamp(t.Info.TaskID, ev)
			if i == len(events)-1 {
				t.Finish(ev)
			} else {
				t.Emit(ev)
			}
		}
		if len(events) == 0 {
			task, err := r.ts.Store().View(t.Info.TaskID, nil)
			if err != nil {
				return a2a.TaskStateUnspecified, nil
			}
			return task.Status.State, nil
		}
		return a2a.TaskStateUnspecified, nil
	}
}

// wait sleeps for the recorded gap scaled by the speed; false when the turn was cancelled.
func (r *replayer) wait(ctx context.Context, gap time.Duration) bool {
	if r.cfg.Speed > 0 && gap > 0 {
		t := time.NewTimer(time.Duration(float64(gap) / r.cfg.Speed))
		defer t.Stop()
		select {
		case <-t.C:
		case <-ctx.Done():
		}
	}
	return ctx.Err() == nil
}

// restamp gives status events the replay time and a recorded task the task's real history.
func (r *replayer) restamp(id a2a.TaskID, ev a2a.Event) a2a.Event {
	switch v := ev.(type) {
	case *a2a.TaskStatusUpdateEvent:
		v.Status.Timestamp = nil
	case *a2a.Task:
		if task, err := r.ts.Store().View(id, nil); err == nil {
			v.History = task.History
		}
		now := r.ts.Store().Now()
		v.Status.Timestamp = &now
	}
	return ev
}

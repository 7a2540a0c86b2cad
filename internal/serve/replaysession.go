package serve

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
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
func (r *replayer) begin(msg *a2a.Message, sub *subscriber) (*play, error) {
	if r.ts.base.Err() != nil {
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
	rec, run, snap, err := r.attach(sess, msg, sub)
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
	r.startPlay(rec, run, events, offsets)
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
func (r *replayer) beginTask(msg *a2a.Message, sub *subscriber) (*play, error) {
	var cands []*Recording
	for _, rec := range r.cfg.Recordings {
		if len(rec.Steps) > 0 && matchesUser(rec.Steps[0].User, msg) {
			cands = append(cands, rec)
		}
	}
	if len(cands) == 0 {
		return nil, errNoMatch
	}
	now := r.ts.store.now()
	t := &a2a.Task{ID: a2a.NewTaskID(), ContextID: msg.ContextID, History: []*a2a.Message{msg},
		Status: a2a.TaskStatus{State: a2a.TaskStateSubmitted, Timestamp: &now}}
	if t.ContextID == "" {
		t.ContextID = a2a.NewContextID()
	}
	msg.TaskID, msg.ContextID = t.ID, t.ContextID
	events, offsets, err := stepEvents(cands[0], 0, t.ID, t.ContextID)
	if err != nil {
		return nil, err
	}
	sess := &session{taskID: t.ID, ctxID: t.ContextID, cands: cands, pos: 1, last: cands[0].Steps[0]}
	run := &turnRun{done: make(chan struct{})}
	s := r.ts.store
	rec, err := s.insert(t)
	if err != nil {
		return nil, fmt.Errorf("store task: %w", err)
	}
	s.mu.Lock()
	rec.run = run
	if sub != nil {
		rec.subs[sub] = struct{}{}
	}
	snap := snapshot(rec.task, nil, true)
	s.mu.Unlock()
	r.mu.Lock()
	r.sessions[t.ID] = sess
	r.mu.Unlock()
	_, isTask := firstEvent(events).(*a2a.Task)
	p := &play{sess: sess, snap: snap, leadSnap: !isTask, waits: waitsForAnswer(cands, 1), waitPos: 1}
	r.startPlay(rec, run, events, offsets)
	return p, nil
}

func firstEvent(evs []a2a.Event) a2a.Event {
	if len(evs) == 0 {
		return nil
	}
	return evs[0]
}

// attach records msg on the session's task and marks a turn running, refusing while one runs.
func (r *replayer) attach(sess *session, msg *a2a.Message, sub *subscriber) (*record, *turnRun, *a2a.Task, error) {
	s := r.ts.store
	s.mu.Lock()
	defer s.mu.Unlock()
	rec, err := s.lookupLocked(msg.TaskID)
	if err != nil {
		return nil, nil, nil, err
	}
	if rec.run != nil {
		return nil, nil, nil, a2a.NewError(a2a.ErrInvalidRequest, fmt.Sprintf("task %s is still running", msg.TaskID))
	}
	if msg.ContextID != "" && msg.ContextID != sess.ctxID {
		return nil, nil, nil, a2a.NewError(a2a.ErrInvalidParams, "message context ID does not match the task's")
	}
	was := finished(rec)
	msg.ContextID = sess.ctxID
	rec.task.History = append(rec.task.History, msg)
	rec.updated = s.now()
	run := &turnRun{done: make(chan struct{})}
	rec.run = run
	s.changedLocked(rec, was)
	if sub != nil {
		rec.subs[sub] = struct{}{}
	}
	return rec, run, snapshot(rec.task, nil, true), nil
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

// startPlay streams events on the task in the background, paced by the recorded offsets.
func (r *replayer) startPlay(rec *record, run *turnRun, events []a2a.Event, offsets []time.Duration) {
	ctx, cancel := context.WithCancelCause(r.ts.base)
	run.cancel = cancel
	r.ts.wg.Add(1)
	go func() {
		defer r.ts.wg.Done()
		defer close(run.done)
		defer cancel(nil)
		info := a2a.TaskInfo{TaskID: rec.task.ID, ContextID: rec.task.ContextID}
		for i, ev := range events {
			if i > 0 && !r.wait(ctx, offsets[i]-offsets[i-1]) {
				msg := a2a.NewMessageForTask(a2a.MessageRoleAgent, info, a2a.NewTextPart(context.Cause(ctx).Error()))
				r.ts.emit(rec, a2a.NewStatusUpdateEvent(info, a2a.TaskStateCanceled, msg), true)
				return
			}
			r.ts.emit(rec, r.restamp(rec, ev), i == len(events)-1)
		}
		if len(events) == 0 {
			s := r.ts.store
			s.mu.Lock()
			state := rec.task.Status.State
			s.mu.Unlock()
			r.ts.emit(rec, a2a.NewStatusUpdateEvent(info, state, nil), true)
		}
	}()
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
func (r *replayer) restamp(rec *record, ev a2a.Event) a2a.Event {
	switch v := ev.(type) {
	case *a2a.TaskStatusUpdateEvent:
		v.Status.Timestamp = nil
	case *a2a.Task:
		s := r.ts.store
		s.mu.Lock()
		v.History = slices.Clone(rec.task.History)
		now := s.now()
		s.mu.Unlock()
		v.Status.Timestamp = &now
	}
	return ev
}

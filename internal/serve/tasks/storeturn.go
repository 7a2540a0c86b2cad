package tasks

import (
	"fmt"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

// The store's side of the runner (tasks.go): every step that reads or changes a record under the
// store's lock is a method here, so that only the store takes its lock.

// open records msg on a new or existing task as Start describes, marks run as the task's turn,
// subscribes sub (when non-nil) and returns the record and a snapshot. started runs under the lock
// once the task is known, so that queued turns keep the order their messages arrived in.
func (s *Store) open(msg *a2a.Message, sub *Subscriber, o StartOptions, run *turnRun, started func(a2a.TaskInfo)) (*record, *a2a.Task, error) {
	var rec *record
	now := s.now()
	if msg.TaskID == "" || o.Create {
		t := &a2a.Task{ID: msg.TaskID, ContextID: msg.ContextID, History: []*a2a.Message{msg},
			Status: a2a.TaskStatus{State: a2a.TaskStateSubmitted, Timestamp: &now}}
		if t.ID == "" {
			t.ID = a2a.NewTaskID()
		}
		if t.ContextID == "" {
			t.ContextID = a2a.NewContextID()
		}
		msg.TaskID, msg.ContextID = t.ID, t.ContextID
		t.History[0] = s.historyMessage(msg)
		r, err := s.insert(t)
		if err != nil {
			return nil, nil, fmt.Errorf("store task: %w", err)
		}
		rec = r
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	was := false // whether the task was finished before this turn
	if rec == nil {
		r, err := s.lookupLocked(msg.TaskID)
		if err != nil {
			return nil, nil, err
		}
		if r.run != nil || r.owner != "" {
			return nil, nil, a2a.NewError(a2a.ErrInvalidRequest, fmt.Sprintf("task %s is still running", msg.TaskID))
		}
		if r.task.Status.State.Terminal() && !o.Reopen {
			return nil, nil, terminalTaskError(r.task)
		}
		if msg.ContextID != "" && msg.ContextID != r.task.ContextID {
			return nil, nil, a2a.NewError(a2a.ErrInvalidParams, "message context ID does not match the task's")
		}
		if err := pushCapLocked(r, o.Push); err != nil {
			return nil, nil, err
		}
		was = finished(r)
		msg.ContextID = r.task.ContextID
		r.task.History = append(r.task.History, s.historyMessage(msg))
		if !o.KeepStatus {
			r.task.Status = a2a.TaskStatus{State: a2a.TaskStateSubmitted, Timestamp: &now}
		}
		r.updated = now
		rec = r
	}
	rec.run = run
	if o.Push != nil {
		s.addPushLocked(rec, o.Push, o.Reopen) // reopen: a v0.3 call
	}
	s.changedLocked(rec, was)
	if sub != nil {
		rec.subs[sub] = struct{}{}
	}
	started(a2a.TaskInfo{TaskID: rec.task.ID, ContextID: msg.ContextID})
	return rec, snapshot(rec.task, nil, true), nil
}

// apply integrates ev into the record and returns what delivering it needs: the push hooks, the
// task for v0.3 webhooks, and the subscribers (appended to subs). The last event of a turn ends it
// and detaches every subscriber.
func (s *Store) apply(rec *record, ev a2a.Event, last bool, subs []*Subscriber) ([]pushHook, *a2a.Task, []*Subscriber) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.applyLocked(rec, ev)
	hooks, task := rec.push, pushTaskLocked(rec)
	for sub := range rec.subs {
		subs = append(subs, sub)
	}
	if last {
		was := finished(rec)
		rec.run = nil
		rec.saving = s.durable != nil
		clear(rec.subs)
		s.changedLocked(rec, was)
	}
	return hooks, task, subs
}

// attach subscribes sub to task id unless it is in a terminal state; see Runner.subscribe.
func (s *Store) attach(id a2a.TaskID, sub *Subscriber, ended bool) (*a2a.Task, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, err := s.lookupLocked(id)
	if err != nil {
		return nil, false, err
	}
	if r.owner != "" {
		return nil, false, &remoteRun{owner: r.owner, seq: r.seq, snap: snapshot(r.task, nil, true)}
	}
	if r.run == nil && r.task.Status.State.Terminal() {
		if !ended {
			return nil, false, terminalTaskError(r.task)
		}
		return snapshot(r.task, nil, true), false, nil
	}
	if r.run == nil && s.durable != nil && s.durable.shared {
		// Idle on a shared store: the turn that resumes it may run on any replica, so the subscription follows
		// the task's events in the store, wherever they are written.
		return nil, false, &remoteRun{seq: r.seq, snap: snapshot(r.task, nil, true), idle: true}
	}
	// Running, or idle at input-required or auth-required: the subscription stays until a turn ends (the one
	// running, or the one a follow-up message starts) or the task is canceled.
	r.subs[sub] = struct{}{}
	return snapshot(r.task, nil, true), true, nil
}

// takeIdleSubs detaches and returns the subscribers of tasks that no turn runs, for the caller to end (shutdown).
func (s *Store) takeIdleSubs() []*Subscriber {
	s.mu.Lock()
	defer s.mu.Unlock()
	var subs []*Subscriber
	for _, r := range s.tasks {
		if r.run == nil && len(r.subs) > 0 {
			for sub := range r.subs {
				subs = append(subs, sub)
			}
			clear(r.subs)
		}
	}
	return subs
}

// detach removes sub from task id's subscribers.
func (s *Store) detach(id a2a.TaskID, sub *Subscriber) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if r, ok := s.tasks[id]; ok {
		delete(r.subs, sub)
	}
}

// idleCancel is what canceling a task that no turn runs changed, for the runner to deliver.
type idleCancel struct {
	snap  *a2a.Task
	ev    a2a.Event
	hooks []pushHook
	task  *a2a.Task // for v0.3 webhooks
	subs  []*Subscriber
}

// cancelIdle cancels task id when no turn runs and returns the snapshot and what delivering the
// cancellation needs, its subscribers detached (the caller ends them); when a turn runs it returns the
// turn (for the runner to stop) and changes nothing.
func (s *Store) cancelIdle(id a2a.TaskID) (*turnRun, *idleCancel, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, err := s.lookupLocked(id)
	if err != nil {
		return nil, nil, err
	}
	if r.owner != "" {
		return nil, nil, &remoteRun{owner: r.owner, seq: r.seq, snap: snapshot(r.task, nil, true)}
	}
	if r.run != nil {
		return r.run, nil, nil
	}
	if r.task.Status.State.Terminal() {
		return nil, nil, a2a.NewError(a2a.ErrTaskNotCancelable, fmt.Sprintf("task is already %s", ShortState(r.task.Status.State)))
	}
	now := s.now()
	ev := a2a.NewStatusUpdateEvent(r.task, a2a.TaskStateCanceled, nil)
	ev.Status.Timestamp = &now
	s.applyLocked(r, ev)
	c := &idleCancel{snap: snapshot(r.task, nil, true), ev: ev, hooks: r.push, task: pushTaskLocked(r)}
	for sub := range r.subs {
		c.subs = append(c.subs, sub)
	}
	clear(r.subs)
	return nil, c, nil
}

// Now is the store's clock.
func (s *Store) Now() time.Time { return s.now() }

// View returns a snapshot of task id, its history cut to the last historyLength messages when set.
func (s *Store) View(id a2a.TaskID, historyLength *int) (*a2a.Task, error) {
	return s.view(id, historyLength)
}

package tasks

import (
	"cmp"
	"encoding/base64"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv/taskstore"
)

const (
	defaultMaxTasks = 1000
	defaultTaskTTL  = time.Hour
	defaultPageSize = 50
	maxPageSize     = 100
)

// record is one stored task. The task is owned by the store and mutated in place under store.mu:
// parts and messages already stored are never modified, so a snapshot only copies slice headers.
type record struct {
	task    *a2a.Task
	updated time.Time
	run     *turnRun // non-nil while a turn is running
	saving  bool     // the turn's end is applied here but not yet in the durable store
	subs    map[*Subscriber]struct{}
	// artBytes is what the task's artifacts cost (artifactsSize: payload and overhead), kept within
	// Store.maxArtifactBytes by applyLocked.
	artBytes int64
	// histBytes is what the first histCounted messages of the history cost (messageCost), the last of them
	// histLast: see boundHistoryLocked.
	histBytes   int64
	histCounted int
	histLast    *a2a.Message
	kept        int64      // what the task keeps (taskBytes) as counted in Store.done while it is finished
	push        []pushHook // push notification configs (push.go); copy-on-write
	// With a durable store (durable.go): owner is the replica running the task when that is another one, seq
	// numbers the task's events, written is what the store was last told.
	owner   string
	seq     int64
	written writtenKey
}

// Store keeps tasks in memory with retention: at most maxTasks finished tasks, finished tasks
// older than ttl are dropped, active tasks are never dropped. It has no notion of users, so
// listing works without authentication.
type Store struct {
	mu       sync.Mutex
	now      func() time.Time
	maxTasks int
	ttl      time.Duration
	tasks    map[a2a.TaskID]*record
	done     finishedQueue // the finished tasks in the order they finished, for retention
	// maxArtifactBytes bounds the artifact bytes kept per task (see artbudget.go); <= 0 means no bound.
	maxArtifactBytes int64
	maxBytes         int64    // what the finished tasks kept may hold together (retention.go); <= 0 => no bound
	durable          *durable // the store behind memory (durable.go); nil => memory only
}

func NewStore(maxTasks int, ttl time.Duration, now func() time.Time) *Store {
	if maxTasks <= 0 {
		maxTasks = defaultMaxTasks
	}
	if ttl <= 0 {
		ttl = defaultTaskTTL
	}
	if now == nil {
		now = time.Now
	}
	return &Store{now: now, maxTasks: maxTasks, ttl: ttl, tasks: map[a2a.TaskID]*record{}, maxArtifactBytes: defaultMaxArtifactBytes,
		maxBytes: defaultMaxTaskBytes}
}

func finished(r *record) bool {
	return r.run == nil && r.task.Status.State.Terminal()
}

// insert adds a new task, taking ownership of t.
func (s *Store) insert(t *a2a.Task) (*record, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.tasks[t.ID]; ok {
		return nil, taskstore.ErrTaskAlreadyExists
	}
	r := &record{task: t, updated: s.now(), subs: map[*Subscriber]struct{}{}, artBytes: artifactsSize(t.Artifacts)}
	s.tasks[t.ID] = r
	s.changedLocked(r, false)
	s.pruneLocked()
	return r, nil
}

// lookupLocked returns the record of a live (not expired) task.
func (s *Store) lookupLocked(id a2a.TaskID) (*record, error) {
	r, ok := s.tasks[id]
	if !ok || (finished(r) && r.updated.Before(s.now().Add(-s.ttl))) {
		return nil, a2a.ErrTaskNotFound
	}
	return r, nil
}

// snapshot copies the task so that it can be handed out while the store keeps mutating the
// original: slices are copied, the immutable parts and messages they point to are shared.
func snapshot(t *a2a.Task, historyLength *int, withArtifacts bool) *a2a.Task {
	c := *t
	c.Metadata = maps.Clone(t.Metadata)
	if t.Status.Timestamp != nil {
		ts := *t.Status.Timestamp
		c.Status.Timestamp = &ts
	}
	h := t.History
	if historyLength != nil && *historyLength >= 0 && len(h) > *historyLength {
		h = h[len(h)-*historyLength:]
	}
	c.History = slices.Clone(h)
	c.Artifacts = nil
	if withArtifacts && len(t.Artifacts) > 0 {
		c.Artifacts = make([]*a2a.Artifact, len(t.Artifacts))
		for i, a := range t.Artifacts {
			ac := *a
			ac.Parts = slices.Clone(a.Parts)
			ac.Metadata = maps.Clone(a.Metadata)
			c.Artifacts[i] = &ac
		}
	}
	return &c
}

// view returns a snapshot of a task.
func (s *Store) view(id a2a.TaskID, historyLength *int) (*a2a.Task, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, err := s.lookupLocked(id)
	if err != nil {
		return nil, err
	}
	return snapshot(r.task, historyLength, true), nil
}

// applyLocked integrates an event into the task in place. Called with s.mu held.
func (s *Store) applyLocked(r *record, ev a2a.Event) {
	defer s.changedLocked(r, finished(r))
	if s.durable != nil {
		s.durable.appendLocked(r, ev)
	}
	t := r.task
	r.updated = s.now()
	switch v := ev.(type) {
	case *a2a.TaskStatusUpdateEvent:
		if t.Status.Message != nil && t.Status.Message != v.Status.Message {
			t.History = append(t.History, t.Status.Message)
		}
		t.Status = v.Status
		if v.Metadata != nil {
			if t.Metadata == nil {
				t.Metadata = map[string]any{}
			}
			maps.Copy(t.Metadata, v.Metadata)
		}
	case *a2a.TaskArtifactUpdateEvent:
		s.applyArtifact(r, v)
	case *a2a.Task:
		*t = *snapshot(v, nil, true)
		r.artBytes = artifactsSize(t.Artifacts)
	}
}

// list implements ListTasks: filters, ordering by last update (newest first, then task ID
// descending) and cursor page tokens that stay valid while tasks are added.
func (s *Store) list(req *a2a.ListTasksRequest) (*a2a.ListTasksResponse, error) {
	pageSize, after, err := listParams(req)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.pruneLocked()
	var match []*record
	for _, r := range s.tasks {
		if matches(r, req) {
			match = append(match, r)
		}
	}
	slices.SortFunc(match, func(a, b *record) int {
		return cmp.Or(b.updated.Compare(a.updated), strings.Compare(string(b.task.ID), string(a.task.ID)))
	})
	resp := &a2a.ListTasksResponse{Tasks: []*a2a.Task{}, TotalSize: len(match), PageSize: pageSize}
	start := 0
	if after != nil {
		start, _ = slices.BinarySearchFunc(match, *after, func(r *record, c cursor) int {
			return cmp.Or(c.updated.Compare(r.updated), strings.Compare(string(c.id), string(r.task.ID)))
		})
		for start < len(match) && match[start].updated.Equal(after.updated) && match[start].task.ID == after.id {
			start++
		}
	}
	page := match[start:]
	if len(page) > pageSize {
		page = page[:pageSize]
		last := page[len(page)-1]
		resp.NextPageToken = encodeCursor(cursor{updated: last.updated, id: last.task.ID})
	}
	for _, r := range page {
		resp.Tasks = append(resp.Tasks, snapshot(r.task, req.HistoryLength, req.IncludeArtifacts))
	}
	return resp, nil
}

// listParams checks the page size and token of a ListTasks request.
func listParams(req *a2a.ListTasksRequest) (int, *cursor, error) {
	pageSize := req.PageSize
	if pageSize == 0 {
		pageSize = defaultPageSize
	}
	if pageSize < 1 || pageSize > maxPageSize {
		return 0, nil, a2a.NewError(a2a.ErrInvalidParams, fmt.Sprintf("page size must be between 1 and %d, got %d", maxPageSize, req.PageSize))
	}
	if req.PageToken == "" {
		return pageSize, nil, nil
	}
	c, err := decodeCursor(req.PageToken)
	if err != nil {
		return 0, nil, a2a.NewError(a2a.ErrInvalidParams, "invalid page token")
	}
	return pageSize, &c, nil
}

func matches(r *record, req *a2a.ListTasksRequest) bool {
	t := r.task
	if req.ContextID != "" && t.ContextID != req.ContextID {
		return false
	}
	if req.Status != a2a.TaskStateUnspecified && t.Status.State != req.Status {
		return false
	}
	if req.StatusTimestampAfter != nil {
		if t.Status.Timestamp == nil || !t.Status.Timestamp.After(*req.StatusTimestampAfter) {
			return false
		}
	}
	return true
}

type cursor struct {
	updated time.Time
	id      a2a.TaskID
}

func encodeCursor(c cursor) string {
	raw := strconv.FormatInt(c.updated.UnixNano(), 10) + ":" + string(c.id)
	return base64.RawURLEncoding.EncodeToString([]byte(raw))
}

func decodeCursor(tok string) (cursor, error) {
	raw, err := base64.RawURLEncoding.DecodeString(tok)
	if err != nil {
		return cursor{}, fmt.Errorf("decode page token: %w", err)
	}
	ns, id, ok := strings.Cut(string(raw), ":")
	n, err := strconv.ParseInt(ns, 10, 64)
	if !ok || err != nil || id == "" {
		return cursor{}, fmt.Errorf("malformed page token %q", tok)
	}
	return cursor{updated: time.Unix(0, n), id: a2a.TaskID(id)}, nil
}

package tasks

import (
	"context"
	"fmt"
	"slices"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

// Push notification configs live on the task's record (record.push), so they are dropped with the
// task by retention and answered by every replica that sees the task. record.push is copy-on-write:
// emit hands the slice to the Pusher without holding the lock.

func copyPushConfig(c *a2a.PushConfig, taskID a2a.TaskID) *a2a.PushConfig {
	out := *c
	out.TaskID = taskID
	if c.Auth != nil {
		auth := *c.Auth
		out.Auth = &auth
	}
	return &out
}

// pushHook is a stored config; v03 when it came in over a v0.3 interface, whose receivers get the
// v0.3 Task object instead of a v1.0 StreamResponse.
type pushHook struct {
	cfg *a2a.PushConfig
	v03 bool
}

// maxPushConfigs bounds the push notification configs of one task: every event of the task goes to each of them,
// so without a bound one message could fan out to any number of POSTs.
const maxPushConfigs = 10

// pushCapLocked refuses c when r already has maxPushConfigs configs and c replaces none of them (same ID).
func pushCapLocked(r *record, c *a2a.PushConfig) error {
	if c == nil || len(r.push) < maxPushConfigs {
		return nil
	}
	for _, h := range r.push {
		if c.ID != "" && h.cfg.ID == c.ID {
			return nil
		}
	}
	return a2a.NewError(a2a.ErrInvalidParams, fmt.Sprintf(
		"task %s already has %d push notification configs, the most one task may have: delete one first", r.task.ID, maxPushConfigs))
}

// addPushLocked stores a copy of c on r, replacing a config with the same ID; an empty ID gets a new one.
func (s *Store) addPushLocked(r *record, c *a2a.PushConfig, v03 bool) *a2a.PushConfig {
	stored := copyPushConfig(c, r.task.ID)
	if stored.ID == "" {
		stored.ID = string(a2a.NewTaskID()) // a fresh UUID, as task IDs are
	}
	next := slices.DeleteFunc(slices.Clone(r.push), func(h pushHook) bool { return h.cfg.ID == stored.ID })
	r.push = append(next, pushHook{cfg: stored, v03: v03})
	s.pushChangedLocked(r)
	return copyPushConfig(stored, r.task.ID)
}

func pushNotFound(taskID a2a.TaskID, id string) error {
	return a2a.NewError(a2a.ErrTaskNotFound, fmt.Sprintf("task %s has no push notification config %q", taskID, id))
}

// findPush returns the config id of r; an empty id (v0.3 calls may leave it out) names the first.
func findPush(r *record, id string) *a2a.PushConfig {
	for _, h := range r.push {
		if h.cfg.ID == id || id == "" {
			return h.cfg
		}
	}
	return nil
}

// CreateTaskPushConfig implements a2asrv.RequestHandler.
func (h *Handler) CreateTaskPushConfig(ctx context.Context, req *a2a.PushConfig) (*a2a.PushConfig, error) {
	if req == nil || req.TaskID == "" {
		return nil, a2a.NewError(a2a.ErrInvalidParams, "task ID is required")
	}
	if req.ID == "" && legacyCall(ctx) {
		// v0.3 named a task's one config implicitly; its TCK reads it back as "default".
		c := *req
		c.ID = "default"
		req = &c
	}
	var out *a2a.PushConfig
	err := h.ts.store.withRecord(ctx, req.TaskID, func(r *record) error {
		if err := writableLocked(r); err != nil {
			return err
		}
		if err := h.checkPushURL(req.URL); err != nil {
			return err
		}
		if err := pushCapLocked(r, req); err != nil {
			return err
		}
		out = h.ts.store.addPushLocked(r, req, legacyCall(ctx))
		return nil
	})
	return out, err
}

// withRecord runs fn on the record of task id under the store's lock, the task read fresh from a shared store
// first; an unknown task is TaskNotFoundError. The push config calls are this, around what each does to the record.
func (s *Store) withRecord(ctx context.Context, id a2a.TaskID, fn func(r *record) error) error {
	if err := s.refresh(ctx, id); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	r, err := s.lookupLocked(id)
	if err != nil {
		return err
	}
	return fn(r)
}

// GetTaskPushConfig implements a2asrv.RequestHandler.
func (h *Handler) GetTaskPushConfig(ctx context.Context, req *a2a.GetTaskPushConfigRequest) (*a2a.PushConfig, error) {
	var out *a2a.PushConfig
	err := h.ts.store.withRecord(ctx, req.TaskID, func(r *record) error {
		p := findPush(r, req.ID)
		if p == nil {
			return pushNotFound(req.TaskID, req.ID)
		}
		out = copyPushConfig(p, r.task.ID)
		return nil
	})
	return out, err
}

// ListTaskPushConfigs implements a2asrv.RequestHandler.
func (h *Handler) ListTaskPushConfigs(ctx context.Context, req *a2a.ListTaskPushConfigRequest) (*a2a.ListTaskPushConfigResponse, error) {
	var out *a2a.ListTaskPushConfigResponse
	err := h.ts.store.withRecord(ctx, req.TaskID, func(r *record) error {
		out = &a2a.ListTaskPushConfigResponse{Configs: make([]*a2a.PushConfig, 0, len(r.push))}
		for _, ph := range r.push {
			out.Configs = append(out.Configs, copyPushConfig(ph.cfg, r.task.ID))
		}
		return nil
	})
	return out, err
}

// DeleteTaskPushConfig implements a2asrv.RequestHandler. Deleting a config that is not there is
// not an error (the specification asks for idempotent deletes); an unknown task is.
func (h *Handler) DeleteTaskPushConfig(ctx context.Context, req *a2a.DeleteTaskPushConfigRequest) error {
	return h.ts.store.withRecord(ctx, req.TaskID, func(r *record) error {
		if err := writableLocked(r); err != nil {
			return err
		}
		if p := findPush(r, req.ID); p != nil {
			r.push = slices.DeleteFunc(slices.Clone(r.push), func(ph pushHook) bool { return ph.cfg == p })
			h.ts.store.pushChangedLocked(r)
		}
		return nil
	})
}

// sendPushConfig is the push config a SendMessageRequest carries, checked against the allow-list.
func (h *Handler) sendPushConfig(req *a2a.SendMessageRequest) (*a2a.PushConfig, error) {
	if req.Config == nil || req.Config.PushConfig == nil {
		return nil, nil
	}
	if err := h.checkPushURL(req.Config.PushConfig.URL); err != nil {
		return nil, err
	}
	return req.Config.PushConfig, nil
}

func (h *Handler) checkPushURL(u string) error {
	if h.ts.push == nil {
		return a2a.ErrPushNotificationNotSupported
	}
	return h.ts.push.allow.check(u)
}

package tasks

import (
	"fmt"
	"sync"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

// Subscriptions (SubscribeToTask) hold a stream open until a turn ends, and on a task idle at input-required that
// may be long: without a bound a client could open them by the thousand. A handler holds at most
// MaxSubscriptionsPerTask on one task and MaxSubscriptions in all; one more is refused at once with
// UnsupportedOperationError, before anything is attached. A subscription's slot is released when its stream ends:
// the turn ended, the task was canceled, or the subscriber went away (its request's context ended).
const (
	MaxSubscriptionsPerTask = 64
	MaxSubscriptions        = 4096
)

// LimitKey is the ErrorInfo metadata key of a refusal for a limit: its value names the limit (the serve flag that
// sets it, LimitPerTask or LimitTotal). Every binding carries ErrorInfo's metadata, so a client tells a busy server
// (which streams, and will take the subscription once one closes) from an agent that does not stream at all.
const (
	LimitKey     = "a2a-cli/limit"
	LimitPerTask = "max-subscriptions-per-task"
	LimitTotal   = "max-subscriptions"
)

// subLimits counts the open subscriptions of a handler.
type subLimits struct {
	perTask, total int
	mu             sync.Mutex
	n              int
	byTask         map[a2a.TaskID]int
}

func newSubLimits(perTask, total int) *subLimits {
	return &subLimits{perTask: perTask, total: total, byTask: map[a2a.TaskID]int{}}
}

// take reserves a slot for a subscription to task id, or says why there is none.
func (l *subLimits) take(id a2a.TaskID) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.byTask[id] >= l.perTask {
		return a2a.NewError(a2a.ErrUnsupportedOperation, fmt.Sprintf(
			"too many subscriptions to task %s: %d open, the limit on one task (--%s); close one, or poll with GetTask", id, l.perTask, LimitPerTask)).
			WithErrorInfoMeta(map[string]string{LimitKey: LimitPerTask})
	}
	if l.n >= l.total {
		return a2a.NewError(a2a.ErrUnsupportedOperation, fmt.Sprintf(
			"too many subscriptions: %d open, the limit of this server (--%s); close one, or poll with GetTask", l.total, LimitTotal)).
			WithErrorInfoMeta(map[string]string{LimitKey: LimitTotal})
	}
	l.n++
	l.byTask[id]++
	return nil
}

// give releases the slot take reserved.
func (l *subLimits) give(id a2a.TaskID) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.n--
	if l.byTask[id]--; l.byTask[id] <= 0 {
		delete(l.byTask, id)
	}
}

// open is the number of subscriptions open, in all and on task id.
func (l *subLimits) open(id a2a.TaskID) (total, task int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.n, l.byTask[id]
}

// WithSubscriptionLimits bounds the subscriptions the handler holds open on one task and in all (values <= 0 keep
// MaxSubscriptionsPerTask and MaxSubscriptions).
func WithSubscriptionLimits(perTask, total int) HandlerOption {
	return func(h *Handler) {
		if perTask <= 0 {
			perTask = MaxSubscriptionsPerTask
		}
		if total <= 0 {
			total = MaxSubscriptions
		}
		h.subs = newSubLimits(perTask, total)
	}
}

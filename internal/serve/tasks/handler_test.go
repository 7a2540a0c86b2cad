package tasks

import (
	"context"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/google/go-cmp/cmp"
)

// waitingLog is a FlushHint that keeps what it was told.
type waitingLog struct{ got []int }

func (w *waitingLog) SetWaiting(n int) { w.got = append(w.got, n) }

// TestForwardReportsWaiting: before each event it yields, Forward tells the stream's FlushHint how
// many more wait behind it; a handler given no hints forwards the same events.
func TestForwardReportsWaiting(t *testing.T) {
	t.Parallel()
	info := a2a.TaskInfo{TaskID: "t", ContextID: "c"}
	for _, hinted := range []bool{true, false} {
		sub := NewSubscriber()
		for _, s := range []a2a.TaskState{a2a.TaskStateWorking, a2a.TaskStateWorking, a2a.TaskStateCompleted} {
			sub.ch <- a2a.NewStatusUpdateEvent(info, s, nil)
		}
		close(sub.ch)
		hint := &waitingLog{}
		var opts []HandlerOption
		if hinted {
			opts = append(opts, WithFlushHints(func(context.Context) FlushHint { return hint }))
		}
		h := NewHandler(nil, opts...)
		var events int
		h.Forward(t.Context(), sub, func(a2a.Event, error) bool { events++; return true })
		want := []int{2, 1, 0}
		if !hinted {
			want = nil
		}
		if events != 3 || !cmp.Equal(want, hint.got) {
			t.Errorf("hinted=%v: %d events, hints %v; want 3 events, hints %v", hinted, events, hint.got, want)
		}
	}
}

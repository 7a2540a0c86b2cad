package follow

import (
	"context"
	"errors"
	"iter"
	"testing"
	"time"

	"github.com/a2acli/a2a/internal/client"
	"github.com/a2aproject/a2a-go/v2/a2a"
)

func TestStreamWatchedIgnoredAnswer(t *testing.T) {
	t.Parallel()
	silent := func(ctx context.Context) iter.Seq2[a2a.Event, error] {
		return func(yield func(a2a.Event, error) bool) {
			<-ctx.Done()
			yield(nil, ctx.Err())
		}
	}
	err := streamWatched(context.Background(), &client.Conn{}, 20*time.Millisecond, silent, func(a2a.Event) error { return nil })
	if !errors.Is(err, errAnswerIgnored) {
		t.Fatalf("streamWatched() = %v, want errAnswerIgnored", err)
	}
}

func TestStreamWatchedAnswered(t *testing.T) {
	t.Parallel()
	ev := a2a.NewStatusUpdateEvent(a2a.TaskInfo{TaskID: "t", ContextID: "c"}, a2a.TaskStateWorking, nil)
	one := func(ctx context.Context) iter.Seq2[a2a.Event, error] {
		return func(yield func(a2a.Event, error) bool) { yield(ev, nil) }
	}
	var got []a2a.Event
	err := streamWatched(context.Background(), &client.Conn{}, time.Minute, one, func(e a2a.Event) error { got = append(got, e); return nil })
	if err != nil || len(got) != 1 {
		t.Fatalf("streamWatched() = %v with %d events, want nil with 1", err, len(got))
	}
}

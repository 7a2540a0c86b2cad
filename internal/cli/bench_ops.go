package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"os"
	"sync"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/a2acli/a2a/internal/bench"
	"github.com/a2acli/a2a/internal/client"
	"github.com/a2acli/a2a/internal/output"
	"github.com/a2acli/a2a/internal/termsafe"
)

// benchOps are the requests of a run, on one connection's client.
type benchOps struct {
	c         *client.Conn
	base      *a2a.Message
	tenant    string
	pollEvery time.Duration
	taskID    a2a.TaskID
	// wire sends the blocking send of a v1.0 JSON-RPC or REST binding without a2a-go's full decoding of every
	// answer (client.WireSend); nil on other bindings, and under --record (which needs each task's id).
	wire *client.WireSend
}

func (b *benchOps) request(immediate bool) *a2a.SendMessageRequest {
	m := *b.base
	m.ID = a2a.NewMessageID()
	req := &a2a.SendMessageRequest{Message: &m, Tenant: b.tenant}
	if immediate {
		req.Config = &a2a.SendMessageConfig{ReturnImmediately: true}
	}
	return req
}

func resultState(r a2a.SendMessageResult) string {
	switch v := r.(type) {
	case *a2a.Task:
		return output.ShortState(v.Status.State)
	case *a2a.Message:
		return "message"
	}
	return ""
}

// newTask sends one message (not counted) for --get to read back.
func (b *benchOps) newTask(ctx context.Context) error {
	res, err := client.Unary(ctx, b.c, func(ctx context.Context) (a2a.SendMessageResult, error) {
		return b.c.SendMessage(ctx, b.request(false))
	})
	if err != nil {
		return err
	}
	t, ok := res.(*a2a.Task)
	if !ok {
		return fmt.Errorf("--get needs a task to read, and the agent answered with a message")
	}
	b.taskID = t.ID
	return nil
}

func (b *benchOps) op(name string) func(context.Context, *bench.Sample) {
	switch name {
	case "stream":
		return b.stream
	case "poll":
		return b.pollTask
	case "get":
		return b.getTask
	case "subscribe":
		return b.subscribe
	case "cancel":
		return b.cancel
	}
	return b.send
}

func (b *benchOps) send(ctx context.Context, s *bench.Sample) {
	if b.wire != nil {
		res, err := client.Unary(ctx, b.c, b.wire.Send)
		s.Err = err
		if err == nil {
			s.State = "message"
			if !res.Message {
				s.State = output.ShortState(res.State)
			}
		}
		return
	}
	res, err := client.Unary(ctx, b.c, func(ctx context.Context) (a2a.SendMessageResult, error) {
		return b.c.SendMessage(ctx, b.request(false))
	})
	s.Err, s.State = err, resultState(res)
	if t, ok := res.(*a2a.Task); ok {
		s.ID = string(t.ID)
	}
}

func (b *benchOps) getTask(ctx context.Context, s *bench.Sample) {
	t, err := client.Unary(ctx, b.c, func(ctx context.Context) (*a2a.Task, error) {
		return b.c.GetTask(ctx, &a2a.GetTaskRequest{ID: b.taskID, Tenant: b.tenant})
	})
	s.Err, s.ID = err, string(b.taskID)
	if t != nil {
		s.State = output.ShortState(t.Status.State)
	}
}

// benchSample is a bench.Sample with the helpers of the ops that fill it.
type benchSample bench.Sample

func (b *benchOps) stream(ctx context.Context, bs *bench.Sample) {
	s := (*benchSample)(bs)
	req := b.request(false)
	s.Err = client.Stream(ctx, b.c, func(ctx context.Context) iter.Seq2[a2a.Event, error] {
		return b.c.SendStreamingMessage(ctx, req)
	}, s.timed())
}

// timed is a stream's event handler that notes when each event came (the first, then the gaps) and what it says.
func (s *benchSample) timed() func(a2a.Event) error {
	var last time.Time
	return func(ev a2a.Event) error {
		now := time.Now()
		if last.IsZero() {
			s.FirstAt = now
		} else {
			s.Gaps = append(s.Gaps, now.Sub(last))
		}
		last = now
		s.observe(ev)
		return nil
	}
}

// observe notes a streamed event's task and state in s.
func (s *benchSample) observe(ev a2a.Event) {
	switch v := ev.(type) {
	case *a2a.Task:
		s.ID, s.State = string(v.ID), output.ShortState(v.Status.State)
	case *a2a.TaskStatusUpdateEvent:
		s.ID, s.State = string(v.TaskID), output.ShortState(v.Status.State)
	case *a2a.TaskArtifactUpdateEvent:
		s.ID = string(v.TaskID)
	case *a2a.Message:
		s.State = "message"
	}
}

// pollTask sends with ReturnImmediately and asks GetTask until the task ends or stops for input.
func (b *benchOps) pollTask(ctx context.Context, s *bench.Sample) {
	if t := b.sendImmediate(ctx, s); t != nil {
		b.pollUntilSettled(ctx, s, t)
	}
}

// pollUntilSettled asks GetTask every --poll-interval until task t ends or stops for input.
func (b *benchOps) pollUntilSettled(ctx context.Context, s *bench.Sample, t *a2a.Task) {
	var err error
	timer := time.NewTimer(b.pollEvery)
	defer timer.Stop()
	for !settled(t.Status.State) {
		select {
		case <-ctx.Done():
			s.Err = ctx.Err()
			return
		case <-timer.C:
		}
		t, err = client.Unary(ctx, b.c, func(ctx context.Context) (*a2a.Task, error) {
			return b.c.GetTask(ctx, &a2a.GetTaskRequest{ID: t.ID, Tenant: b.tenant})
		})
		if err != nil {
			s.Err = err
			return
		}
		timer.Reset(b.pollEvery)
	}
	s.State = output.ShortState(t.Status.State)
}

// settled: the task ended, or waits for the user (a poll cannot answer it).
func settled(st a2a.TaskState) bool {
	return st.Terminal() || st == a2a.TaskStateInputRequired || st == a2a.TaskStateAuthRequired
}

// sendImmediate sends with ReturnImmediately and returns the task (nil and s filled in when there is none).
func (b *benchOps) sendImmediate(ctx context.Context, s *bench.Sample) *a2a.Task {
	res, err := client.Unary(ctx, b.c, func(ctx context.Context) (a2a.SendMessageResult, error) {
		return b.c.SendMessage(ctx, b.request(true))
	})
	if err != nil {
		s.Err = err
		return nil
	}
	t, ok := res.(*a2a.Task)
	if !ok {
		s.State = resultState(res)
		return nil
	}
	s.ID, s.State = string(t.ID), output.ShortState(t.Status.State)
	return t
}

// subscribe sends with ReturnImmediately, then follows the task with SubscribeToTask to its end (a task that ended
// before the subscription is read with GetTask).
func (b *benchOps) subscribe(ctx context.Context, bs *bench.Sample) {
	t := b.sendImmediate(ctx, bs)
	if t == nil || settled(t.Status.State) {
		return
	}
	s := (*benchSample)(bs)
	err := client.Stream(ctx, b.c, func(ctx context.Context) iter.Seq2[a2a.Event, error] {
		return b.c.SubscribeToTask(ctx, &a2a.SubscribeToTaskRequest{ID: t.ID, Tenant: b.tenant})
	}, s.timed())
	if errors.Is(err, a2a.ErrUnsupportedOperation) && client.RefusedForLimit(err) == "" {
		b.pollUntilSettled(ctx, bs, t) // ended meanwhile: a terminal task takes no subscription
		return
	}
	// A refusal for the server's limit (serve --max-subscriptions…) is an error: the server streams, and is busy.
	s.Err = err
}

// cancel sends with ReturnImmediately, asks CancelTask at once, and polls until the task ends (the cancel of a task
// running on another replica takes effect there); a task that ended first is not cancelable and is read back.
func (b *benchOps) cancel(ctx context.Context, s *bench.Sample) {
	t := b.sendImmediate(ctx, s)
	if t == nil || settled(t.Status.State) {
		return
	}
	ct, err := client.Unary(ctx, b.c, func(ctx context.Context) (*a2a.Task, error) {
		return b.c.CancelTask(ctx, &a2a.CancelTaskRequest{ID: t.ID, Tenant: b.tenant})
	})
	switch {
	case errors.Is(err, a2a.ErrTaskNotCancelable):
	case err != nil:
		s.Err = err
		return
	default:
		t = ct
	}
	s.State = output.ShortState(t.Status.State)
	b.pollUntilSettled(ctx, s, t)
}

// benchRecorder writes --record: one JSON line per request, warm-up included.
type benchRecorder struct {
	mu  sync.Mutex
	f   *os.File
	w   *bufio.Writer
	err error
}

// benchLine is a line of --record.
type benchLine struct {
	Op       string    `json:"op"`
	Task     string    `json:"task,omitempty"`
	State    string    `json:"state,omitempty"`
	Start    time.Time `json:"start"`
	End      time.Time `json:"end"`
	Class    string    `json:"class,omitempty"`
	Error    string    `json:"error,omitempty"`
	Measured bool      `json:"measured"`
}

func openBenchRecord(path string) (*benchRecorder, error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("--record: %w", err)
	}
	return &benchRecorder{f: f, w: bufio.NewWriter(f)}, nil
}

func (r *benchRecorder) write(d bench.Done) {
	l := benchLine{Op: d.Op, Task: d.Sample.ID, State: d.Sample.State, Start: d.Intended, End: d.End, Class: d.Class,
		Measured: d.Measured}
	if d.Sample.Err != nil {
		l.Error = termsafe.Line(d.Sample.Err.Error())
		if l.Class == "" {
			l.Class = "interrupted"
		}
	}
	b, err := json.Marshal(l)
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.f == nil || r.err != nil {
		return
	}
	if err == nil {
		r.w.Write(b) //nolint:errcheck // bufio keeps the first error for Flush
		err = r.w.WriteByte('\n')
	}
	r.err = err
}

// close flushes and closes the file once; the first error of a write, the flush or the close is returned.
func (r *benchRecorder) close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.f == nil {
		return r.err
	}
	if err := r.w.Flush(); r.err == nil {
		r.err = err
	}
	if err := r.f.Close(); r.err == nil {
		r.err = err
	}
	r.f = nil
	if r.err != nil {
		return fmt.Errorf("--record: %w", r.err)
	}
	return nil
}

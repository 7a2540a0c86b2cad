package serve_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2aclient"
	"github.com/a2aproject/a2a-go/v2/errordetails"

	"github.com/a2acli/a2a/internal/serve"
	"github.com/a2acli/a2a/internal/serve/reference"
	"github.com/a2acli/a2a/internal/serve/servetest"
	"github.com/a2acli/a2a/internal/serve/tasks"
)

// TestSubscriptionLimits: subscriptions held open over HTTP+JSON on tasks idle at input-required are bounded per task
// (the default, tasks.MaxSubscriptionsPerTask) and in all; one more is refused with UnsupportedOperationError that
// says why, and a subscriber that goes away releases its slot.
func TestSubscriptionLimits(t *testing.T) {
	t.Parallel()
	const total = tasks.MaxSubscriptionsPerTask + 16
	srv := startServer(t, serve.Config{Quiet: true, Backend: reference.New(reference.Config{}), MaxSubscriptions: total})
	c := servetest.NewClient(t, srv.URL, a2a.TransportProtocolHTTPJSON)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	idle := func(n int) a2a.TaskID {
		msg := a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("start"))
		msg.ID = fmt.Sprintf("tck-input-required-%d", n)
		res, err := c.SendMessage(ctx, &a2a.SendMessageRequest{Message: msg})
		task, ok := res.(*a2a.Task)
		if err != nil || !ok || task.Status.State != a2a.TaskStateInputRequired {
			t.Fatalf("SendMessage = %#v, %v; want input-required", res, err)
		}
		return task.ID
	}
	open := func(id a2a.TaskID) (func(), error) { return openSubscription(ctx, c, id) }
	var closers []func()
	defer func() {
		for _, f := range closers {
			f()
		}
	}()
	hold := func(id a2a.TaskID, n int) []func() {
		t.Helper()
		var cs []func()
		for i := range n {
			f, err := open(id)
			if err != nil {
				t.Fatalf("subscription %d to %s: %v, want it open", i+1, id, err)
			}
			cs = append(cs, f)
		}
		closers = append(closers, cs...)
		return cs
	}
	a, b, d := idle(1), idle(2), idle(3)
	onA := hold(a, tasks.MaxSubscriptionsPerTask)
	if _, err := open(a); !servetest.ErrorIs(err, a2a.ErrUnsupportedOperation) {
		t.Fatalf("subscription %d to one task = %v, want UnsupportedOperationError", tasks.MaxSubscriptionsPerTask+1, err)
	} else {
		wantIn(t, err.Error(), "too many subscriptions to task "+string(a))
	}
	hold(b, total-tasks.MaxSubscriptionsPerTask)
	if _, err := open(d); !servetest.ErrorIs(err, a2a.ErrUnsupportedOperation) {
		t.Fatalf("subscription %d in all = %v, want UnsupportedOperationError", total+1, err)
	} else {
		wantIn(t, err.Error(), fmt.Sprintf("too many subscriptions: %d open, the limit of this server (--max-subscriptions)", total))
	}

	// Subscribers that go away release their slots: on their task, and in all.
	for _, f := range onA[:2] {
		f()
	}
	var got []func()
	if !servetest.Eventually(10*time.Second, func() bool {
		f, err := open(d)
		if err == nil {
			got = append(got, f)
		}
		return len(got) == 1
	}) {
		t.Fatal("a subscription is still refused after two subscribers went away")
	}
	if f, err := open(a); err != nil {
		t.Fatalf("subscription to %s after two of its subscribers left: %v, want it open", a, err)
	} else {
		got = append(got, f)
	}
	closers = append(closers, got...)
}

// openSubscription subscribes c to id and returns once the first answer came: nil and a function that closes the
// subscription (the client going away), or the refusal.
func openSubscription(ctx context.Context, c *a2aclient.Client, id a2a.TaskID) (func(), error) {
	sctx, stop := context.WithCancel(ctx)
	first := make(chan error, 1)
	ended := make(chan struct{})
	go func() {
		defer close(ended)
		n := 0
		for _, err := range c.SubscribeToTask(sctx, &a2a.SubscribeToTaskRequest{ID: id}) {
			if n++; n == 1 {
				first <- err
			}
			if err != nil {
				return
			}
		}
		if n == 0 {
			first <- fmt.Errorf("the subscription ended without an event")
		}
	}()
	err := <-first
	if err != nil {
		stop()
		<-ended
		return nil, err
	}
	return func() { stop(); <-ended }, nil
}

// TestSubscriptionLimitsEveryBinding: the bounds hold over HTTP+JSON, JSON-RPC and gRPC alike, with a2a-go's client
// on each: one subscription more than --max-subscriptions-per-task on a task, or --max-subscriptions in all, is
// refused with UnsupportedOperationError whose message names the bound and whose ErrorInfo metadata says which
// limit it is (a2a-cli/limit); a subscriber that closes its connection or stream gives its slot back, so the next
// subscription is taken.
func TestSubscriptionLimitsEveryBinding(t *testing.T) {
	t.Parallel()
	for i, tr := range servetest.AllTransports {
		t.Run(string(tr), func(t *testing.T) {
			t.Parallel()
			srv := startServer(t, serve.Config{Quiet: true, Backend: reference.New(reference.Config{}), Transports: servetest.AllTransports,
				MaxSubscriptionsPerTask: 2, MaxSubscriptions: 3})
			c := servetest.NewClient(t, srv.URL, tr)
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			idle := func(n int) a2a.TaskID {
				msg := a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("start"))
				msg.ID = fmt.Sprintf("tck-input-required-%d-%d", i, n)
				res, err := c.SendMessage(ctx, &a2a.SendMessageRequest{Message: msg})
				task, ok := res.(*a2a.Task)
				if err != nil || !ok || task.Status.State != a2a.TaskStateInputRequired {
					t.Fatalf("SendMessage = %#v, %v; want input-required", res, err)
				}
				return task.ID
			}
			var closers []func()
			defer func() {
				for _, f := range closers {
					f()
				}
			}()
			hold := func(id a2a.TaskID) func() {
				t.Helper()
				f, err := openSubscription(ctx, c, id)
				if err != nil {
					t.Fatalf("subscription to %s: %v, want it open", id, err)
				}
				closers = append(closers, f)
				return f
			}
			refused := func(id a2a.TaskID, want, limit string) {
				t.Helper()
				f, err := openSubscription(ctx, c, id)
				if err == nil {
					closers = append(closers, f)
					t.Fatalf("subscription to %s is open, want it refused (%s)", id, limit)
				}
				if tr == a2a.TransportProtocolJSONRPC {
					// a2a-go's JSON-RPC client reads a JSON answer to a streaming call as an empty stream (conform.go's
					// refusal): read the answer itself.
					err = rawRPCSubscribe(t, ctx, srv.URL, id)
				}
				// a2a-go's gRPC client knows UnsupportedOperationError only under FAILED_PRECONDITION, not the
				// specification's UNIMPLEMENTED that serve answers: to it the refusal is an InternalError (our
				// client reads it right, e2e.TestServeSubscriptionLimitFlag).
				if tr != a2a.TransportProtocolGRPC && !servetest.ErrorIs(err, a2a.ErrUnsupportedOperation) {
					t.Fatalf("subscription to %s: %v (%T), want UnsupportedOperationError", id, err, err)
				}
				wantIn(t, err.Error(), want)
				var ae *a2a.Error
				if !errors.As(err, &ae) {
					t.Fatalf("refusal %v is a %T, want an *a2a.Error", err, err)
				}
				if meta, _ := ae.ErrorInfo().Value["metadata"].(map[string]string); meta[tasks.LimitKey] != limit {
					t.Errorf("refusal's ErrorInfo metadata %v, want %s=%s", ae.ErrorInfo().Value["metadata"], tasks.LimitKey, limit)
				}
			}
			a, b := idle(1), idle(2)
			first := hold(a)
			hold(a)
			refused(a, "too many subscriptions to task "+string(a)+": 2 open, the limit on one task (--max-subscriptions-per-task)", tasks.LimitPerTask)
			hold(b)
			refused(b, "too many subscriptions: 3 open, the limit of this server (--max-subscriptions)", tasks.LimitTotal)

			// The subscriber that goes away gives its slot back, on its task and in all.
			first()
			var got func()
			if !servetest.Eventually(10*time.Second, func() bool {
				f, err := openSubscription(ctx, c, a)
				got = f
				return err == nil
			}) {
				t.Fatal("a subscription is still refused after a subscriber went away")
			}
			closers = append(closers, got)
			refused(b, "too many subscriptions: 3 open, the limit of this server (--max-subscriptions)", tasks.LimitTotal)
		})
	}
}

// rawRPCSubscribe posts SubscribeToTask to serve's JSON-RPC endpoint and returns the error it answers with, its
// code as the A2A error, its message and its ErrorInfo's metadata.
func rawRPCSubscribe(t *testing.T, ctx context.Context, url string, id a2a.TaskID) error {
	t.Helper()
	body := fmt.Sprintf(`{"jsonrpc":"2.0","id":7,"method":"SubscribeToTask","params":{"id":%q}}`, id)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url+"/jsonrpc", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set(a2a.SvcParamVersion, "1.0")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var answer struct {
		Error *struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
			Data    []struct {
				Type     string            `json:"@type"`
				Metadata map[string]string `json:"metadata"`
			} `json:"data"`
		} `json:"error"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&answer); err != nil || answer.Error == nil {
		t.Fatalf("JSON-RPC SubscribeToTask(%s): %s, %v; want a JSON-RPC error", id, resp.Header.Get("Content-Type"), err)
	}
	if answer.Error.Code != -32004 {
		return fmt.Errorf("JSON-RPC error %d: %s", answer.Error.Code, answer.Error.Message)
	}
	e := a2a.NewError(a2a.ErrUnsupportedOperation, answer.Error.Message)
	for _, d := range answer.Error.Data {
		if d.Type == errordetails.ErrorInfoType {
			e = e.WithErrorInfoMeta(d.Metadata)
		}
	}
	return e
}

func wantIn(t *testing.T, s, want string) {
	t.Helper()
	if !strings.Contains(s, want) {
		t.Errorf("error %q, want it to say %q", s, want)
	}
}

package follow

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/a2acli/a2a/internal/client"
	"github.com/a2acli/a2a/internal/testagent"
	"github.com/a2aproject/a2a-go/v2/a2a"
)

// TestAfterRefusal: a follow-up that a2a-go's handler refuses while its task waits for credentials it never gets is
// followed for --timeout and then fails as the refusal, with ErrStillWaitsForCredentials and the command that shows
// the task, whether the task was asked about before the message (send) or after the refusal (chat, mcp). An error
// that is no answer of the agent (a timeout) is not followed, and costs no call.
func TestAfterRefusal(t *testing.T) {
	t.Parallel()
	ag := testagent.Start(t, testagent.Options{Behavior: testagent.AuthRequired, TaskAuth: func(string) bool { return false }})
	c, log, _ := connect(t, ag, 300*time.Millisecond)
	env := &Env{Log: log, Wait: &Wait{PollInterval: 10 * time.Millisecond}}
	ctx := context.Background()
	res, err := c.SendMessage(ctx, &a2a.SendMessageRequest{Message: a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("start"))})
	if err != nil {
		t.Fatal(err)
	}
	task, ok := res.(*a2a.Task)
	if !ok || task.Status.State != a2a.TaskStateAuthRequired {
		t.Fatalf("SendMessage() = %#v, want a task at auth-required", res)
	}
	prior := env.AuthPrior(ctx, c, task.ID)
	if prior == nil || prior.ID != task.ID {
		t.Fatalf("AuthPrior() = %v, want the task", prior)
	}
	sent := time.Now()
	_, sendErr := c.SendMessage(ctx, &a2a.SendMessageRequest{Message: a2a.NewMessageForTask(a2a.MessageRoleUser, task, a2a.NewTextPart("go on"))})
	if sendErr == nil {
		t.Fatal("the agent took a follow-up while its task waits for credentials")
	}

	calls := len(ag.Calls())
	timeout := fmt.Errorf("send: %w", client.ErrTimeout)
	if _, err, followed := env.AfterRefusal(ctx, c, Refusal{URL: ag.URL, ID: task.ID, Sent: sent, Err: timeout}, nil); followed || err != timeout {
		t.Errorf("AfterRefusal(a timeout) = %v, followed %v; want the timeout, not followed", err, followed)
	}
	if n := len(ag.Calls()); n != calls {
		t.Errorf("AfterRefusal(a timeout) made %d calls, want none", n-calls)
	}

	for _, p := range []*a2a.Task{prior, nil} {
		var following int
		final, err, followed := env.AfterRefusal(ctx, c, Refusal{URL: ag.URL, ID: task.ID, Prior: p, Sent: sent, Err: sendErr,
			Following: func(*a2a.Task) { following++ }}, nil)
		if !followed || !errors.Is(err, ErrStillWaitsForCredentials) || !errors.Is(err, sendErr) || following != 1 {
			t.Fatalf("AfterRefusal(prior %v) = %v, followed %v, told %d times; want the refusal that still waits, followed, told once", p != nil, err, followed, following)
		}
		if final == nil || final.Status.State != a2a.TaskStateAuthRequired {
			t.Errorf("AfterRefusal(prior %v) task = %v, want it at auth-required", p != nil, final)
		}
		var h *client.Hinted
		if want := "a2a get task " + ag.URL + " " + string(task.ID); !errors.As(err, &h) || !strings.Contains(h.Hint, want) {
			t.Errorf("AfterRefusal(prior %v) hint = %v, want it to name %q", p != nil, h, want)
		}
	}
}

package cli

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"sync"
	"time"

	"github.com/a2acli/a2a/internal/client"
	"github.com/a2acli/a2a/internal/follow"
	"github.com/a2acli/a2a/internal/push"
	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/spf13/cobra"
)

// pushSendOptions are send's push flags: --push-url attaches a webhook to the message; --push starts
// a webhook of our own and waits for the outcome through it.
type pushSendOptions struct {
	url   string
	token string
	own   bool
}

func addPushSendFlags(cmd *cobra.Command, o *pushSendOptions) {
	fl := cmd.Flags()
	fl.StringVar(&o.url, "push-url", "", "ask the agent to POST the task's updates to this webhook (see a2a listen)")
	fl.StringVar(&o.token, "push-token", "", "with --push-url: the token the agent sends back in X-A2A-Notification-Token")
	fl.BoolVar(&o.own, "push", false, "wait for the outcome through push notifications, on a webhook of our own on loopback")
	cmd.MarkFlagsMutuallyExclusive("push", "push-url")
	cmd.MarkFlagsMutuallyExclusive("push", "stream")
	cmd.MarkFlagsMutuallyExclusive("push", "immediate")
}

func (o *pushSendOptions) check(cmdPath string) error {
	if o.token != "" && o.url == "" {
		return &client.UsageError{Msg: "--push-token goes with --push-url", Cmd: cmdPath}
	}
	return nil
}

// attach adds the push config to req.
func (o *pushSendOptions) attach(req *a2a.SendMessageRequest, url, token string) {
	if req.Config == nil {
		req.Config = &a2a.SendMessageConfig{}
	}
	req.Config.PushConfig = &a2a.PushConfig{URL: url, Token: token}
}

// sendPush is send --push: a webhook on a free loopback port with a fresh token is attached to the
// message, sent with ReturnImmediately; the outcome arrives as a notification with a terminal or
// interrupted state, then the task is read once (GetTask) for its artifacts.
func (o *sendOptions) sendPush(ctx context.Context, c *client.Conn, req *a2a.SendMessageRequest) error {
	tok := make([]byte, 16)
	_, _ = rand.Read(tok) // crypto/rand.Read never fails (Go 1.24+)
	token := hex.EncodeToString(tok)
	var mu sync.Mutex
	var last *a2a.Task // the task as the notifications tell it, for giving up
	rc := push.NewReceiver(token, func(ev a2a.Event) bool {
		mu.Lock()
		defer mu.Unlock()
		switch v := ev.(type) {
		case *a2a.Task:
			last = v
			return follow.Settled(v.Status.State)
		case *a2a.TaskStatusUpdateEvent:
			if last == nil {
				last = &a2a.Task{ID: v.TaskID, ContextID: v.ContextID}
			}
			last.Status = v.Status
			return follow.Settled(v.Status.State)
		}
		return false
	})
	rctx, stop := context.WithCancel(ctx)
	defer stop()
	ready := make(chan string, 1)
	served := make(chan error, 1)
	go func() { served <- push.Serve(rctx, "127.0.0.1", 0, rc, func(u string) { ready <- u }) }()
	defer func() { stop(); <-served }()
	var hook string
	select {
	case hook = <-ready:
	case err := <-served:
		return err
	}
	o.f.log.Printf("push: waiting for notifications on %s", hook)
	o.push.attach(req, hook, token)
	req.Config.ReturnImmediately = true
	res, err := client.Unary(ctx, c, func(ctx context.Context) (a2a.SendMessageResult, error) { return c.SendMessage(ctx, req) })
	if err != nil {
		return follow.Expired(ctx, err)
	}
	task, ok := res.(*a2a.Task)
	if !ok || follow.Settled(task.Status.State) {
		return o.printAnswer(res)
	}
	get := func() (*a2a.Task, error) {
		return client.Unary(ctx, c, func(ctx context.Context) (*a2a.Task, error) {
			return c.GetTask(ctx, &a2a.GetTaskRequest{ID: task.ID, Tenant: o.f.opts.Tenant, HistoryLength: req.Config.HistoryLength})
		})
	}
	// Silence longer than --timeout is a question, not a verdict (a notification may have been lost):
	// one GetTask says whether the task is still going.
	var silence <-chan time.Time
	if t := o.f.opts.Timeout; t > 0 {
		tick := time.NewTicker(t)
		defer tick.Stop()
		silence = tick.C
	}
	for {
		select {
		case <-rc.Final():
		case <-silence:
			now, err := get()
			if err != nil || !follow.Settled(now.Status.State) {
				continue // unreachable for now, or still going: the notifications may yet come
			}
		case <-ctx.Done():
			mu.Lock()
			state := task.Status.State
			if last != nil && last.Status.State != "" {
				state = last.Status.State
			}
			mu.Unlock()
			return o.f.env().GiveUp(o.url, task.ID, state, false, follow.Cause(ctx, ctx.Err()))
		case err := <-served:
			return fmt.Errorf("push webhook: %w", err)
		}
		break
	}
	final, err := get()
	if err != nil {
		return err
	}
	return o.printAnswer(final)
}

package conformance

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

// push: the push config CRUD and delivery when the card declares push notifications, CORE-CAP-001 when not.
func (r *runner) push(ctx context.Context, b *binding, o *own) {
	var t *a2a.Task
	if len(o.tasks) > 0 {
		t = o.tasks[0]
	}
	if !r.t.Card.Capabilities.PushNotifications {
		switch {
		case !b.ownCard:
			r.record("CORE-CAP-001", b.name, skip("the client could not be told to ask the agent"))
		case t == nil:
			r.record("CORE-CAP-001", b.name, skip("the agent made no task to configure"))
		default:
			r.expectErr(ctx, b, "CORE-CAP-001", "CreateTaskPushNotificationConfig taskId="+string(t.ID)+" (card: pushNotifications false)", a2a.ErrPushNotificationNotSupported, func(ctx context.Context) (any, error) {
				return b.c.CreateTaskPushConfig(ctx, &a2a.PushConfig{TaskID: t.ID, URL: "http://127.0.0.1:9/a2a-conformance"})
			})
		}
		return
	}
	ids := []string{"PUSH-CREATE-001", "PUSH-GET-001", "PUSH-LIST-001", "PUSH-DEL-001", "PUSH-GET-002", "PUSH-DELIVER-003"}
	if !r.want(ids...) {
		return
	}
	if t == nil {
		for _, id := range ids {
			r.record(id, b.name, skip("the agent made no task to configure"))
		}
		return
	}
	hook, err := newWebhook(r.o.Webhook)
	if err != nil {
		for _, id := range ids {
			r.record(id, b.name, skip("no loopback webhook: "+err.Error()))
		}
		return
	}
	defer hook.close()
	r.pushCRUD(ctx, b, t, hook)
	r.pushDelivery(ctx, b, hook)
}

func (r *runner) pushCRUD(ctx context.Context, b *binding, t *a2a.Task, hook *webhook) {
	if !r.spend(5) {
		r.record("PUSH-CREATE-001", b.name, skip(budgetSpent))
		return
	}
	call := func(f func(ctx context.Context) error) error {
		cctx, cancel := r.callCtx(ctx)
		defer cancel()
		return f(cctx)
	}
	cfgID := "a2a-conformance-" + r.runID
	// The config is on a finished task of the run, so nothing is delivered; an agent on another machine gets a
	// webhook on a public name rather than one on its own loopback (which its SSRF guard may rightly refuse).
	hookURL := hook.url
	if !loopbackURL(b.iface.URL) {
		hookURL = "https://example.com/a2a-conformance"
	}
	want := &a2a.PushConfig{TaskID: t.ID, ID: cfgID, URL: hookURL, Token: "a2a-conformance-token"}
	sent := fmt.Sprintf("CreateTaskPushNotificationConfig taskId=%s id=%s url=%s", t.ID, cfgID, hookURL)
	var made *a2a.PushConfig
	err := call(func(ctx context.Context) (e error) { made, e = b.c.CreateTaskPushConfig(ctx, want); return })
	if err != nil {
		r.record("PUSH-CREATE-001", b.name, fail(sent, errText(err), "the card declares push notifications"))
		return
	}
	if made.URL != hookURL || made.TaskID != t.ID {
		r.record("PUSH-CREATE-001", b.name, fail(sent, fmt.Sprintf("taskId=%s url=%s", made.TaskID, made.URL), "the stored config must be the one sent"))
		return
	}
	r.record("PUSH-CREATE-001", b.name, pass("config "+made.ID))
	id := made.ID
	var got *a2a.PushConfig
	err = call(func(ctx context.Context) (e error) {
		got, e = b.c.GetTaskPushConfig(ctx, &a2a.GetTaskPushConfigRequest{TaskID: t.ID, ID: id})
		return
	})
	sent = fmt.Sprintf("GetTaskPushNotificationConfig taskId=%s id=%s", t.ID, id)
	if err != nil || got.URL != hookURL {
		r.record("PUSH-GET-001", b.name, fail(sent, errText(err), "the config just made must be returned"))
	} else {
		r.record("PUSH-GET-001", b.name, pass("url "+got.URL))
	}
	var list []*a2a.PushConfig
	err = call(func(ctx context.Context) (e error) {
		list, e = b.c.ListTaskPushConfigs(ctx, &a2a.ListTaskPushConfigRequest{TaskID: t.ID})
		return
	})
	found := false
	for _, c := range list {
		found = found || c.ID == id
	}
	if err != nil || !found {
		r.record("PUSH-LIST-001", b.name, fail("ListTaskPushNotificationConfigs taskId="+string(t.ID), fmt.Sprintf("%d config(s), %s", len(list), errText(err)), "the config just made must be listed"))
	} else {
		r.record("PUSH-LIST-001", b.name, pass(fmt.Sprintf("%d config(s)", len(list))))
	}
	err = call(func(ctx context.Context) error {
		return b.c.DeleteTaskPushConfig(ctx, &a2a.DeleteTaskPushConfigRequest{TaskID: t.ID, ID: id})
	})
	if err != nil {
		r.record("PUSH-DEL-001", b.name, fail("DeleteTaskPushNotificationConfig id="+id, errText(err), "the config must be deletable"))
		return
	}
	err = call(func(ctx context.Context) (e error) {
		_, e = b.c.GetTaskPushConfig(ctx, &a2a.GetTaskPushConfigRequest{TaskID: t.ID, ID: id})
		return
	})
	sent = "GetTaskPushNotificationConfig of the deleted id=" + id
	if err == nil {
		r.record("PUSH-DEL-001", b.name, fail(sent, "the config", "a deleted config must be gone"))
		r.record("PUSH-GET-002", b.name, fail(sent, "the config", "an unknown config must be an error"))
	} else if isA2AError(err) {
		r.record("PUSH-DEL-001", b.name, pass("gone after delete"))
		r.record("PUSH-GET-002", b.name, pass(errText(err)))
	} else {
		r.record("PUSH-DEL-001", b.name, pass("gone after delete"))
		r.record("PUSH-GET-002", b.name, fail(sent, errText(err), "want an A2A error"))
	}
}

// pushDelivery: a task sent with a push config reaches the run's own webhook with its token.
func (r *runner) pushDelivery(ctx context.Context, b *binding, hook *webhook) {
	if !r.want("PUSH-DELIVER-003") {
		return
	}
	if !loopbackURL(b.iface.URL) {
		r.record("PUSH-DELIVER-003", b.name, skip("the agent is not on this machine: it cannot reach the run's loopback webhook"))
		return
	}
	m := r.probe("a2a-conformance", "a2a conformance: push delivery")
	token := "a2a-conformance-" + r.runID
	cfg := &a2a.SendMessageConfig{ReturnImmediately: true, PushConfig: &a2a.PushConfig{URL: hook.url, Token: token}}
	sent := "SendMessage (returnImmediately) with a push config to " + hook.url
	res, err, ok := r.send(ctx, b, m, cfg)
	if !ok {
		r.record("PUSH-DELIVER-003", b.name, skip(budgetSpent))
		return
	}
	t, isTask := res.(*a2a.Task)
	if err != nil || !isTask {
		r.record("PUSH-DELIVER-003", b.name, skip("no task to deliver: "+describe(res)+" "+errText(err)))
		return
	}
	wctx, cancel := r.callCtx(ctx)
	defer cancel()
	for {
		select {
		case <-wctx.Done():
			r.record("PUSH-DELIVER-003", b.name, fail(sent, "no notification for task "+string(t.ID)+" within "+r.o.Timeout.String(), "the agent must notify the webhook"))
			return
		case n := <-hook.got:
			if !strings.Contains(n.body, string(t.ID)) {
				continue
			}
			switch {
			case n.token != "" && n.token != token:
				r.record("PUSH-DELIVER-003", b.name, fail(sent, "notification token "+n.token, "a notification token must be the config's"))
			case !strings.Contains(n.body, `"task"`) && !strings.Contains(n.body, `"statusUpdate"`) && !strings.Contains(n.body, `"artifactUpdate"`) && !b.v03:
				r.record("PUSH-DELIVER-003", b.name, fail(sent, n.body, "the payload must be a StreamResponse"))
			default:
				how := "with the config's token"
				if n.token == "" {
					how = "with no token header (the specification shows X-A2A-Notification-Token in an example only)"
				}
				r.record("PUSH-DELIVER-003", b.name, pass("notification "+how+": "+clip(n.body)))
			}
			return
		}
	}
}

func loopbackURL(raw string) bool {
	u, err := url.Parse(raw)
	host := raw
	if err == nil && u.Host != "" {
		host = u.Hostname()
	} else if h, _, err := net.SplitHostPort(raw); err == nil {
		host = h
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

type notification struct{ token, body string }

// webhook is the run's own loopback receiver of push notifications.
type webhook struct {
	url string
	srv *http.Server
	got chan notification
}

func newWebhook(addr string) (*webhook, error) {
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	h := &webhook{url: "http://" + ln.Addr().String() + "/a2a-conformance", got: make(chan notification, 64)}
	h.srv = &http.Server{ReadHeaderTimeout: 5 * time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, err := io.ReadAll(io.LimitReader(req.Body, 256<<10))
		if err != nil && !errors.Is(err, io.EOF) {
			http.Error(w, "bad body", http.StatusBadRequest)
			return
		}
		select {
		case h.got <- notification{token: notificationToken(req.Header), body: string(body)}:
		default: // the run reads only what it waits for
		}
		w.WriteHeader(http.StatusOK)
	})}
	go h.srv.Serve(ln) //nolint:errcheck // ends with close
	return h, nil
}

func (h *webhook) close() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	_ = h.srv.Shutdown(ctx) //nolint:errcheck // nothing to report
}

// notificationToken is the token a notification carries: the specification's example names X-A2A-Notification-Token,
// a2a-go and a2a-js send A2A-Notification-Token.
func notificationToken(h http.Header) string {
	if t := h.Get("X-A2A-Notification-Token"); t != "" {
		return t
	}
	return h.Get("A2A-Notification-Token")
}

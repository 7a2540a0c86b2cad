package e2e

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/a2acli/a2a/internal/testagent"
)

// startListen starts `a2a listen args…` and returns it with the URL from its "listening on" line.
func startListen(t testing.TB, args ...string) (*client, string) {
	t.Helper()
	c := startClient(t, append([]string{"listen"}, args...)...)
	var url string
	eventually(t, 30*time.Second, "listen's 'listening on' line", func() bool {
		for _, l := range strings.Split(c.Stderr(), "\n") {
			if u, ok := strings.CutPrefix(l, "listening on "); ok {
				url = strings.TrimSpace(u)
				return true
			}
		}
		return false
	})
	return c, url
}

func post(t *testing.T, url, token, body string) int {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	if token != "" {
		req.Header.Set("X-A2A-Notification-Token", token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// TestPushListenSendPushURL: send --push-url on every transport; listen prints each notification
// (JSON Lines) and exits 0 after the final one.
func TestPushListenSendPushURL(t *testing.T) {
	t.Parallel()
	srv := startServe(t, "--transport", "rest,jsonrpc,grpc", "--exec", "cat")
	for _, tr := range []string{"rest", "jsonrpc", "grpc"} {
		t.Run(tr, func(t *testing.T) {
			l, hook := startListen(t, "--token", "tk-"+tr, "--until-final", "-o", "json")
			r := run(t, "", "send", srv.url, "--transport", tr, "--immediate", "--push-url", hook, "--push-token", "tk-"+tr, "hello "+tr)
			wantCode(t, r, 0)
			lines, code := l.wait(t, 30*time.Second)
			if code != 0 {
				t.Fatalf("listen exit %d; stderr:\n%s", code, l.Stderr())
			}
			var evs []a2a.Event
			for _, line := range lines {
				var sr a2a.StreamResponse
				if err := json.Unmarshal([]byte(line), &sr); err != nil {
					t.Fatalf("listen line %q: %v", line, err)
				}
				evs = append(evs, sr.Event)
			}
			if lastState(t, evs) != a2a.TaskStateCompleted {
				t.Fatalf("last notification state %v, want completed; lines:\n%s", lastState(t, evs), strings.Join(lines, "\n"))
			}
			var text string
			for _, ev := range evs {
				if s, ok := chunkText(ev); ok {
					text += s
				}
			}
			if !strings.Contains(text, "hello "+tr) {
				t.Errorf("artifact text %q, want the message back", text)
			}
		})
	}
}

// TestPushListenRefuses: a request without the token (or a wrong one) is 401, a body that is not a
// notification is 400, a GET is 405; none is printed. Text output names the task.
func TestPushListenRefuses(t *testing.T) {
	t.Parallel()
	l, hook := startListen(t, "--token", "s3cret", "--until-final")
	note := `{"statusUpdate":{"taskId":"t-1","contextId":"c-1","status":{"state":"TASK_STATE_COMPLETED"}}}`
	for _, tc := range []struct {
		token, body string
		want        int
	}{
		{"", note, http.StatusUnauthorized},
		{"wrong", note, http.StatusUnauthorized},
		{"s3cret", `{"hello":"world"}`, http.StatusBadRequest},
		{"s3cret", `not json`, http.StatusBadRequest},
	} {
		if got := post(t, hook, tc.token, tc.body); got != tc.want {
			t.Errorf("POST token=%q body=%q: %d, want %d", tc.token, tc.body, got, tc.want)
		}
	}
	if resp, err := http.Get(hook); err != nil || resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("GET = %v, %v; want 405", resp, err)
	}
	// A v0.3 notification (the Task itself), then a final v1.0 one.
	if got := post(t, hook, "s3cret", `{"kind":"task","id":"t-0","contextId":"c-0","status":{"state":"working"}}`); got != http.StatusOK {
		t.Fatalf("v0.3 notification: %d", got)
	}
	if got := post(t, hook, "s3cret", note); got != http.StatusOK {
		t.Fatalf("notification with token: %d", got)
	}
	lines, code := l.wait(t, 30*time.Second)
	out := strings.Join(lines, "\n")
	if code != 0 {
		t.Fatalf("listen exit %d; stderr:\n%s", code, l.Stderr())
	}
	wantContains(t, "listen output", out, "Task ID: t-0", "State: working", "Task ID: t-1", "State: completed")
	if strings.Contains(out, "hello") {
		t.Errorf("a refused body was printed:\n%s", out)
	}
}

// TestPushSendOwn: send --push waits for the outcome through its own webhook, not by polling.
func TestPushSendOwn(t *testing.T) {
	t.Parallel()
	srv := startServe(t, "--exec", "sleep 0.5; cat")
	r := run(t, "", "send", srv.url, "--push", "-v", "hello push")
	wantCode(t, r, 0)
	wantContains(t, "send --push", r.stdout, "State: completed", "hello push")
	wantContains(t, "send --push -v", r.stderr, "push: waiting for notifications on http://127.0.0.1:")
	if strings.Contains(srv.Log(), "GetTask") && strings.Count(srv.Log(), "GetTask") > 1 {
		t.Errorf("send --push polled GetTask:\n%s", srv.Log())
	}
	j := run(t, "", "send", srv.url, "--push", "-o", "json", "json push")
	wantCode(t, j, 0)
	task := sendTask(t, j)
	if task.Status.State != a2a.TaskStateCompleted || len(task.Artifacts) == 0 {
		t.Errorf("send --push -o json: %+v", task)
	}
	u := run(t, "", "send", srv.url, "--push", "--stream", "x")
	wantCode(t, u, 2)
	wantContains(t, "send --push --stream", u.stderr, "push")
	tok := run(t, "", "send", srv.url, "--push-token", "t", "x")
	wantCode(t, tok, 2)
	wantContains(t, "send --push-token alone", tok.stderr, "--push-token goes with --push-url")
}

// pushVerbs runs the four verbs against url with extra flags, in text and JSON.
func pushVerbs(t *testing.T, url string, hook string, extra ...string) {
	t.Helper()
	a := func(args ...string) result { return run(t, "", append(args, extra...)...) }
	sent := a("send", url, "--immediate", "-o", "json", "push verbs")
	wantCode(t, sent, 0)
	id := string(sendTask(t, sent).ID)

	cr := a("create", "push-config", url, id, "--webhook", hook, "--id", "cfg-1", "--token", "tok", "--auth-scheme", "Bearer", "--credentials", "cr")
	wantCode(t, cr, 0)
	wantContains(t, "create push-config", cr.stdout, "Config ID: cfg-1", "Task ID: "+id, "URL: "+hook, "Token: set", "Authentication: Bearer")
	if strings.Contains(cr.stdout, "tok\n") || strings.Contains(cr.stdout, " cr") {
		t.Errorf("text output shows the secrets:\n%s", cr.stdout)
	}
	g := a("get", "push-config", url, id, "cfg-1", "-o", "json")
	wantCode(t, g, 0)
	var cfg a2a.PushConfig
	if err := json.Unmarshal([]byte(g.stdout), &cfg); err != nil || cfg.ID != "cfg-1" || cfg.URL != hook || cfg.Token != "tok" || string(cfg.TaskID) != id {
		t.Fatalf("get push-config -o json: %v %+v\n%s", err, cfg, g)
	}
	ls := a("list", "push-configs", url, id, "-o", "json")
	wantCode(t, ls, 0)
	var list a2a.ListTaskPushConfigResponse
	if err := json.Unmarshal([]byte(ls.stdout), &list); err != nil || len(list.Configs) != 1 || list.Configs[0].ID != "cfg-1" {
		t.Fatalf("list push-configs -o json: %v %+v\n%s", err, list, ls)
	}
	lt := a("list", "push-configs", url, id)
	wantCode(t, lt, 0)
	wantContains(t, "list push-configs", lt.stdout, "Config ID: cfg-1")
	d := a("delete", "push-config", url, id, "cfg-1")
	wantCode(t, d, 0)
	wantContains(t, "delete push-config", d.stdout, "Config ID: cfg-1", "Deleted: yes")
	empty := a("list", "push-configs", url, id, "-o", "json")
	wantCode(t, empty, 0)
	if strings.TrimSpace(empty.stdout) != `{"configs":[]}` {
		t.Errorf("list after delete: %s", empty.stdout)
	}
}

// TestPushVerbs: the four verbs against our serve on every transport and both protocol versions,
// and against a2a-go's own push-capable handler (its config store, not ours).
func TestPushVerbs(t *testing.T) {
	t.Parallel()
	hook := "http://127.0.0.1:9/hook"
	for _, tr := range []string{"rest", "jsonrpc", "grpc"} {
		t.Run("serve-"+tr, func(t *testing.T) {
			t.Parallel()
			srv := startServe(t, "--transport", tr, "--echo")
			pushVerbs(t, srv.url, hook)
		})
		t.Run("serve-v03-"+tr, func(t *testing.T) {
			t.Parallel()
			srv := startServe(t, "--transport", tr, "--echo", "--protocol", "0.3", "--card-compat")
			optIn03(t, srv.url)
			pushVerbs(t, srv.url, hook)
		})
	}
	for _, tc := range []struct {
		name string
		opts testagent.Options
	}{
		{"a2ago-jsonrpc", testagent.Options{Push: true}},
		{"a2ago-rest", testagent.Options{Push: true, Transport: a2a.TransportProtocolHTTPJSON}},
		{"a2ago-grpc", testagent.Options{Push: true, Transport: a2a.TransportProtocolGRPC}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ag := testagent.Start(t, tc.opts)
			pushVerbs(t, ag.URL, hook)
		})
	}
	// serve --proxy forwards the methods: to a2a-go's handler, and its card keeps the upstream's word.
	t.Run("proxy", func(t *testing.T) {
		t.Parallel()
		ag := testagent.Start(t, testagent.Options{Push: true})
		px := startServe(t, "--proxy", ag.URL)
		card := run(t, "", "discover", px.url)
		wantContains(t, "proxy card", card.stdout, "Push Notifications: yes")
		pushVerbs(t, px.url, hook)
		n := 0
		for _, c := range ag.Calls() {
			if c.Method == "CreateTaskPushConfig" {
				n++
			}
		}
		if n != 1 {
			t.Errorf("upstream got %d CreateTaskPushConfig calls, want 1", n)
		}
	})
}

// TestPushListenInterrupt: Ctrl-C ends listen at once and cleanly: like serve, a receiver has done its job (exit 0).
func TestPushListenInterrupt(t *testing.T) {
	t.Parallel()
	l, _ := startListen(t)
	if err := l.cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	if _, code := l.wait(t, 10*time.Second); code != 0 || strings.Contains(l.Stderr(), "a2a:") {
		t.Errorf("listen after SIGINT: exit %d, want 0 and no error; stderr:\n%s", code, l.Stderr())
	}
}

// TestPushA2AGoDelivers: our listen receives what a2a-go's own sender POSTs (send --push-url).
func TestPushA2AGoDelivers(t *testing.T) {
	t.Parallel()
	ag := testagent.Start(t, testagent.Options{Push: true, Behavior: testagent.Slow, Delay: 300 * time.Millisecond})
	l, hook := startListen(t, "--token", "tk", "--until-final")
	r := run(t, "", "send", ag.URL, "--immediate", "--push-url", hook, "--push-token", "tk", "slow")
	wantCode(t, r, 0)
	lines, code := l.wait(t, 30*time.Second)
	if code != 0 {
		t.Fatalf("listen exit %d; stderr:\n%s", code, l.Stderr())
	}
	wantContains(t, "listen", strings.Join(lines, "\n"), "State: completed")
}

// nonLoopbackIP is an address of this machine outside loopback, or "" when it has none.
func nonLoopbackIP() string {
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		return ""
	}
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok && !n.IP.IsLoopback() && n.IP.To4() != nil && !n.IP.IsLinkLocalUnicast() {
			return n.IP.String()
		}
	}
	return ""
}

// TestPushAllowList: a webhook outside the allow-list is refused with InvalidParams naming the flag
// that allows it, and no connection ever reaches it; --push-allow lets it through.
func TestPushAllowList(t *testing.T) {
	t.Parallel()
	ip := nonLoopbackIP()
	if ip == "" {
		t.Skip("no non-loopback IPv4 address on this machine")
	}
	ln, err := net.Listen("tcp", ip+":0")
	if err != nil {
		t.Skipf("cannot listen on %s: %v", ip, err)
	}
	defer ln.Close()
	var conns atomic.Int32
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			conns.Add(1)
			c.Close()
		}
	}()
	hook := "http://" + ln.Addr().String() + "/hook"
	srv := startServe(t, "--echo")
	sent := run(t, "", "send", srv.url, "-o", "json", "x")
	id := string(sendTask(t, sent).ID)
	r := run(t, "", "create", "push-config", srv.url, id, "--webhook", hook)
	wantCode(t, r, 1)
	wantContains(t, "refused create", r.stderr, "not allowed", "--push-allow "+ip)
	rj := run(t, "", "create", "push-config", srv.url, id, "--webhook", hook, "-o", "json")
	wantCode(t, rj, 1)
	if doc := errorDoc(t, rj); doc["code"] != "InvalidParamsError" {
		t.Errorf("refused create -o json: code %v, want InvalidParamsError", doc["code"])
	}
	s := run(t, "", "send", srv.url, "--push-url", hook, "y")
	wantCode(t, s, 1)
	wantContains(t, "refused send", s.stderr, "--push-allow "+ip)
	if n := conns.Load(); n != 0 {
		t.Fatalf("%d connections reached the refused host", n)
	}
	open := startServe(t, "--echo", "--push-allow", ip)
	ok := run(t, "", "send", open.url, "--push-url", hook, "z")
	wantCode(t, ok, 0)
	eventually(t, 30*time.Second, "a notification to the allowed host", func() bool { return conns.Load() > 0 })
}

// TestPushDownWebhook: a webhook that accepts connections and never answers does not hold the task up: the task
// streams all its events and completes while the webhook has answered nothing, and the notifications beyond the
// webhook's queue are dropped, not waited for. Nothing is timed against another run: were delivery in the task's
// way (a full queue waited on instead of dropping), the events past the queue would each wait for POSTs that never
// end (10 s per attempt, 4 attempts), far past the 45 s --wait allows (exit 5), which a check with such a queue
// confirmed.
func TestPushDownWebhook(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	var conns atomic.Int64
	go func() {
		var held []net.Conn
		defer func() {
			for _, c := range held {
				c.Close()
			}
		}()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			conns.Add(1)
			held = append(held, c)
		}
	}()
	// One line every few milliseconds: each is its own artifact event (more than a webhook queue holds).
	srv := startServe(t, "--exec", "for i in $(seq 1 400); do echo $i; sleep 0.003; done", "--chunk", "\n")
	r := run(t, "", "send", srv.url, "--stream", "-o", "json", "--wait", "45s", "--push-url", "http://"+ln.Addr().String()+"/", "go")
	wantCode(t, r, 0)
	evs, _ := jsonLines(t, r.stdout)
	if lastState(t, evs) != a2a.TaskStateCompleted {
		t.Fatalf("task did not complete:\n%s", r)
	}
	var got, want strings.Builder
	for i := 1; i <= 400; i++ {
		fmt.Fprintf(&want, "%d\n", i)
	}
	for _, ev := range evs {
		if au, ok := ev.(*a2a.TaskArtifactUpdateEvent); ok {
			for _, p := range au.Artifact.Parts {
				got.WriteString(p.Text())
			}
		}
	}
	if got.String() != want.String() {
		t.Fatalf("the artifact streamed is not the 400 lines\n%s", r)
	}
	eventually(t, 30*time.Second, "a delivery attempt at the webhook", func() bool { return conns.Load() > 0 })
	eventually(t, 30*time.Second, "the serve log saying notifications were dropped", func() bool {
		return strings.Contains(srv.Log(), "webhook queue full")
	})
}

// TestPushV03Delivery: a config made over a v0.3 interface gets what v0.3 receivers read, the Task
// object after each event; listen reads it and ends on the completed one.
func TestPushV03Delivery(t *testing.T) {
	t.Parallel()
	srv := startServe(t, "--echo", "--transport", "jsonrpc", "--protocol", "0.3", "--card-compat")
	optIn03(t, srv.url)
	l, hook := startListen(t, "--until-final", "-o", "json")
	r := run(t, "", "send", srv.url, "--immediate", "--push-url", hook, "v03 push")
	wantCode(t, r, 0)
	lines, code := l.wait(t, 30*time.Second)
	if code != 0 || len(lines) == 0 {
		t.Fatalf("listen exit %d, %d lines; stderr:\n%s", code, len(lines), l.Stderr())
	}
	for _, line := range lines {
		var sr a2a.StreamResponse
		if err := json.Unmarshal([]byte(line), &sr); err != nil {
			t.Fatalf("line %q: %v", line, err)
		}
		if _, ok := sr.Event.(*a2a.Task); !ok {
			t.Errorf("v0.3 notification read as %T, want the Task: %s", sr.Event, line)
		}
	}
	last := lines[len(lines)-1]
	wantContains(t, "last notification", last, `"TASK_STATE_COMPLETED"`, "v03 push")
}

// TestPushSendLost: when the notifications never come, silence longer than --timeout asks GetTask,
// and send --push still reports the outcome.
func TestPushSendLost(t *testing.T) {
	t.Parallel()
	ag := testagent.Start(t, testagent.Options{Push: true, PushLost: true, Behavior: testagent.Slow, Delay: 200 * time.Millisecond})
	r := run(t, "", "send", ag.URL, "--push", "--timeout", "500ms", "lost")
	wantCode(t, r, 0)
	wantContains(t, "send --push with lost notifications", r.stdout, "State: completed", "echo: lost")
}

// TestPushUsage: misuse of the push verbs is a usage error (exit 2) that says what is wrong, before
// any network call.
func TestPushUsage(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"create", "push-config", "127.0.0.1:9", "t"}, "--webhook is required"},
		{[]string{"create", "push-config", "127.0.0.1:9", "t", "--webhook", "ftp://x/"}, "invalid --webhook"},
		{[]string{"create", "push-config", "127.0.0.1:9", "t", "--webhook", "http://127.0.0.1/", "--auth-scheme", "Bearer"}, "credentials"},
		{[]string{"get", "push-config", "127.0.0.1:9", "t"}, "missing <config-id>"},
		{[]string{"delete", "push-config", "127.0.0.1:9"}, "missing <task-id> and <config-id>"},
		{[]string{"list", "push-configs", "127.0.0.1:9"}, "missing <task-id>"},
		{[]string{"create"}, "needs a noun: push-config"},
		{[]string{"listen", "--port", "70000"}, "invalid --port"},
		{[]string{"listen", "extra"}, `unexpected argument "extra"`},
	} {
		r := run(t, "", tc.args...)
		wantCode(t, r, 2)
		wantContains(t, strings.Join(tc.args, " "), r.stderr, tc.want)
	}
}

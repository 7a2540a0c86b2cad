package e2e

import (
	"net/http"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/a2acli/a2a/internal/testagent"
)

// TestProxyRESTFrontOnV03JSONRPC: a v1.0 REST proxy in front of a v0.3 JSON-RPC `a2a serve --echo`.
func TestProxyRESTFrontOnV03JSONRPC(t *testing.T) {
	t.Parallel()
	up := startServe(t, "--echo", "--transport", "jsonrpc", "--protocol", "0.3", "--quiet")
	proxy := startServe(t, "--proxy", up.url)
	r := run(t, "", "discover", proxy.url, "-o", "json")
	wantCode(t, r, 0)
	wantContains(t, "proxy card", r.stdout, `"protocolBinding":"HTTP+JSON"`, proxy.url)
	if strings.Contains(r.stdout, up.url) {
		t.Fatalf("proxy card advertises the upstream:\n%s", r.stdout)
	}
	// Our client, over the proxy's REST; ListTasks does not exist in v0.3 JSON-RPC upstream.
	task := sendTask(t, run(t, "", "send", proxy.url, "via proxy", "-o", "json"))
	if task.Status.State != a2a.TaskStateCompleted || task.Artifacts[0].Parts[0].Text() != "via proxy" {
		t.Fatalf("send through the proxy: %+v", task)
	}
	r = run(t, "", "send", proxy.url, "streamed", "--stream", "-o", "json")
	wantCode(t, r, 0)
	events, _ := jsonLines(t, r.stdout)
	if lastState(t, events) != a2a.TaskStateCompleted {
		t.Fatalf("stream through the proxy\n%s", r)
	}
	r = run(t, "", "get", "task", proxy.url, string(task.ID))
	wantCode(t, r, 0)
	wantContains(t, "get task", r.stdout, "State: completed")
	r = run(t, "", "cancel", proxy.url, string(task.ID), "-o", "json")
	wantCode(t, r, 1)
	if doc := errorDoc(t, r); doc["code"] != "TaskNotCancelableError" {
		t.Fatalf("cancel through the proxy: code %v, want TaskNotCancelableError", doc["code"])
	}
	r = run(t, "", "subscribe", proxy.url, string(task.ID), "-o", "json")
	wantCode(t, r, 0)
	events, _ = jsonLines(t, r.stdout)
	if lastState(t, events) != a2a.TaskStateCompleted {
		t.Fatalf("subscribe through the proxy\n%s", r)
	}
	// An independent client.
	echoWithLibrary(t, proxy.url, a2a.TransportProtocolHTTPJSON, false)
	if n := strings.Count(up.Log(), "\n"); n != 1 {
		t.Fatalf("upstream is --quiet but logged:\n%s", up.Log())
	}
}

// TestProxyReferenceAgent forwards every verb to an in-process reference agent, live cancel included.
func TestProxyReferenceAgent(t *testing.T) {
	t.Parallel()
	ag := testagent.Start(t, testagent.Options{Behavior: testagent.Slow, Delay: time.Minute})
	proxy := startServe(t, "--proxy", ag.URL, "--transport", "jsonrpc,grpc")
	c := startClient(t, "send", proxy.url, "slow", "--stream", "-o", "json")
	id := c.event(t, 20*time.Second).TaskInfo().TaskID
	r := run(t, "", "list", "tasks", proxy.url, "--status", "working", "-o", "json", "--transport", "grpc")
	wantCode(t, r, 0)
	wantContains(t, "list tasks", r.stdout, string(id))
	sub := startClient(t, "subscribe", proxy.url, string(id), "-o", "json")
	if got := sub.event(t, 20*time.Second).TaskInfo().TaskID; got != id {
		t.Fatalf("subscribe shows task %s, want %s", got, id)
	}
	r = run(t, "", "cancel", proxy.url, string(id))
	wantCode(t, r, 0)
	wantContains(t, "cancel", r.stdout, "State: canceled")
	for _, cl := range []*client{c, sub} {
		if st, code := finalState(t, cl, 10*time.Second); st != a2a.TaskStateCanceled || code != 0 {
			t.Fatalf("stream ended %s, exit %d; want canceled, 0", st, code)
		}
	}
	r = run(t, "", "get", "task", proxy.url, string(id), "--transport", "jsonrpc")
	wantCode(t, r, 0)
	wantContains(t, "get task", r.stdout, "State: canceled")
	// a2a-go's handler refuses to subscribe to an ended task; the client shows its final state instead.
	r = run(t, "", "subscribe", proxy.url, string(id), "-o", "json")
	wantCode(t, r, 0)
	if events, _ := jsonLines(t, r.stdout); lastState(t, events) != a2a.TaskStateCanceled {
		t.Fatalf("subscribe to the canceled task\n%s", r)
	}
	methods := map[string]bool{}
	for _, call := range ag.Calls() {
		methods[call.Method] = true
	}
	for _, m := range []string{"SendStreamingMessage", "ListTasks", "SubscribeToTask", "CancelTask", "GetTask"} {
		if !methods[m] {
			t.Errorf("upstream never saw %s (saw %v)", m, methods)
		}
	}
}

// TestProxyUpstreamDownAtStart: the proxy starts without its upstream, fails calls clearly, then recovers.
func TestProxyUpstreamDownAtStart(t *testing.T) {
	t.Parallel()
	port := freePort(t)
	proxy := startServe(t, "--proxy", "http://127.0.0.1:"+strconv.Itoa(port), "--quiet")
	start := time.Now()
	r := run(t, "", "send", proxy.url, "anyone?", "-o", "json")
	wantCode(t, r, 1)
	if doc := errorDoc(t, r); !strings.Contains(doc["message"].(string), "upstream") {
		t.Fatalf("error %v does not name the upstream", doc)
	}
	if d := time.Since(start); d > 15*time.Second {
		t.Fatalf("the failing call took %s", d)
	}
	startServe(t, "--echo", "--port", strconv.Itoa(port), "--quiet")
	r = run(t, "", "send", proxy.url, "now?")
	wantCode(t, r, 0)
	wantContains(t, "send", r.stdout, "State: completed", "now?")
}

// TestProxyUpstreamDiesMidStream: the client's stream ends within seconds when the upstream is killed.
func TestProxyUpstreamDiesMidStream(t *testing.T) {
	t.Parallel()
	up := startServe(t, "--exec", sleeper, "--chunk=\n", "--quiet")
	proxy := startServe(t, "--proxy", up.url, "--quiet")
	c, _, pids := streamPids(t, proxy.url)
	up.cmd.Process.Kill()
	waitExit(t, up, 5*time.Second)
	syscall.Kill(-pids[0], syscall.SIGKILL) // the upstream could not clean up after itself
	rest, code := c.wait(t, 15*time.Second)
	events, errDoc := jsonLines(t, strings.Join(rest, "\n"))
	switch {
	case errDoc != nil && code == 1:
	case errDoc == nil && code == 0 && len(events) > 0:
		if st := lastState(t, events); !st.Terminal() {
			t.Fatalf("stream ended at %s, want a final state", st)
		}
	default:
		t.Fatalf("stream ended with exit %d, lines %q; want an error or a final status", code, rest)
	}
}

// TestProxyCredentials: --auth is injected, otherwise the caller's Authorization passes through; --svc-param
// reaches the upstream; the traffic log has one line per call and never the credential.
func TestProxyCredentials(t *testing.T) {
	t.Parallel()
	ag := testagent.Start(t, testagent.Options{RequireAuth: "Bearer right"})
	lastAuth := func() string {
		calls := ag.Calls()
		if len(calls) == 0 {
			return ""
		}
		return http.Header(calls[len(calls)-1].Params).Get("Authorization")
	}

	injecting := startServe(t, "--proxy", ag.URL, "--auth", "Bearer right", "--svc-param", "X-Trace=1")
	for _, args := range [][]string{{}, {"--auth", "Bearer caller"}} {
		r := run(t, "", append([]string{"send", injecting.url, "x", "--blocking"}, args...)...)
		wantCode(t, r, 0)
		if got := lastAuth(); got != "Bearer right" {
			t.Fatalf("caller %v: upstream saw Authorization %q, want the injected one", args, got)
		}
		calls := ag.Calls()
		if got := http.Header(calls[len(calls)-1].Params).Get("X-Trace"); got != "1" {
			t.Fatalf("upstream saw X-Trace %q, want 1", got)
		}
	}
	// A call's line is written once its answer went out: it may trail the client's exit.
	eventually(t, 10*time.Second, "a log line per call", func() bool { return strings.Count(injecting.Log(), "SendMessage ") >= 2 })
	log := injecting.Log()
	if n := strings.Count(log, "SendMessage "); n != 2 || strings.Count(log, "\n") != 3 {
		t.Fatalf("want 'listening on' and one line per call (2), got:\n%s", log)
	}

	passing := startServe(t, "-v", "--proxy", ag.URL)
	r := run(t, "", "send", passing.url, "x", "--auth", "Bearer right")
	wantCode(t, r, 0)
	if got := lastAuth(); got != "Bearer right" {
		t.Fatalf("upstream saw Authorization %q, want the caller's", got)
	}
	r = run(t, "", "send", passing.url, "x", "-o", "json")
	if r.code != 1 && r.code != 4 {
		t.Fatalf("send without credentials through the proxy: exit %d, want an auth failure\n%s", r.code, r)
	}
	for _, l := range []string{injecting.Log(), passing.Log()} {
		if strings.Contains(l, "right") || strings.Contains(l, "caller") {
			t.Fatalf("the proxy log shows a credential:\n%s", l)
		}
	}
}

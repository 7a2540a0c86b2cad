package e2e

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// TestPushLoopbackOffLoopback: a serve reachable from other machines (--host 0.0.0.0 --token)
// refuses webhooks to this machine (127.0.0.1, localhost, 0.0.0.0) even with --push-allow '*', so a token holder
// cannot reach the host's own admin endpoint; naming a loopback host in --push-allow lets them through. Before the
// fix the admin endpoint got the POST, with the caller's path, query and Authorization.
func TestPushLoopbackOffLoopback(t *testing.T) {
	t.Parallel()
	var hits atomic.Int32
	admin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits.Add(1) }))
	t.Cleanup(admin.Close)
	port := admin.URL[strings.LastIndex(admin.URL, ":")+1:]
	const token = "push-t0ken"
	auth := []string{"--auth", "Bearer " + token}

	srv := startServe(t, "--echo", "--host", "0.0.0.0", "--token", token, "--push-allow", "*")
	u := strings.Replace(srv.url, "0.0.0.0", "127.0.0.1", 1)
	id := string(sendTask(t, run(t, "", append([]string{"send", u, "-o", "json", "x"}, auth...)...)).ID)
	for _, hook := range []string{
		"http://127.0.0.1:" + port + "/admin/delete-all?confirm=yes",
		"http://localhost:" + port + "/admin",
		"http://0.0.0.0:" + port + "/admin",
		"http://[::1]:" + port + "/admin",
	} {
		r := run(t, "", append([]string{"create", "push-config", u, id, "--webhook", hook, "--auth-scheme", "Bearer", "--credentials", "x"}, auth...)...)
		wantCode(t, r, 1)
		wantContains(t, "create "+hook, r.stderr, "is this machine", "--push-allow ")
		s := run(t, "", append([]string{"send", u, "--push-url", hook, "y"}, auth...)...)
		wantCode(t, s, 1)
		wantContains(t, "send --push-url "+hook, s.stderr, "is this machine")
	}
	if n := hits.Load(); n != 0 {
		t.Fatalf("the host's own admin endpoint got %d requests", n)
	}

	named := startServe(t, "--echo", "--host", "0.0.0.0", "--token", token, "--push-allow", "127.0.0.1")
	u = strings.Replace(named.url, "0.0.0.0", "127.0.0.1", 1)
	wantCode(t, run(t, "", append([]string{"send", u, "--push-url", "http://127.0.0.1:" + port + "/hook", "z"}, auth...)...), 0)
	eventually(t, 30*time.Second, "a notification to the named loopback host", func() bool { return hits.Load() > 0 })
}

// TestPushLoopbackBehindPublicURL: a serve listening on loopback but published to other machines (a --public-url or
// an --allow-host naming another host: a reverse proxy or a tunnel on this machine) is reachable from them too, so
// loopback webhooks need a loopback host named in --push-allow, as off loopback. Before, a caller through the proxy
// reached the host's own admin endpoint. A --public-url on loopback (the production guide's replicas) changes
// nothing. The calls are written by hand (the card points at the public URL, which a client would follow).
func TestPushLoopbackBehindPublicURL(t *testing.T) {
	t.Parallel()
	var hits atomic.Int32
	admin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits.Add(1) }))
	t.Cleanup(admin.Close)
	v1 := map[string]string{"A2A-Version": "1.0"}
	send := func(s *server, hook string) (int, string) {
		body := fmt.Sprintf(`{"message":{"messageId":"m-%d","role":"ROLE_USER","parts":[{"text":"x"}]},`+
			`"configuration":{"taskPushNotificationConfig":{"url":%q}}}`, time.Now().UnixNano(), hook)
		return rawHTTP(t, strings.TrimPrefix(s.url, "http://"), "POST", "/message:send", v1, body)
	}
	for _, published := range [][]string{
		{"--public-url", "https://agent.example.test"},
		{"--allow-host", "devbox.lan"},
	} {
		srv := startServe(t, append([]string{"--echo", "--push-allow", "*"}, published...)...)
		for _, hook := range []string{admin.URL + "/admin/delete-all?confirm=yes", strings.Replace(admin.URL, "127.0.0.1", "localhost", 1) + "/admin"} {
			code, body := send(srv, hook)
			if code == http.StatusOK || !strings.Contains(body, "is this machine") || !strings.Contains(body, "--push-allow") {
				t.Errorf("%s: a send with a webhook to %s: %d %.300s, want refused naming --push-allow", strings.Join(published, " "), hook, code, body)
			}
		}
	}
	if n := hits.Load(); n != 0 {
		t.Fatalf("the host's own admin endpoint got %d requests", n)
	}
	for _, args := range [][]string{
		{"--public-url", "https://agent.example.test", "--push-allow", "127.0.0.1"},
		{"--public-url", "http://127.0.0.1:8080"},
	} {
		srv := startServe(t, append([]string{"--echo"}, args...)...)
		before := hits.Load()
		if code, body := send(srv, admin.URL+"/hook"); code != http.StatusOK {
			t.Fatalf("%s: a send with a loopback webhook: %d %.300s", strings.Join(args, " "), code, body)
		}
		eventually(t, 30*time.Second, strings.Join(args, " ")+": a notification to the loopback webhook", func() bool {
			return hits.Load() > before
		})
	}
}

// TestPushConfigsCapped: a task takes at most 10 push notification configs; the 11th is refused
// with InvalidParams naming the cap, and replacing one (same ID) still works. Before the fix 1000 configs turned one
// message into 2000 POSTs.
func TestPushConfigsCapped(t *testing.T) {
	t.Parallel()
	var hits atomic.Int32
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits.Add(1) }))
	t.Cleanup(hook.Close)
	srv := startServe(t, "--echo")
	id := string(sendTask(t, run(t, "", "send", srv.url, "-o", "json", "--immediate", "x")).ID)
	for i := range 10 {
		wantCode(t, run(t, "", "create", "push-config", srv.url, id, "--webhook", hook.URL, "--id", fmt.Sprintf("c%d", i)), 0)
	}
	r := run(t, "", "create", "push-config", srv.url, id, "--webhook", hook.URL, "--id", "c10")
	wantCode(t, r, 1)
	wantContains(t, "the 11th config", r.stderr, "10 push notification configs", "delete one first")
	wantCode(t, run(t, "", "create", "push-config", srv.url, id, "--webhook", hook.URL+"/again", "--id", "c3"), 0)
	l := run(t, "", "list", "push-configs", srv.url, id, "-o", "json")
	wantCode(t, l, 0)
	if n := strings.Count(l.stdout, `"url"`); n != 10 {
		t.Errorf("the task has %d configs, want 10:\n%s", n, l.stdout)
	}
}

// TestPushMetadataRefusedThroughStar: serve --push-allow '*' sends no push notification to a link-local or cloud
// metadata address (169.254.169.254, fd00:ec2::254, …): the config is refused with a hint to name it, while a real
// webhook on this machine still gets its notification.
func TestPushMetadataRefusedThroughStar(t *testing.T) {
	t.Parallel()
	var hits atomic.Int32
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits.Add(1) }))
	t.Cleanup(hook.Close)
	srv := startServe(t, "--echo", "--push-allow", "*")
	id := string(sendTask(t, run(t, "", "send", srv.url, "-o", "json", "--immediate", "x")).ID)
	for _, h := range []string{"http://169.254.169.254/latest/meta-data/iam/", "http://[fd00:ec2::254]/latest",
		"http://[::ffff:a9fe:a9fe]/latest"} {
		r := run(t, "", "create", "push-config", srv.url, id, "--webhook", h)
		wantCode(t, r, 1)
		wantContains(t, "create "+h, r.stderr, "metadata address", "--push-allow ")
		s := run(t, "", "send", srv.url, "--push-url", h, "y")
		wantCode(t, s, 1)
		wantContains(t, "send --push-url "+h, s.stderr, "metadata address")
	}
	wantCode(t, run(t, "", "send", srv.url, "--push-url", hook.URL+"/hook", "z"), 0)
	eventually(t, 30*time.Second, "a notification to the real webhook", func() bool { return hits.Load() > 0 })
}

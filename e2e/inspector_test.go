package e2e

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/cookiejar"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/a2acli/a2a/internal/testagent"
)

// Credentials of the inspector tests: none may ever show in the API or the page.
const (
	inspUpstreamSecret = "up-secret-7f3a9c"
	inspServeToken     = "serve-token-91bcd2"
	inspCallerKey      = "caller-key-55e1"
)

func noSecrets(t testing.TB, what, body string) {
	t.Helper()
	for _, s := range []string{inspUpstreamSecret, inspServeToken, inspCallerKey} {
		if strings.Contains(body, s) {
			t.Fatalf("%s shows the credential %q:\n%s", what, s, body)
		}
	}
}

// inspectedProxy is `serve --proxy --ui --token` in front of a reference agent that wants --auth, serving REST
// (the decoding path: the upstream speaks JSON-RPC) and JSON-RPC (the byte-for-byte path).
func inspectedProxy(t testing.TB) (px *server, upstream *testagent.Agent) {
	t.Helper()
	ag := testagent.Start(t, testagent.Options{RequireAuth: "Bearer " + inspUpstreamSecret})
	px = startServe(t, "--proxy", ag.URL, "--auth", "Bearer "+inspUpstreamSecret, "--transport", "rest,jsonrpc",
		"--ui", "--token", inspServeToken)
	return px, ag
}

// TestInspectorAPI drives a proxied session and reads it back through /_a2a/api/: the live event stream, the
// calls list and its filters, a call in full (its a2a and curl commands run for real), a task's timeline, the
// latency stats, and the export, which `serve --replay` serves and the import loads back.
func TestInspectorAPI(t *testing.T) {
	t.Parallel()
	px, _ := inspectedProxy(t)
	api := px.url + "/_a2a/api/"
	live := followEvents(t, api+"events", inspServeToken)
	auth := []string{"--auth", "Bearer " + inspServeToken}

	r := run(t, "", append([]string{"send", px.url, "hello inspector", "--blocking", "--transport", "jsonrpc", "-o", "json",
		"--svc-param", "X-Api-Key=" + inspCallerKey}, auth...)...)
	wantCode(t, r, 0)
	task1 := sendTask(t, r)
	waitEvent(t, live, 10*time.Second, "call", `"method":"SendMessage"`, string(task1.ID), `"status":"ok"`)

	r = run(t, "", append([]string{"send", px.url, "streamed inspector", "--stream", "--transport", "rest", "-o", "json"}, auth...)...)
	wantCode(t, r, 0)
	evs, _ := jsonLines(t, r.stdout)
	task2 := string(evs[len(evs)-1].TaskInfo().TaskID)
	waitEvent(t, live, 10*time.Second, "call", `"method":"SendStreamingMessage"`, task2, `"state":"completed"`)

	r = run(t, "", append([]string{"get", "task", px.url, "no-such-task"}, auth...)...)
	wantCode(t, r, 1)

	var all inspList
	noSecrets(t, "calls list", apiJSON(t, api+"calls", inspServeToken, &all))
	byTask := map[string]inspCall{}
	for _, c := range all.Calls {
		byTask[c.Task] = c
	}
	c1, c2 := byTask[string(task1.ID)], byTask[task2]
	if c1.Method != "SendMessage" || c1.Binding != string(a2a.TransportProtocolJSONRPC) || c1.State != "completed" || c1.Status != "ok" {
		t.Errorf("the JSON-RPC send (byte path) is listed as %+v", c1)
	}
	if c2.Method != "SendStreamingMessage" || c2.Binding != string(a2a.TransportProtocolHTTPJSON) || c2.State != "completed" ||
		c2.Events < 3 || c2.Context == "" {
		t.Errorf("the REST stream (decoding path) is listed as %+v", c2)
	}

	// Filters.
	var sel inspList
	apiJSON(t, api+"calls?method=SendStreamingMessage", inspServeToken, &sel)
	if len(sel.Calls) != 1 || sel.Calls[0].Task != task2 {
		t.Errorf("?method=SendStreamingMessage selected %+v", sel.Calls)
	}
	eventually(t, 10*time.Second, "?errors=1 selects the failed GetTask", func() bool { // once it has ended
		apiJSON(t, api+"calls?errors=1", inspServeToken, &sel)
		found := false
		for _, c := range sel.Calls {
			found = found || (c.Method == "GetTask" && strings.Contains(c.Error, "not found"))
			if c.Status != "error" {
				t.Fatalf("?errors=1 selected %+v", c)
			}
		}
		return found
	})
	apiJSON(t, api+"calls?context="+c2.Context, inspServeToken, &sel)
	if len(sel.Calls) != 1 || sel.Calls[0].ID != c2.ID {
		t.Errorf("?context= selected %+v", sel.Calls)
	}
	apiJSON(t, api+"calls?q=no-such", inspServeToken, &sel)
	if len(sel.Calls) != 1 || sel.Calls[0].Method != "GetTask" {
		t.Errorf("?q=no-such selected %+v", sel.Calls)
	}

	// One call in full: headers redacted as the log redacts them, and commands that work pasted.
	var d struct {
		Headers  map[string]string `json:"headers"`
		Request  any               `json:"request"`
		Events   []map[string]any  `json:"events"`
		Commands struct{ A2A, Curl string }
	}
	body := apiJSON(t, fmt.Sprintf("%scalls/%d", api, c1.ID), inspServeToken, &d)
	noSecrets(t, "call detail", body)
	wantContains(t, "call detail", body, "hello inspector", `"result"`)
	if d.Headers["X-Api-Key"] != "***" || len(d.Events) != 1 {
		t.Errorf("call detail: headers %v, %d events", d.Headers, len(d.Events))
	}
	wantContains(t, "a2a command", d.Commands.A2A, "a2a send", "'hello inspector'", `$A2A_TOKEN`)
	wantContains(t, "curl command", d.Commands.Curl, "curl ", `"method":"SendMessage"`, `$A2A_TOKEN`)
	for _, cmd := range []string{d.Commands.A2A, d.Commands.Curl} {
		sh := exec.Command("sh", "-c", strings.Replace(cmd, "a2a send", bin+" send -o json", 1))
		sh.Env = cmdEnv("A2A_TOKEN=" + inspServeToken)
		out, err := sh.CombinedOutput()
		if err != nil || !strings.Contains(string(out), "echo: hello inspector") {
			t.Errorf("the call's command %s: %v\n%s", cmd, err, out)
		}
	}

	// The task's timeline.
	var tl struct {
		Context string `json:"context"`
		Calls   []int64
		Items   []struct{ Kind, State, Text string }
	}
	noSecrets(t, "timeline", apiJSON(t, api+"tasks/"+task2, inspServeToken, &tl))
	kinds := map[string]bool{}
	for _, it := range tl.Items {
		kinds[it.Kind+"/"+it.State] = true
	}
	for _, k := range []string{"call/", "message/", "status/completed", "artifact/"} {
		if !kinds[k] {
			t.Errorf("timeline of %s lacks %s: %+v", task2, k, tl.Items)
		}
	}
	if tl.Context != c2.Context || len(tl.Calls) != 1 {
		t.Errorf("timeline: context %q calls %v", tl.Context, tl.Calls)
	}
	code, _ := apiCall(t, http.MethodGet, api+"tasks/no-such-task-id", inspServeToken, nil)
	if code != http.StatusNotFound {
		t.Errorf("unknown task: %d, want 404", code)
	}

	// Latency.
	var st struct {
		Latency map[string]struct{ Total int }
		Readers int
	}
	apiJSON(t, api+"stats", inspServeToken, &st)
	if st.Latency["SendMessage"].Total < 2 || st.Latency["SendStreamingMessage"].Total != 1 || st.Readers != 1 {
		t.Errorf("stats: %+v", st)
	}

	// Export: the recording --replay serves; import: the page's "load".
	code, rec := apiCall(t, http.MethodGet, api+"export", inspServeToken, nil)
	if code != http.StatusOK {
		t.Fatalf("export: %d %s", code, rec)
	}
	noSecrets(t, "export", rec)
	file := filepath.Join(t.TempDir(), "session.jsonl")
	if err := os.WriteFile(file, []byte(rec), 0o600); err != nil {
		t.Fatal(err)
	}
	rp := startServe(t, "--replay", file)
	r = run(t, "", "send", rp.url, "anything", "-o", "json")
	wantCode(t, r, 0)
	wantContains(t, "replayed export", r.stdout, "echo: hello inspector")

	var sends, streams inspList
	apiJSON(t, api+"calls?method=SendMessage", inspServeToken, &sends)
	apiJSON(t, api+"calls?method=SendStreamingMessage", inspServeToken, &streams)
	sends.Calls = append(sends.Calls, streams.Calls...)
	code, body = apiCall(t, http.MethodPost, api+"import", inspServeToken, strings.NewReader(rec))
	if code != http.StatusOK || body != fmt.Sprintf("{\"calls\":%d}\n", len(sends.Calls)) {
		t.Fatalf("import: %d %s", code, body)
	}
	apiJSON(t, api+"calls?q=file", inspServeToken, &sel)
	loaded := 0
	for _, c := range sel.Calls {
		if c.Source == "file" {
			loaded++
		}
	}
	if loaded != len(sends.Calls) {
		t.Errorf("after import, %d calls from the file: %+v", loaded, sel.Calls)
	}
	code, body = apiCall(t, http.MethodPost, api+"import", inspServeToken, strings.NewReader(`{"nope":1}`))
	if code != http.StatusBadRequest || !strings.Contains(body, "load recording: line 1") {
		t.Errorf("import of a non-recording: %d %s", code, body)
	}
}

// TestInspectorBindings: on the decoding path (serve --echo) every binding is observed and named, and --quiet
// silences the log, not the inspector.
func TestInspectorBindings(t *testing.T) {
	t.Parallel()
	srv := startServe(t, "--echo", "--ui", "--quiet", "--transport", "rest,jsonrpc,grpc")
	for _, tr := range []string{"rest", "jsonrpc", "grpc"} {
		wantCode(t, run(t, "", "send", srv.url, "via "+tr, "--blocking", "--transport", tr), 0)
	}
	// A call ends (and is recorded as ended) just after its answer is flushed to the caller.
	want := "SendMessage/HTTP+JSON/completed SendMessage/JSONRPC/completed SendMessage/GRPC/completed"
	var got []string
	eventually(t, 10*time.Second, "the three calls listed as ended", func() bool {
		var list inspList
		apiJSON(t, srv.url+"/_a2a/api/calls", "", &list)
		got = got[:0]
		for _, c := range list.Calls {
			got = append(got, c.Method+"/"+c.Binding+"/"+c.State)
		}
		return strings.Join(got, " ") == want
	})
	if strings.Contains(srv.Log(), "SendMessage") {
		t.Errorf("--quiet logged calls:\n%s", srv.Log())
	}
}

// TestInspectorBeyondLoopback: the page shows the traffic, so like --exec and --proxy, --ui beyond loopback needs
// a token (or --no-token).
func TestInspectorBeyondLoopback(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "serve", "--echo", "--ui", "--host", "0.0.0.0", "--port", "0")
	cmd.Env = cmdEnv()
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 2 || !strings.Contains(string(out), "give it a --token") {
		t.Fatalf("serve --echo --ui --host 0.0.0.0: %v\n%s", err, out)
	}
}

// TestInspectorGuard: /_a2a/ is behind serve's guard (token, Host, Origin), and the one-time link trades its code
// for a session cookie that scripts cannot read and that opens only the inspector.
func TestInspectorGuard(t *testing.T) {
	t.Parallel()
	px, _ := inspectedProxy(t)
	link := inspectorLink(t, px)
	if !strings.HasPrefix(link, px.url+"/_a2a/login?code=") {
		t.Fatalf("inspector link %q", link)
	}
	noSecrets(t, "serve's log", px.Log())
	for _, p := range []string{"/_a2a/", "/_a2a/api/calls", "/_a2a/api/events", "/_a2a/login?code=wrong"} {
		if code, body := apiCall(t, http.MethodGet, px.url+p, "", nil); code != http.StatusUnauthorized {
			t.Errorf("GET %s without the token: %d %s", p, code, body)
		}
	}
	req, _ := http.NewRequest(http.MethodGet, px.url+"/_a2a/api/calls", nil)
	req.Header.Set("Authorization", "Bearer "+inspServeToken)
	req.Header.Set("Origin", "http://evil.example")
	if res, err := http.DefaultClient.Do(req); err != nil || res.StatusCode != http.StatusForbidden {
		t.Errorf("cross-origin API call: %v %v", res, err)
	}
	req.Header.Del("Origin")
	req.Host = "evil.example"
	if res, err := http.DefaultClient.Do(req); err != nil || res.StatusCode != http.StatusMisdirectedRequest {
		t.Errorf("rebound Host: %v %v", res, err)
	}

	jar, _ := cookiejar.New(nil)
	noFollow := &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err := noFollow.Get(link)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	ck := res.Header.Get("Set-Cookie")
	if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/_a2a/" ||
		!strings.Contains(ck, "HttpOnly") || !strings.Contains(ck, "SameSite=Strict") || !strings.Contains(ck, "Path=/_a2a/") {
		t.Fatalf("one-time link: %d Location %q Set-Cookie %q", res.StatusCode, res.Header.Get("Location"), ck)
	}
	for _, p := range []string{"/_a2a/", "/_a2a/app.js", "/_a2a/api/calls"} {
		res, err := noFollow.Get(px.url + p)
		if err != nil || res.StatusCode != http.StatusOK {
			t.Errorf("GET %s with the session cookie: %v %v", p, res, err)
		}
		if err == nil {
			if csp := res.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "script-src 'self'") {
				t.Errorf("GET %s: Content-Security-Policy %q", p, csp)
			}
			res.Body.Close()
		}
	}
	if res, err := noFollow.Get(link); err != nil || res.StatusCode != http.StatusUnauthorized {
		t.Errorf("the link used a second time: %v %v", res, err)
	}
	// The cookie opens the inspector, not the agent.
	pageReq, _ := http.NewRequest(http.MethodGet, px.url+"/_a2a/", nil)
	cookies := jar.Cookies(pageReq.URL)
	if len(cookies) != 1 {
		t.Fatalf("cookies for the inspector: %v", cookies)
	}
	a2aReq, _ := http.NewRequest(http.MethodGet, px.url+"/tasks", nil)
	a2aReq.AddCookie(cookies[0])
	if res, err := http.DefaultClient.Do(a2aReq); err != nil || res.StatusCode != http.StatusUnauthorized {
		t.Errorf("an A2A call with the inspector's cookie: %v %v", res, err)
	}
}

// TestInspectorTLS: with --tls-cert/--tls-key the page, its link and its API are served over TLS on the same port,
// the session cookie is Secure, and the commands the page offers name the https:// URL.
func TestInspectorTLS(t *testing.T) {
	t.Parallel()
	srv, ca := startTLSServe(t, "--ui", "--token", inspServeToken)
	link := inspectorLink(t, srv)
	if !strings.HasPrefix(link, srv.url+"/_a2a/login?code=") || !strings.HasPrefix(link, "https://") {
		t.Fatalf("inspector link %q on %s", link, srv.url)
	}
	pool := x509.NewCertPool()
	pool.AddCert(ca.cert)
	jar, _ := cookiejar.New(nil)
	hc := &http.Client{Jar: jar, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	defer hc.CloseIdleConnections()
	res, err := hc.Get(link)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if ck := res.Header.Get("Set-Cookie"); res.StatusCode != http.StatusSeeOther || !strings.Contains(ck, "Secure") {
		t.Fatalf("one-time link over TLS: %d Set-Cookie %q", res.StatusCode, ck)
	}
	wantCode(t, run(t, "", "send", srv.url, "over tls", "--blocking", "--cacert", ca.pem, "--auth", "Bearer "+inspServeToken), 0)
	var list inspList
	eventually(t, 10*time.Second, "the call listed", func() bool {
		res, err := hc.Get(srv.url + "/_a2a/api/calls?method=SendMessage")
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		if res.StatusCode != http.StatusOK {
			t.Fatalf("API over TLS with the cookie: %d", res.StatusCode)
		}
		if err := json.NewDecoder(res.Body).Decode(&list); err != nil {
			t.Fatal(err)
		}
		return len(list.Calls) == 1 && list.Calls[0].Status == "ok"
	})
	res, err = hc.Get(fmt.Sprintf("%s/_a2a/api/calls/%d", srv.url, list.Calls[0].ID))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var d struct{ Commands struct{ A2A, Curl string } }
	if err := json.NewDecoder(res.Body).Decode(&d); err != nil {
		t.Fatal(err)
	}
	wantContains(t, "a2a command", d.Commands.A2A, "a2a send "+srv.url)
	wantContains(t, "curl command", d.Commands.Curl, srv.url+"/message:send")
}

// TestInspectorCommandTextIsNoFlag: a message whose text looks like flags ("-v --fail") comes
// back from the inspector as an a2a command that, pasted into a shell, sends that same text: the text follows "--".
// Before the fix the pasted command failed on an unknown shorthand flag.
func TestInspectorCommandTextIsNoFlag(t *testing.T) {
	t.Parallel()
	const text = "-v --fail"
	s := startServe(t, "--echo", "--ui", "--token", inspServeToken)
	api := s.url + "/_a2a/api/"
	wantCode(t, run(t, "", "send", s.url, "--blocking", "--auth", "Bearer "+inspServeToken, "--", text), 0)
	var all inspList
	eventually(t, 10*time.Second, "the SendMessage call listed", func() bool {
		apiJSON(t, api+"calls?method=SendMessage", inspServeToken, &all)
		return len(all.Calls) == 1
	})
	var d struct{ Commands struct{ A2A string } }
	apiJSON(t, fmt.Sprintf("%scalls/%d", api, all.Calls[0].ID), inspServeToken, &d)
	wantContains(t, "a2a command", d.Commands.A2A, " -- '"+text+"'")
	sh := exec.Command("sh", "-c", strings.Replace(d.Commands.A2A, "a2a send", bin+" send", 1))
	sh.Env = cmdEnv("A2A_TOKEN=" + inspServeToken)
	out, err := sh.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "Artifact: echo\n  "+text+"\n") {
		t.Errorf("the call's command %s: %v\n%s", d.Commands.A2A, err, out)
	}
}

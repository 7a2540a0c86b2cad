package e2e

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/a2acli/a2a/internal/testskip"
)

// attackPage is what a web page on another origin tries against serve: every kind of request a page can send
// (JSON fetches, which the browser preflights; "simple" text/plain and body-only fetches; form posts in all three
// encodings, the text/plain one shaped into valid JSON), and reading the answers. It reports what it got to its
// own server.
const attackPage = `<!doctype html><html><body><script>
const q = new URLSearchParams(location.search);
const msg = {messageId: 'm-web', role: 'ROLE_USER', parts: [{text: 'from the web'}]};
const restSend = JSON.stringify({message: msg});
const rpcSend = JSON.stringify({jsonrpc: '2.0', id: 1, method: 'SendMessage', params: {message: msg}});
async function attempt(name, url, init) {
  try {
    const r = await fetch(url, init);
    if (r.type === 'opaque') return {name, outcome: 'opaque'};
    return {name, outcome: 'read', status: r.status, text: await r.text()};
  } catch (e) {
    return {name, outcome: 'error', error: String(e)};
  }
}
function form(url, enctype, fields) {
  const name = 'form ' + enctype + ' ' + url;
  return new Promise(resolve => {
    const frame = document.createElement('iframe');
    frame.name = 'f' + Math.random().toString(36).slice(2);
    document.body.appendChild(frame);
    const f = document.createElement('form');
    f.method = 'POST'; f.action = url; f.enctype = enctype; f.target = frame.name;
    for (const [k, v] of Object.entries(fields)) {
      const i = document.createElement('input');
      i.type = 'hidden'; i.name = k; i.value = v;
      f.appendChild(i);
    }
    document.body.appendChild(f);
    let done = false;
    const fin = o => { if (!done) { done = true; resolve(o); } };
    frame.onload = () => {
      let text = null;
      try { text = frame.contentDocument ? frame.contentDocument.body.innerText : null; } catch (e) { text = null; }
      fin({name, outcome: 'submitted', text});
    };
    setTimeout(() => fin({name, outcome: 'timeout'}), 10000);
    f.submit();
  });
}
async function attack(target) {
  const out = [];
  for (const [path, body] of [['/message:send', restSend], ['/jsonrpc', rpcSend], ['/', rpcSend]]) {
    const u = target + path;
    out.push(await attempt('json ' + path, u, {method: 'POST', headers: {'Content-Type': 'application/json'}, body}));
    out.push(await attempt('text/plain ' + path, u, {method: 'POST', headers: {'Content-Type': 'text/plain'}, body}));
    out.push(await attempt('text/plain no-cors ' + path, u, {method: 'POST', mode: 'no-cors', headers: {'Content-Type': 'text/plain'}, body}));
    out.push(await attempt('untyped no-cors ' + path, u, {method: 'POST', mode: 'no-cors', body: new Blob([body])}));
    out.push(await form(u, 'text/plain', {[body.slice(0, -1) + ',"x":"']: '"}'}));
    out.push(await form(u, 'application/x-www-form-urlencoded', {q: body}));
    out.push(await form(u, 'multipart/form-data', {q: body}));
  }
  out.push(await attempt('GET /tasks', target + '/tasks', {}));
  return out;
}
async function simple(target) {
  const out = [];
  for (const [path, body] of [['/message:send', restSend], ['/jsonrpc', rpcSend], ['/', rpcSend]]) {
    const u = target + path;
    out.push(await attempt('text/plain ' + path, u, {method: 'POST', headers: {'Content-Type': 'text/plain'}, body}));
    out.push(await attempt('text/plain no-cors ' + path, u, {method: 'POST', mode: 'no-cors', headers: {'Content-Type': 'text/plain'}, body}));
    out.push(await attempt('untyped no-cors ' + path, u, {method: 'POST', mode: 'no-cors', body: new Blob([body])}));
    out.push(await form(u, 'text/plain', {[body.slice(0, -1) + ',"x":"']: '"}'}));
    out.push(await form(u, 'application/x-www-form-urlencoded', {q: body}));
    out.push(await form(u, 'multipart/form-data', {q: body}));
  }
  return out;
}
(async () => {
  const report = {guarded: await attack(q.get('guarded')), plain: await simple(q.get('plain'))};
  const allowed = q.get('allowed');
  report.allowed = [
    await attempt('json /message:send', allowed + '/message:send', {method: 'POST', headers: {'Content-Type': 'application/json'}, body: restSend}),
    await attempt('GET /tasks', allowed + '/tasks', {}),
  ];
  await fetch('/report', {method: 'POST', body: JSON.stringify(report)});
})();
</script></body></html>`

type pageResult struct {
	Name, Outcome, Text, Error string
	Status                     int
}

// TestServeBrowserCannotDriveServe: a real headless Chromium opens a page served on another loopback port. Against
// plain `serve --exec`, nothing the page sends runs the command and nothing it reads is an answer. Against a serve
// that allows the page's origin (--allow-origin), the same browser runs it and reads the answer: the page's
// attempts are real.
func TestServeBrowserCannotDriveServe(t *testing.T) {
	t.Parallel()
	chromium := browserPath(t)
	cmd, ran := execMarker(t)
	guarded := startServe(t, "--exec", cmd, "--transport", "rest,jsonrpc")
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	pageOrigin := "http://" + ln.Addr().String()
	cmd2, ran2 := execMarker(t)
	allowed := startServe(t, "--exec", cmd2, "--allow-origin", pageOrigin)

	// Even from an origin it allows, serve takes no "simple" request (text/plain, forms, no type): only JSON.
	cmd3, ran3 := execMarker(t)
	plain := startServe(t, "--exec", cmd3, "--transport", "rest,jsonrpc", "--allow-origin", pageOrigin)

	page := "?" + url.Values{"guarded": {guarded.url}, "allowed": {allowed.url}, "plain": {plain.url}}.Encode()
	var report struct{ Guarded, Allowed, Plain []pageResult }
	browserReport(t, chromium, ln, attackPage, page, &report, func() string { return "" })
	if len(report.Guarded) != 22 {
		t.Fatalf("the page made %d attempts, want 22: %+v", len(report.Guarded), report.Guarded)
	}
	for _, r := range report.Guarded {
		switch {
		case r.Outcome == "read":
			t.Errorf("%s: the page read an answer (status %d): %s", r.Name, r.Status, r.Text)
		case r.Outcome == "submitted" && r.Text != "":
			t.Errorf("%s: the page read the form's answer: %s", r.Name, r.Text)
		}
		t.Logf("%s: %s %s", r.Name, r.Outcome, r.Error)
	}
	if ran() {
		t.Error("a web page on another origin ran serve's --exec command")
	}
	if strings.Contains(guarded.Log(), "SendMessage") || strings.Contains(guarded.Log(), "ListTasks") {
		t.Errorf("serve handled calls from the page:\n%s", guarded.Log())
	}
	if len(report.Plain) != 18 {
		t.Fatalf("the page made %d simple requests to the serve that allows its origin, want 18: %+v", len(report.Plain), report.Plain)
	}
	for _, r := range report.Plain {
		// REST answers 415, JSON-RPC 200 with error -32005: ContentTypeNotSupportedError either way.
		if r.Outcome == "read" && !strings.Contains(r.Text, "CONTENT_TYPE_NOT_SUPPORTED") {
			t.Errorf("%s, from an allowed origin: status %d, want ContentTypeNotSupportedError: %s", r.Name, r.Status, r.Text)
		}
	}
	if ran3() {
		t.Error("a simple (non-JSON) request from an allowed origin ran serve's --exec command")
	}
	// The control: the same browser does reach an serve that allows the page's origin.
	if len(report.Allowed) != 2 || report.Allowed[0].Outcome != "read" || report.Allowed[0].Status != 200 ||
		!strings.Contains(report.Allowed[0].Text, "from the web") || report.Allowed[1].Status != 200 {
		t.Fatalf("the page could not call the serve that allows its origin: %+v", report.Allowed)
	}
	if !ran2() {
		t.Fatal("the allowed call did not run the command")
	}
}

// browserPath finds Debian's chromium; without it the test is skipped, except in CI, which must install it.
func browserPath(t *testing.T) string {
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") != "" {
		t.Fatal("chromium is not installed: .ci/run installs it (apt-get install chromium)")
	}
	testskip.Missing(t, testskip.Chromium, "chromium is not installed (apt-get install chromium)")
	return ""
}

// profileDir is a Chromium profile directory, removed when the test ends, after the browser's process group is
// gone (see runBrowser, chromedpGroup). A profile that still cannot be removed is logged, not a failure: t.TempDir's
// cleanup failed the test when a Chromium helper process still wrote there after the browser exited.
func profileDir(t *testing.T) string {
	dir, err := os.MkdirTemp("", "a2a-chromium-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := os.RemoveAll(dir); err != nil {
			t.Logf("leaving the Chromium profile %s: %v", dir, err)
		}
	})
	return dir
}

// chromedpGroup starts chromedp's browser in a process group of its own (keeping chromedp's parent-death signal)
// and kills the whole group when the test ends, helpers included, before profileDir's cleanup runs. Call it after
// profileDir.
func chromedpGroup(t *testing.T) chromedp.ExecAllocatorOption {
	var cmd *exec.Cmd
	t.Cleanup(func() {
		if cmd != nil && cmd.Process != nil {
			syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) //nolint:errcheck // the group may be gone already
		}
	})
	return chromedp.ModifyCmdFunc(func(c *exec.Cmd) {
		cmd = c
		c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	})
}

// browserReport serves html on ln as /attack, opens it with query in a headless Chromium, and decodes into report
// the JSON the page POSTs to /report, within 120 s (else the test fails with what more returns).
func browserReport(t *testing.T, chromium string, ln net.Listener, html, query string, report any, more func() string) {
	t.Helper()
	reports := make(chan []byte, 1)
	mux := http.NewServeMux()
	mux.HandleFunc("GET /attack", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		io.WriteString(w, html)
	})
	mux.HandleFunc("POST /report", func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		select {
		case reports <- b:
		default:
		}
	})
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	runBrowser(t, chromium, "http://"+ln.Addr().String()+"/attack"+query)
	select {
	case b := <-reports:
		if err := json.Unmarshal(b, report); err != nil {
			t.Fatalf("report: %v\n%s", err, b)
		}
	case <-time.After(120 * time.Second):
		t.Fatalf("the page did not report within 120s%s", more())
	}
}

// runBrowser opens page in a headless Chromium with a profile of its own, until the test ends.
func runBrowser(t *testing.T, chromium, page string) {
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
		"--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--disable-dev-shm-usage", "--user-data-dir="+profileDir(t), page)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 10 * time.Second
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		cancel()
		t.Fatalf("start chromium: %v", err)
	}
	t.Cleanup(func() {
		cancel()
		cmd.Wait()
		if t.Failed() {
			t.Logf("chromium output:\n%s", trim(out.String()))
		}
	})
}

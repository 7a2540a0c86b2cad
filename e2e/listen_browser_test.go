package e2e

import (
	"net"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"
)

// listenAttackPage is what a web page tries against `a2a listen`: a fake "working" then "completed" notification in
// every form a page can POST (no-cors text/plain and untyped bodies, a preflighted JSON fetch, a text/plain form
// shaped into JSON). It reports the outcomes to its own server once every attempt has ended.
const listenAttackPage = `<!doctype html><html><body><script>
const hook = new URLSearchParams(location.search).get('hook');
const note = s => JSON.stringify({statusUpdate: {taskId: 't-web', contextId: 'c-web', status: {state: s}}});
async function attempt(name, init) {
  try {
    const r = await fetch(hook, init);
    return {name, outcome: r.type === 'opaque' ? 'opaque' : 'read ' + r.status};
  } catch (e) {
    return {name, outcome: 'error ' + String(e)};
  }
}
function form(body) {
  return new Promise(resolve => {
    const frame = document.createElement('iframe');
    frame.name = 'f' + Math.random().toString(36).slice(2);
    document.body.appendChild(frame);
    const f = document.createElement('form');
    f.method = 'POST'; f.action = hook; f.enctype = 'text/plain'; f.target = frame.name;
    const i = document.createElement('input');
    i.type = 'hidden'; i.name = body.slice(0, -1) + ',"x":"'; i.value = '"}';
    f.appendChild(i);
    document.body.appendChild(f);
    frame.onload = () => resolve({name: 'form text/plain', outcome: 'submitted'});
    setTimeout(() => resolve({name: 'form text/plain', outcome: 'timeout'}), 10000);
    f.submit();
  });
}
(async () => {
  const out = [];
  for (const s of ['TASK_STATE_WORKING', 'TASK_STATE_COMPLETED']) {
    out.push(await attempt('text/plain no-cors ' + s, {method: 'POST', mode: 'no-cors', headers: {'Content-Type': 'text/plain'}, body: note(s)}));
    out.push(await attempt('untyped no-cors ' + s, {method: 'POST', mode: 'no-cors', body: new Blob([note(s)])}));
    out.push(await attempt('json ' + s, {method: 'POST', headers: {'Content-Type': 'application/json'}, body: note(s)}));
    out.push(await form(note(s)));
  }
  await fetch('/report', {method: 'POST', body: JSON.stringify(out)});
})();
</script></body></html>`

// TestListenBrowserCannotFakeNotifications: a real headless Chromium opens a page on another
// loopback port that POSTs fake "working" and "completed" notifications to `a2a listen --until-final` (no token) in
// every form a page can. listen prints none of them and keeps running; it says on stderr that it refused them.
// Raw requests show the other rules (a rebinding Host, a text/plain body without an Origin), and a real
// notification still ends it with exit 0. Before the fix the page's no-cors POSTs printed both and ended listen
// with exit 0.
func TestListenBrowserCannotFakeNotifications(t *testing.T) {
	t.Parallel()
	chromium := browserPath(t)
	l, hook := startListen(t, "--until-final", "-o", "json")

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var report []struct{ Name, Outcome string }
	browserReport(t, chromium, ln, listenAttackPage, "?"+url.Values{"hook": {hook}}.Encode(), &report,
		func() string { return "; listen's stderr:\n" + l.Stderr() })
	if len(report) != 8 {
		t.Fatalf("the page made %d attempts, want 8: %+v", len(report), report)
	}
	for _, r := range report {
		t.Logf("%s: %s", r.Name, r.Outcome)
	}
	select {
	case line := <-l.lines:
		t.Fatalf("listen printed a notification from the page: %s", line)
	case <-l.done:
		t.Fatalf("listen exited (code %d) on the page's notifications; stderr:\n%s", l.code, l.Stderr())
	default:
	}
	wantContains(t, "listen's stderr", l.Stderr(), " with an Origin: push notifications come from agents, not web pages (403)")

	hp := strings.TrimSuffix(strings.TrimPrefix(hook, "http://"), "/")
	done := `{"statusUpdate":{"taskId":"t-1","contextId":"c-1","status":{"state":"TASK_STATE_COMPLETED"}}}`
	if code, _ := rawHTTP(t, hp, "POST", "/", map[string]string{"Host": "rebind.evil.example:80"}, done); code != http.StatusMisdirectedRequest {
		t.Errorf("a rebinding Host: %d, want 421", code)
	}
	if code, _ := rawHTTP(t, hp, "POST", "/", map[string]string{"Content-Type": "text/plain"}, done); code != http.StatusUnsupportedMediaType {
		t.Errorf("a text/plain body: %d, want 415", code)
	}
	if got := post(t, hook, "", done); got != http.StatusOK {
		t.Fatalf("a real notification: %d, want 200; stderr:\n%s", got, l.Stderr())
	}
	lines, code := l.wait(t, 30*time.Second)
	if code != 0 || len(lines) != 1 || !strings.Contains(lines[0], "t-1") {
		t.Fatalf("listen: exit %d, lines %q; want exit 0 after the one real notification", code, lines)
	}
}

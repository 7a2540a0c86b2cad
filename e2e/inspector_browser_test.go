package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// TestInspectorBrowser opens the inspector page of `serve --proxy --ui --token` in a real headless Chromium, through
// the one-time link serve prints, in front of a replayed coding-agent session (the development-tool extension:
// tool calls and a permission prompt). Calls of the session appear live; a call and the task's timeline open; a
// burst of calls does not stall the page (the list draws only the rows in view); and no credential (the
// upstream's --auth, serve's token, the link's code, a caller's API key) is anywhere in the DOM. Screenshots of
// each view go to a temporary directory, and to $A2A_SCREENSHOTS when set (the README's are made so).
func TestInspectorBrowser(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a browser")
	}
	t.Parallel()
	chromium := browserPath(t)
	rp := replayAgent(t, "gemini-approve-shell")
	px := startServe(t, "--proxy", rp.url, "--auth", "Bearer "+inspUpstreamSecret, "--ui", "--token", inspServeToken)
	link := inspectorLink(t, px)
	code := link[strings.Index(link, "code=")+len("code="):]

	shots := []string{t.TempDir()}
	if dir := os.Getenv("A2A_SCREENSHOTS"); dir != "" {
		shots = append(shots, dir)
	}
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(chromium), chromedp.Headless, chromedp.NoSandbox, chromedp.NoFirstRun,
		chromedp.Flag("disable-gpu", true), chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true), chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true), chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.Flag("disable-breakpad", true), chromedp.UserDataDir(profileDir(t)), chromedpGroup(t), chromedp.WindowSize(1440, 900),
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancelAlloc()
	bctx, cancelBrowser := chromedp.NewContext(actx)
	defer cancelBrowser()
	ctx, cancel := context.WithTimeout(bctx, 3*time.Minute)
	defer cancel()

	step := func(what string, actions ...chromedp.Action) {
		t.Helper()
		if err := chromedp.Run(ctx, actions...); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
	waitJS := func(what, expr string) {
		t.Helper()
		var ok bool
		if err := chromedp.Run(ctx, chromedp.Poll(expr, &ok, chromedp.WithPollingTimeout(60*time.Second))); err != nil {
			var text string
			_ = chromedp.Run(ctx, chromedp.Evaluate(`document.body.innerText`, &text)) // for the message only
			t.Fatalf("%s: %v\nthe page shows:\n%s\nserve's log:\n%s", what, err, text, px.Log())
		}
	}
	checkDOM := func(view string) {
		t.Helper()
		var html string
		step("read the DOM of "+view, chromedp.OuterHTML("html", &html, chromedp.ByQuery))
		noSecrets(t, "the page's DOM ("+view+")", html)
		if strings.Contains(html, code) {
			t.Fatalf("the page's DOM (%s) shows the link's code", view)
		}
	}
	shoot := func(name string) {
		t.Helper()
		var png []byte
		step("screenshot "+name, chromedp.CaptureScreenshot(&png))
		for _, dir := range shots {
			if err := os.WriteFile(filepath.Join(dir, name+".png"), png, 0o644); err != nil {
				t.Fatalf("save screenshot: %v", err)
			}
		}
	}

	step("open the one-time link", chromedp.Navigate(link))
	waitJS("the page goes live", `document.getElementById('live').textContent === 'live'`)
	var where string
	step("read the address", chromedp.Evaluate(`location.pathname + location.search`, &where))
	if where != "/_a2a/" {
		t.Fatalf("after the link the page is at %q, want /_a2a/ (no code in the address bar)", where)
	}

	// A coding-agent session through the proxy, while the page watches.
	r := run(t, "", "send", px.url, "--auth", "Bearer "+inspServeToken, "--svc-param", "X-Api-Key="+inspCallerKey,
		"--workspace", t.TempDir(), "--approve", "Please run the shell command echo hi")
	wantCode(t, r, 0)
	wantContains(t, "the session", r.stdout, "Shell echo hi - succeeded")
	// The prompt ends the first call, the answer opens the second; Gemini ends each turn at input-required.
	waitJS("the session's calls appear live", `[...document.querySelectorAll('#rows .row')].filter(r =>
		r.textContent.includes('SendStreamingMessage') && r.querySelector('.st').textContent === 'ok').length === 2`)
	task := field(r.stdout, "Task ID")
	if task == "" {
		t.Fatalf("no task id in the session's output:\n%s", r)
	}
	for range 3 { // a few quick calls for the list and the latency view
		run(t, "", "get", "task", px.url, task, "--auth", "Bearer "+inspServeToken)
	}
	waitJS("the GetTask calls appear", `[...document.querySelectorAll('#rows .row')].filter(r => r.textContent.includes('GetTask')).length >= 3`)
	// The browser's own requests (its /favicon.ico beside the page) are no A2A calls: never listed.
	var listed bool
	step("look for the browser's requests", chromedp.Evaluate(`[...document.querySelectorAll('#rows .row')].some(r => r.textContent.includes('favicon'))`, &listed))
	if listed {
		t.Error("the calls list shows the browser's own favicon request")
	}
	checkDOM("calls")
	shoot("inspector-calls")

	// A call, then its task's timeline.
	step("open the session's first call", chromedp.Evaluate(`[...document.querySelectorAll('#rows .row')].find(r => r.textContent.includes('input-required')).click()`, nil))
	waitJS("the call's detail", `document.querySelector('#detail h2') && document.querySelector('#detail h2').textContent.includes('SendStreamingMessage') && document.querySelectorAll('#detail .ev').length > 3`)
	var cmd string
	step("read its a2a command", chromedp.Text(`#detail pre[data-cmd=a2a]`, &cmd, chromedp.ByQuery))
	wantContains(t, "the call's a2a command", cmd, "a2a send", "--stream", "Please run the shell command echo hi", "$A2A_TOKEN")
	checkDOM("call")
	shoot("inspector-call")

	step("open the task", chromedp.Evaluate(`[...document.querySelectorAll('#detail a.link')].find(a => a.textContent === `+jsString(task)+`).click()`, nil))
	waitJS("the task's timeline", `document.querySelectorAll('#items tr.item').length > 5 &&
		[...document.querySelectorAll('#items .kind')].some(k => k.textContent === 'permission') &&
		[...document.querySelectorAll('#items .kind')].some(k => k.textContent === 'tool') &&
		document.querySelectorAll('#axis circle').length > 5`)
	checkDOM("task")
	shoot("inspector-task")

	// A burst of calls must not stall the page: it stays live and draws only the rows in view.
	step("back to the calls", chromedp.Click(`#tab-calls`, chromedp.ByQuery))
	const burst = 1600
	burstCalls(t, px.url+"/tasks/"+task, burst)
	waitJS("the burst is listed", fmt.Sprintf(`parseInt(document.getElementById('counts').textContent) >= %d`, burst+5))
	var drawn int
	step("count the rows drawn", chromedp.Evaluate(`document.querySelectorAll('#rows .row').length`, &drawn))
	if drawn > 120 {
		t.Errorf("the list draws %d rows for %d calls: not virtualised", drawn, burst)
	}

	// The filters: a search, then a context (from the task), then cleared.
	step("search", chromedp.SendKeys(`#f-q`, "SendStreaming", chromedp.ByQuery))
	waitJS("the search selects the session's calls", `document.querySelectorAll('#rows .row').length === 2 &&
		[...document.querySelectorAll('#rows .row')].every(r => r.textContent.includes('SendStreamingMessage'))`)
	step("clear the filters", chromedp.Click(`#f-clear`, chromedp.ByQuery))
	step("filter by method", chromedp.SetValue(`#f-method`, "GetTask", chromedp.ByQuery),
		chromedp.Evaluate(`document.getElementById('f-method').dispatchEvent(new Event('input'))`, nil))
	waitJS("the method filter", `parseInt(document.getElementById('counts').textContent.split('·')[1]) >= `+fmt.Sprint(burst)+` &&
		[...document.querySelectorAll('#rows .row')].every(r => r.children[2].textContent === 'GetTask')`)
	step("clear the filters", chromedp.Click(`#f-clear`, chromedp.ByQuery))

	step("open the latency view", chromedp.Click(`#tab-latency`, chromedp.ByQuery))
	waitJS("the latency histograms", `document.querySelectorAll('#latency .method').length >= 2 && document.querySelector('#streams polyline') !== null`)
	checkDOM("latency")
	shoot("inspector-latency")

	// Load a recording into the page: the session's own export.
	status, rec := apiCall(t, http.MethodGet, px.url+"/_a2a/api/export", inspServeToken, nil)
	if status != http.StatusOK || strings.Count(rec, "\n") < 10 {
		t.Fatalf("export: %d\n%s", status, rec)
	}
	file := filepath.Join(t.TempDir(), "session.jsonl")
	if err := os.WriteFile(file, []byte(rec), 0o600); err != nil {
		t.Fatal(err)
	}
	step("back to the calls", chromedp.Click(`#tab-calls`, chromedp.ByQuery))
	step("load the recording", chromedp.SetUploadFiles(`#load`, []string{file}, chromedp.ByQuery))
	waitJS("the recording's calls are listed", `document.getElementById('live').textContent === 'loaded 2 calls' &&
		[...document.querySelectorAll('#rows .row')].filter(r => r.children[3].textContent === 'file').length === 2`)
	checkDOM("loaded")

	// Markup from the network is shown as text, never run: a message and a header that carry some.
	const hostile = `<img src=x onerror="document.title='pwned'"><script>document.title='pwned'</script>`
	text, _ := json.Marshal(hostile) // a string encodes
	req, _ := http.NewRequest(http.MethodPost, px.url+"/message:send", strings.NewReader(
		`{"message":{"messageId":"m-x","role":"ROLE_USER","parts":[{"text":`+string(text)+`}]}}`))
	req.Header.Set("Authorization", "Bearer "+inspServeToken)
	req.Header.Set("A2A-Version", "1.0")
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Note", hostile)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	waitJS("the hostile call is listed", `[...document.querySelectorAll('#rows .row')].some(r => r.textContent.includes('SendMessage'))`)
	step("open it", chromedp.Evaluate(`[...document.querySelectorAll('#rows .row')].filter(r => r.textContent.includes('SendMessage')).pop().click()`, nil))
	waitJS("its detail, as text", `document.getElementById('detail').textContent.includes('<img src=x onerror=') &&
		document.getElementById('detail').textContent.includes('X-Note')`)
	var injected bool
	step("look for injected markup", chromedp.Evaluate(`document.title !== 'a2a inspector' || document.querySelectorAll('img, main script, #detail script').length > 0`, &injected))
	if injected {
		t.Fatal("markup from the network was inserted into the page")
	}
	checkDOM("hostile")
}

// burstCalls makes n GetTask calls on url (REST) from 8 goroutines, as fast as serve answers.
func burstCalls(t *testing.T, url string, n int) {
	t.Helper()
	var wg sync.WaitGroup
	errs := make(chan error, n)
	per := n / 8
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range per {
				req, _ := http.NewRequest(http.MethodGet, url, nil)
				req.Header.Set("Authorization", "Bearer "+inspServeToken)
				req.Header.Set("A2A-Version", "1.0")
				res, err := http.DefaultClient.Do(req)
				if err != nil {
					errs <- err
					return
				}
				res.Body.Close()
				if res.StatusCode != http.StatusOK {
					errs <- fmt.Errorf("GET %s: %d", url, res.StatusCode)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
}

func jsString(s string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(s) + "'"
}

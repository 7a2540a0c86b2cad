package e2e

import (
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestInspectorListsA2A: the inspector of `serve --proxy --ui` lists A2A calls only. A browser's own
// GET /favicon.ico (asked beside every page) is answered 204 at once, without the token and without a log line; it
// used to be forwarded upstream and listed as a failed call. Another path no binding owns (GET /robots.txt) is still
// forwarded and logged, but is not listed either.
func TestInspectorListsA2A(t *testing.T) {
	t.Parallel()
	px, _ := inspectedProxy(t)
	live := followEvents(t, px.url+"/_a2a/api/events", inspServeToken)

	for _, method := range []string{http.MethodGet, http.MethodHead} {
		req, _ := http.NewRequest(method, px.url+"/favicon.ico", nil)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != http.StatusNoContent || res.Header.Get("Cache-Control") == "" {
			t.Errorf("%s /favicon.ico without the token: %d, Cache-Control %q; want 204, cacheable", method,
				res.StatusCode, res.Header.Get("Cache-Control"))
		}
	}
	apiCall(t, http.MethodGet, px.url+"/robots.txt", inspServeToken, nil) // whatever the upstream answers
	r := run(t, "", "send", px.url, "hello", "--auth", "Bearer "+inspServeToken, "--transport", "jsonrpc", "--blocking")
	wantCode(t, r, 0)
	waitEvent(t, live, 10*time.Second, "call", `"method":"SendMessage"`, `"status":"ok"`)

	var list inspList
	body := apiJSON(t, px.url+"/_a2a/api/calls", inspServeToken, &list)
	if len(list.Calls) != 1 || list.Calls[0].Method != "SendMessage" {
		t.Errorf("the calls list holds %d calls, want the one SendMessage:\n%s", len(list.Calls), body)
	}
	px.stop(t) // its log is complete once it exited
	log := px.Log()
	if strings.Contains(log, "favicon") {
		t.Errorf("serve logged the browser's favicon request:\n%s", log)
	}
	if !strings.Contains(log, "GET /robots.txt") {
		t.Errorf("serve did not log the forwarded GET /robots.txt:\n%s", log)
	}
}

package e2e

import (
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A request body in anything but a JSON content type its binding names is refused with
// ContentTypeNotSupportedError before the backend runs: on every HTTP endpoint, whatever the backend (exec, proxy,
// replay). The requests are raw HTTP, as curl or a browser form would send them.

// badContentTypes are what a form, a file upload or a careless script sends ("" sends no Content-Type at all).
var badContentTypes = []string{"text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", ""}

type endpoint struct {
	path    string
	jsonrpc bool
	body    string
}

func rpcBody(method, params string) string {
	return `{"jsonrpc":"2.0","id":1,"method":"` + method + `","params":` + params + `}`
}

const (
	v1Msg  = `{"message":{"role":"ROLE_USER","messageId":"m1","parts":[{"text":"hi"}]}}`
	v03Msg = `{"message":{"kind":"message","role":"user","messageId":"m1","parts":[{"kind":"text","text":"hi"}]}}`
)

// compatEndpoints are the A2A endpoints of serve --transport rest,jsonrpc --card-compat.
var compatEndpoints = []endpoint{
	{"/jsonrpc", true, rpcBody("SendMessage", v1Msg)},
	{"/jsonrpc/", true, rpcBody("SendStreamingMessage", v1Msg)},
	{"/", true, rpcBody("message/send", v03Msg)},
	{"/message:send", false, v1Msg},
	{"/message:stream", false, v1Msg},
	{"/acme/message:send", false, v1Msg},
	{"/v1/message:send", false, `{"message":{"messageId":"m1","role":"ROLE_USER","content":[{"text":"hi"}]}}`},
	{"/v1/message:stream", false, `{"message":{"messageId":"m1","role":"ROLE_USER","content":[{"text":"hi"}]}}`},
}

// postRaw posts body with the content type ct ("" for none) and returns the status and the answer.
func postRaw(t *testing.T, url, ct, body string) (int, string, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if ct != "" {
		req.Header.Set("Content-Type", ct)
	}
	res, err := (&http.Client{Timeout: 20 * time.Second}).Do(req)
	if err != nil {
		t.Errorf("POST %s as %q: %v", url, ct, err)
		return 0, "", ""
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return res.StatusCode, res.Header.Get("Content-Type"), string(b)
}

// wantRefused checks the ContentTypeNotSupportedError of the endpoint's binding.
func wantRefused(t *testing.T, base string, ep endpoint, ct string) {
	t.Helper()
	st, rct, body := postRaw(t, base+ep.path, ct, ep.body)
	var doc struct {
		Error struct {
			Code    int                       `json:"code"`
			Data    []struct{ Reason string } `json:"data"`
			Details []struct{ Reason string } `json:"details"`
		} `json:"error"`
	}
	if err := json.Unmarshal([]byte(body), &doc); err != nil || !strings.HasPrefix(rct, "application/json") {
		t.Errorf("POST %s as %q: %d %q %s, want a JSON error", ep.path, ct, st, rct, body)
		return
	}
	info := doc.Error.Details
	wantStatus, wantCode := http.StatusUnsupportedMediaType, http.StatusUnsupportedMediaType
	if ep.jsonrpc {
		info = doc.Error.Data
		wantStatus, wantCode = http.StatusOK, -32005
	}
	if st != wantStatus || doc.Error.Code != wantCode || len(info) == 0 || info[0].Reason != "CONTENT_TYPE_NOT_SUPPORTED" {
		t.Errorf("POST %s as %q: %d %s, want %d with code %d and reason CONTENT_TYPE_NOT_SUPPORTED", ep.path, ct, st, body,
			wantStatus, wantCode)
	}
}

func TestContentTypeRefusedBeforeBackend(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	marker := filepath.Join(dir, "ran")
	cmd := "touch " + marker + "; cat"
	exec := startServe(t, "--exec", cmd, "--transport", "rest,jsonrpc", "--card-compat", "--quiet")
	v1only := startServe(t, "--exec", cmd, "--transport", "jsonrpc", "--quiet") // POST / is v1.0 JSON-RPC here
	proxy := startServe(t, "--proxy", exec.url, "--transport", "rest,jsonrpc", "--card-compat", "--quiet")
	recordings, err := filepath.Abs("../testdata/recordings")
	if err != nil {
		t.Fatal(err)
	}
	replay := startServe(t, "--replay", filepath.Join(recordings, "commands.jsonl"), "--quiet")

	for _, ct := range badContentTypes {
		for _, ep := range compatEndpoints {
			wantRefused(t, exec.url, ep, ct)
			wantRefused(t, proxy.url, ep, ct)
		}
		wantRefused(t, v1only.url, endpoint{"/", true, rpcBody("SendMessage", v1Msg)}, ct)
		wantRefused(t, replay.url, endpoint{"/message:send", false, v1Msg}, ct)
	}
	if _, err := os.Stat(marker); !os.IsNotExist(err) {
		t.Fatalf("the --exec command ran for a refused request (marker: %v)", err)
	}

	// The JSON content types are served: the command runs (so the marker above could have appeared).
	for _, c := range []struct {
		srv *server
		ep  endpoint
		ct  string
	}{
		{exec, compatEndpoints[0], "application/json"},
		{exec, compatEndpoints[3], "application/a2a+json"},
		{exec, compatEndpoints[2], "application/json; charset=utf-8"},
		{proxy, compatEndpoints[6], "application/json"},
	} {
		os.Remove(marker)
		st, _, body := postRaw(t, c.srv.url+c.ep.path, c.ct, c.ep.body)
		if st != http.StatusOK || strings.Contains(body, `"error"`) || !strings.Contains(body, "hi") {
			t.Errorf("POST %s as %q: %d %s, want the command's answer", c.ep.path, c.ct, st, body)
		}
		if _, err := os.Stat(marker); err != nil {
			t.Errorf("POST %s as %q: the command did not run (%v)", c.ep.path, c.ct, err)
		}
	}
}

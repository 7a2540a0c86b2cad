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

// Raw HTTP for the security tests: each request is exactly what a browser or an attacker's script would send, on
// a fresh connection.

const (
	restSend = `{"message":{"messageId":"m-1","role":"ROLE_USER","parts":[{"text":"hi"}]}}`
	rpcSend  = `{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"m-1","role":"ROLE_USER","parts":[{"text":"hi"}]}}}`
)

type rawResp struct {
	status int
	header http.Header
	body   string
}

// rawCall sends one request; hdr may set Host (the Host header) besides ordinary headers.
func rawCall(t testing.TB, method, url string, hdr map[string]string, body string) rawResp {
	t.Helper()
	var rb io.Reader
	if body != "" {
		rb = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, url, rb)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range hdr {
		if k == "Host" {
			req.Host = v
			continue
		}
		req.Header.Set(k, v)
	}
	c := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s: read body: %v", method, url, err)
	}
	return rawResp{status: resp.StatusCode, header: resp.Header, body: string(b)}
}

// wantGuarded checks a refusal: its status, that its message names msgs, and that it carries no CORS header.
func wantGuarded(t testing.TB, what string, r rawResp, status int, msgs ...string) {
	t.Helper()
	if r.status != status {
		t.Fatalf("%s: status %d, want %d\n%s", what, r.status, status, r.body)
	}
	var doc struct {
		Error struct{ Message string }
	}
	if err := json.Unmarshal([]byte(r.body), &doc); err != nil || doc.Error.Message == "" {
		t.Fatalf("%s: the answer is not an A2A error document (%v):\n%s", what, err, r.body)
	}
	for _, m := range msgs {
		if !strings.Contains(doc.Error.Message, m) {
			t.Fatalf("%s: answer does not say %q:\n%s", what, m, doc.Error.Message)
		}
	}
	for k := range r.header {
		if strings.HasPrefix(k, "Access-Control-") {
			t.Fatalf("%s: refusal carries CORS header %s: %v", what, k, r.header[k])
		}
	}
}

// execMarker returns an --exec command that creates a file when it runs, and a check that it never did.
func execMarker(t testing.TB) (cmd string, ran func() bool) {
	dir := t.TempDir()
	marker := filepath.Join(dir, "ran")
	return "touch " + marker + "; cat", func() bool {
		_, err := os.Stat(marker)
		return err == nil
	}
}

package e2e

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// The inspector (`serve --ui`): helpers shared by its API, browser and benchmark tests.

// inspectorLink waits for serve's "inspector on URL" line (printed before "listening on") and returns the URL.
func inspectorLink(t testing.TB, s *server) string {
	t.Helper()
	for _, line := range strings.Split(s.Log(), "\n") {
		if u, ok := strings.CutPrefix(line, "inspector on "); ok {
			return strings.TrimSpace(u)
		}
	}
	t.Fatalf("no 'inspector on' line before 'listening on':\n%s", s.Log())
	return ""
}

// apiCall makes one request to serve with an optional bearer token and returns the status and body.
func apiCall(t testing.TB, method, url, token string, body io.Reader) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, url, body)
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatalf("%s %s: read: %v", method, url, err)
	}
	return res.StatusCode, string(b)
}

// apiJSON GETs an API path (200 expected) and decodes it into v; it returns the body too.
func apiJSON(t testing.TB, url, token string, v any) string {
	t.Helper()
	code, body := apiCall(t, http.MethodGet, url, token, nil)
	if code != http.StatusOK {
		t.Fatalf("GET %s: %d %s", url, code, body)
	}
	if err := json.Unmarshal([]byte(body), v); err != nil {
		t.Fatalf("GET %s: %v\n%s", url, err, body)
	}
	return body
}

// inspCall is a row of GET /_a2a/api/calls.
type inspCall struct {
	ID      int64   `json:"id"`
	Method  string  `json:"method"`
	Binding string  `json:"binding"`
	Task    string  `json:"task"`
	Context string  `json:"context"`
	State   string  `json:"state"`
	Status  string  `json:"status"`
	Error   string  `json:"error"`
	Events  int     `json:"events"`
	Bytes   int     `json:"bytes"`
	Source  string  `json:"source"`
	DurMS   float64 `json:"durationMs"`
}

type inspList struct {
	Calls []inspCall `json:"calls"`
	Last  int64      `json:"last"`
}

// sseReader follows GET /_a2a/api/events: every "event: NAME" / "data: …" pair goes to the channel.
type sseEvent struct{ name, data string }

func followEvents(t testing.TB, url, token string) <-chan sseEvent {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	if res.StatusCode != http.StatusOK || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/event-stream") {
		res.Body.Close()
		t.Fatalf("GET %s: %d %s", url, res.StatusCode, res.Header.Get("Content-Type"))
	}
	t.Cleanup(func() { res.Body.Close() })
	ch := make(chan sseEvent, 4096)
	go func() {
		defer close(ch)
		sc := bufio.NewScanner(res.Body)
		name := ""
		for sc.Scan() {
			line := sc.Text()
			if v, ok := strings.CutPrefix(line, "event: "); ok {
				name = v
			} else if v, ok := strings.CutPrefix(line, "data: "); ok {
				select {
				case ch <- sseEvent{name, v}:
				default:
				}
			}
		}
	}()
	return ch
}

// waitEvent returns the first event named name whose data contains all of subs.
func waitEvent(t testing.TB, ch <-chan sseEvent, timeout time.Duration, name string, subs ...string) sseEvent {
	t.Helper()
	deadline := time.After(timeout)
	for {
		select {
		case ev, ok := <-ch:
			if !ok {
				t.Fatalf("event stream ended before a %q event with %q", name, subs)
			}
			if ev.name != name {
				continue
			}
			all := true
			for _, s := range subs {
				all = all && strings.Contains(ev.data, s)
			}
			if all {
				return ev
			}
		case <-deadline:
			t.Fatalf("no %q event with %q within %s", name, subs, timeout)
		}
	}
}

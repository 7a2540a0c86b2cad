package push

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

func TestDecodeNotification(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		body  string
		want  string // the event's type and state, "" for an error
		final bool
	}{
		{`{"statusUpdate":{"taskId":"t","contextId":"c","status":{"state":"TASK_STATE_WORKING"}}}`, "status working", false},
		{`{"statusUpdate":{"taskId":"t","contextId":"c","status":{"state":"TASK_STATE_FAILED"}}}`, "status failed", true},
		{`{"artifactUpdate":{"taskId":"t","contextId":"c","artifact":{"artifactId":"a","parts":[{"text":"x"}]}}}`, "artifact", false},
		{`{"task":{"id":"t","contextId":"c","status":{"state":"TASK_STATE_COMPLETED"}}}`, "task completed", true},
		{`{"kind":"task","id":"t","contextId":"c","status":{"state":"completed"}}`, "task completed", true}, // v0.3
		{`{"id":"t","contextId":"c","status":{"state":"input-required"}}`, "task input-required", false},    // v0.3, no kind
		{`{"kind":"message","messageId":"m","role":"agent","parts":[]}`, "", false},
		{`{"hello":"world"}`, "", false},
		{`[]`, "", false},
		{``, "", false},
	} {
		ev, err := decodeNotification([]byte(tc.body))
		got := ""
		switch v := ev.(type) {
		case *a2a.TaskStatusUpdateEvent:
			got = "status " + strings.ToLower(strings.TrimPrefix(string(v.Status.State), "TASK_STATE_"))
		case *a2a.TaskArtifactUpdateEvent:
			got = "artifact"
		case *a2a.Task:
			got = "task " + strings.ReplaceAll(strings.ToLower(strings.TrimPrefix(string(v.Status.State), "TASK_STATE_")), "_", "-")
		}
		if got != tc.want || (tc.want == "") != (err != nil) {
			t.Errorf("decodeNotification(%s) = %s, %v; want %q", tc.body, got, err, tc.want)
		}
		if ev != nil && Final(ev) != tc.final {
			t.Errorf("Final(%s) = %v, want %v", tc.body, !tc.final, tc.final)
		}
	}
}

func TestReceiverToken(t *testing.T) {
	t.Parallel()
	var got []a2a.Event
	rc := NewReceiver("tok", func(ev a2a.Event) bool { got = append(got, ev); return Final(ev) })
	body := `{"statusUpdate":{"taskId":"t","contextId":"c","status":{"state":"TASK_STATE_COMPLETED"}}}`
	for _, tc := range []struct {
		header, value string
		want          int
	}{
		{"", "", http.StatusUnauthorized},
		{"X-A2A-Notification-Token", "tok2", http.StatusUnauthorized},
		{"A2A-Notification-Token", "tok", http.StatusOK}, // a2a-go's sender's name
		{"X-A2A-Notification-Token", "tok", http.StatusOK},
	} {
		req := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		if tc.header != "" {
			req.Header.Set(tc.header, tc.value)
		}
		w := httptest.NewRecorder()
		rc.ServeHTTP(w, req)
		if w.Code != tc.want {
			t.Errorf("%s=%q: %d, want %d", tc.header, tc.value, w.Code, tc.want)
		}
	}
	if len(got) != 1 { // the second came after the final one: answered, not handed over
		t.Errorf("got %d notifications, want 1", len(got))
	}
	select {
	case <-rc.final:
	default:
		t.Error("final not closed after a completed status")
	}
}

// TestServe: Serve listens on a free port, says where, takes a real POST and stops when ctx ends.
func TestServe(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	rc := NewReceiver("", Final)
	ready := make(chan string, 1)
	served := make(chan error, 1)
	go func() { served <- Serve(ctx, "127.0.0.1", 0, rc, func(u string) { ready <- u }) }()
	var url string
	select {
	case url = <-ready:
	case err := <-served:
		t.Fatalf("Serve() = %v before listening", err)
	}
	body := `{"statusUpdate":{"taskId":"t","contextId":"c","status":{"state":"TASK_STATE_FAILED"}}}`
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("POST %s: %s, want 200", url, resp.Status)
	}
	resp, err = http.Post(url, "application/json", strings.NewReader(`{"nope":1}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest {
		t.Errorf("POST of a non-notification: %s, want 400", resp.Status)
	}
	<-rc.Final()
	cancel()
	if err := <-served; err != nil {
		t.Errorf("Serve() after ctx ended = %v, want nil", err)
	}
	if err := Serve(context.Background(), "127.0.0.1", -1, rc, func(string) {}); err == nil {
		t.Error("Serve() on port -1 = nil, want an error")
	}
}

// TestReceiverGuard: what a web page can send is refused before the token is even looked at: an Origin (403), a
// body that is not JSON (415), and on a loopback listener a Host that is not a loopback name (421).
func TestReceiverGuard(t *testing.T) {
	t.Parallel()
	var got int
	rc := NewReceiver("tok", func(a2a.Event) bool { got++; return false })
	rc.loopback = true
	var refused []string
	rc.Refused = func(from, why string, status int) { refused = append(refused, why) }
	body := `{"statusUpdate":{"taskId":"t","contextId":"c","status":{"state":"TASK_STATE_WORKING"}}}`
	for _, tc := range []struct {
		host, origin, ctype string
		want                int
	}{
		{"127.0.0.1:9", "", "application/json", http.StatusOK},
		{"localhost:9", "", "application/json; charset=utf-8", http.StatusOK},
		{"[::1]:9", "", "application/a2a+json", http.StatusOK},
		{"127.0.0.1:9", "https://evil.example", "application/json", http.StatusForbidden},
		{"127.0.0.1:9", "null", "application/json", http.StatusForbidden},
		{"rebind.evil.example:9", "", "application/json", http.StatusMisdirectedRequest},
		{"127.0.0.1:9", "", "text/plain", http.StatusUnsupportedMediaType},
		{"127.0.0.1:9", "", "application/x-www-form-urlencoded", http.StatusUnsupportedMediaType},
		{"127.0.0.1:9", "", "multipart/form-data; boundary=x", http.StatusUnsupportedMediaType},
		{"127.0.0.1:9", "", "", http.StatusUnsupportedMediaType},
	} {
		req := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(body))
		req.Host = tc.host
		req.Header.Set("X-A2A-Notification-Token", "tok")
		if tc.origin != "" {
			req.Header.Set("Origin", tc.origin)
		}
		if tc.ctype != "" {
			req.Header.Set("Content-Type", tc.ctype)
		}
		w := httptest.NewRecorder()
		rc.ServeHTTP(w, req)
		if w.Code != tc.want {
			t.Errorf("Host %s Origin %q Content-Type %q: %d, want %d", tc.host, tc.origin, tc.ctype, w.Code, tc.want)
		}
	}
	if got != 3 || len(refused) != 7 {
		t.Errorf("%d notifications handed over (want 3), %d refusals reported (want 7): %q", got, len(refused), refused)
	}
}

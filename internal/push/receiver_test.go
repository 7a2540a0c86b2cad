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

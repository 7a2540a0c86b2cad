package traffic

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/a2acli/a2a/internal/syncbuf"
)

// serveFront serves h behind l.Front on a real listener and makes one GET of path. Front logs after
// the handler returns, which may be after the client read the answer: the server is closed (Close
// waits for its handlers) before the test reads the log.
func serveFront(t *testing.T, l *Log, h http.HandlerFunc, path string) *http.Response {
	t.Helper()
	srv := httptest.NewServer(l.Front(h, func(*http.Request) bool { return false }))
	resp, err := http.Get(srv.URL + path)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	srv.Close()
	return resp
}

func refuse(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusUnauthorized)
	_, _ = w.Write([]byte(`{"error":{"code":401,"message":"token needed"}}`))
}

// metricsText is what GET /metrics shows for l.
func metricsText(t *testing.T, l *Log) string {
	t.Helper()
	rec := httptest.NewRecorder()
	l.Metrics().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	return rec.Body.String()
}

func TestFrontLogsAndCountsRefusal(t *testing.T) {
	var out syncbuf.Buffer
	l := New(Config{W: &out, Metrics: true})
	if resp := serveFront(t, l, refuse, "/tasks/x"); resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("status %d, want 401", resp.StatusCode)
	}
	line := out.String()
	for _, want := range []string{" GET /tasks/x task=- state=refused ", ` 0B status=401 reason="token needed"`} {
		if !strings.Contains(line, want) {
			t.Errorf("log %q lacks %q", line, want)
		}
	}
	if m := metricsText(t, l); !strings.Contains(m, `a2a_serve_calls_total{method="other",outcome="refused"} 1`) {
		t.Errorf("metrics lack the refusal:\n%s", m)
	}
}

func TestFrontJSONRefusal(t *testing.T) {
	var out syncbuf.Buffer
	l := New(Config{W: &out, JSON: true})
	serveFront(t, l, refuse, "/tasks/x")
	var doc map[string]any
	if err := json.Unmarshal([]byte(out.String()), &doc); err != nil {
		t.Fatalf("log %q is not one JSON object: %v", out.String(), err)
	}
	if doc["msg"] != "refused" || doc["status"] != "401" || doc["reason"] != "token needed" || doc["method"] != "GET /tasks/x" {
		t.Errorf("refusal object %v", doc)
	}
}

// A request a call took is that call's line, never a refusal, whatever its status.
func TestFrontCallTakesRequest(t *testing.T) {
	var out syncbuf.Buffer
	l := New(Config{W: &out, Metrics: true})
	serveFront(t, l, func(w http.ResponseWriter, r *http.Request) {
		c := l.Record(r.Context(), "GetTask", "t1")
		w.WriteHeader(http.StatusNotFound)
		c.Finish("t1", "-", 0, 0, io.ErrUnexpectedEOF)
	}, "/tasks/t1")
	log := out.String()
	if strings.Contains(log, "refused") || strings.Count(log, "\n") != 1 {
		t.Fatalf("want one call line, got %q", log)
	}
	if !strings.Contains(log, " GetTask task=t1 state=- ") || !strings.Contains(log, `error="unexpected EOF"`) {
		t.Errorf("call line %q", log)
	}
	if m := metricsText(t, l); !strings.Contains(m, `a2a_serve_calls_total{method="GetTask",outcome="error"} 1`) {
		t.Errorf("metrics lack the call:\n%s", m)
	}
}

// A quiet log writes nothing but still counts.
func TestQuietLogCounts(t *testing.T) {
	var out syncbuf.Buffer
	l := New(Config{W: &out, Quiet: true, Metrics: true})
	serveFront(t, l, refuse, "/x")
	if out.String() != "" {
		t.Errorf("quiet log wrote %q", out.String())
	}
	if m := metricsText(t, l); !strings.Contains(m, `outcome="refused"} 1`) {
		t.Errorf("metrics lack the refusal:\n%s", m)
	}
	if New(Config{}).Metrics() != nil {
		t.Error("a log without metrics serves /metrics")
	}
}

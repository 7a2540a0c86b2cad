package e2e

import (
	"bytes"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// rawRequest sends one HTTP request to serve as curl would (rawCall), and returns the status and body.
func rawRequest(t *testing.T, method, url string, headers map[string]string, body string) (int, string) {
	t.Helper()
	r := rawCall(t, method, url, headers, body)
	return r.status, r.body
}

var (
	callLine    = regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}(Z|[+-]\d\d:\d\d) 127\.0\.0\.1:\d+ SendMessage task=[0-9a-f-]{36} state=completed \S+ \d+B$`)
	refusedLine = regexp.MustCompile(`^\d{4}-\d\d-\d\dT\S+ 127\.0\.0\.1:\d+ (\S+ \S+|SendMessage|SendStreamingMessage) task=- state=refused \S+ 0B status=(\S+) reason="(.*)"$`)
)

// TestServeLogText: one log line per call with time, client address, method, task, state, duration and size, on every
// transport; requests refused before any handler (token, content type, a body that is no JSON, gRPC without the token)
// get a line with the reason too; credentials and escape sequences never reach the log.
func TestServeLogText(t *testing.T) {
	t.Parallel()
	s := startServe(t, "--echo", "--transport", "rest,jsonrpc,grpc", "--token", "s3cret-token")
	for _, tr := range []string{"rest", "jsonrpc", "grpc"} {
		wantCode(t, run(t, "", "send", s.url, "--blocking", "--auth", "Bearer s3cret-token", "--transport", tr, "hi"), 0)
	}
	auth := map[string]string{"Authorization": "Bearer s3cret-token", "Content-Type": "application/json"}
	if code, _ := rawRequest(t, "POST", s.url+"/message:send", map[string]string{"Authorization": "Bearer wr0ng-guess"}, `{}`); code != 401 {
		t.Errorf("wrong token: status %d, want 401", code)
	}
	if code, _ := rawRequest(t, "POST", s.url+"/message:send", map[string]string{"Authorization": "Bearer s3cret-token", "Content-Type": "text/plain"}, `{}`); code != 415 {
		t.Errorf("text/plain: status %d, want 415", code)
	}
	if code, _ := rawRequest(t, "POST", s.url+"/message:send", auth, `{not json`); code != 400 {
		t.Errorf("bad JSON: status %d, want 400", code)
	}
	if code, body := rawRequest(t, "POST", s.url+"/jsonrpc", auth, `{"jsonrpc":"2.0","id":1,`); code != 200 || !strings.Contains(body, "error") {
		t.Errorf("bad JSON-RPC: status %d %s, want 200 and a JSON-RPC error", code, body)
	}
	if code, _ := rawRequest(t, "GET", s.url+"/tasks/%1b%5b31mred", nil, ""); code != 401 {
		t.Errorf("escape in path: status %d, want 401", code)
	}
	r := run(t, "", "send", s.url, "--transport", "grpc", "hi") // no token
	wantCode(t, r, 4)

	var calls int
	refused := map[string]string{}
	eventually(t, 10*time.Second, "six refusal lines", func() bool { return strings.Count(s.Log(), "state=refused") == 6 })
	log := s.Log()
	for _, line := range strings.Split(strings.TrimSpace(log), "\n")[1:] {
		if callLine.MatchString(line) {
			calls++
			continue
		}
		m := refusedLine.FindStringSubmatch(line)
		if m == nil {
			t.Errorf("log line in no known shape: %q", line)
			continue
		}
		refused[m[2]] = m[3]
	}
	if calls != 3 {
		t.Errorf("%d SendMessage lines, want 3:\n%s", calls, log)
	}
	wantContains(t, "refusal reasons", strings.Join([]string{refused["401"], refused["415"], refused["400"], refused["200"], refused["Unauthenticated"]}, "\n"),
		"needs its token", "content type", "parse error", "parse error", "needs its token")
	wantContains(t, "log", log, "GET /tasks/")
	if strings.Contains(log, "s3cret-token") || strings.Contains(log, "wr0ng-guess") || strings.Contains(log, "\x1b") {
		t.Errorf("log leaks a credential or an escape sequence:\n%q", log)
	}
}

// TestServeLogJSON: --log-format json writes one JSON object per line (the "listening on" line stays plain: scripts
// wait for it), calls and refusals with the same fields as the text form.
func TestServeLogJSON(t *testing.T) {
	t.Parallel()
	s := startServe(t, "--echo", "--transport", "rest,grpc", "--log-format", "json")
	wantCode(t, run(t, "", "send", s.url, "--blocking", "--transport", "grpc", "hi"), 0)
	if code, _ := rawRequest(t, "POST", s.url+"/message:send", map[string]string{"Content-Type": "text/plain"}, "\x1b[2J"); code != 415 {
		t.Fatalf("text/plain: status %d, want 415", code)
	}
	eventually(t, 10*time.Second, "a refusal line", func() bool { return strings.Contains(s.Log(), `"refused"`) })
	lines := strings.Split(strings.TrimSpace(s.Log()), "\n")
	if !strings.HasPrefix(lines[0], "listening on ") {
		t.Fatalf("first line %q, want the plain listening line", lines[0])
	}
	var call, ref map[string]any
	for _, line := range lines[1:] {
		var obj map[string]any
		if err := json.Unmarshal([]byte(line), &obj); err != nil {
			t.Fatalf("log line is not one JSON object: %v\n%s", err, line)
		}
		switch obj["msg"] {
		case "call":
			call = obj
		case "refused":
			ref = obj
		}
	}
	if call == nil || ref == nil {
		t.Fatalf("want a call and a refused object:\n%s", s.Log())
	}
	for _, k := range []string{"time", "client", "method", "task", "state", "duration_ms", "bytes"} {
		if _, ok := call[k]; !ok {
			t.Errorf("call object lacks %q: %v", k, call)
		}
	}
	if call["method"] != "SendMessage" || call["state"] != "completed" || !strings.HasPrefix(call["client"].(string), "127.0.0.1:") {
		t.Errorf("call object = %v", call)
	}
	if ref["status"] != "415" || !strings.Contains(ref["reason"].(string), "content type") || ref["method"] != "POST /message:send" {
		t.Errorf("refused object = %v", ref)
	}
}

// scrape reads /metrics with Prometheus' own text parser.
func scrape(t *testing.T, url, token string) map[string]*dto.MetricFamily {
	t.Helper()
	headers := map[string]string{}
	if token != "" {
		headers["Authorization"] = "Bearer " + token
	}
	code, body := rawRequest(t, "GET", url+"/metrics", headers, "")
	if code != 200 {
		t.Fatalf("GET /metrics: %d %s", code, body)
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := parser.TextToMetricFamilies(strings.NewReader(body))
	if err != nil {
		t.Fatalf("parse /metrics: %v\n%s", err, body)
	}
	return fams
}

// value is the value of the sample of family name whose labels include want (k=v pairs); 0 when none.
func value(fams map[string]*dto.MetricFamily, name string, want ...string) float64 {
	f := fams[name]
	if f == nil {
		return 0
	}
next:
	for _, m := range f.Metric {
		labels := map[string]string{}
		for _, l := range m.Label {
			labels[l.GetName()] = l.GetValue()
		}
		for i := 0; i+1 < len(want); i += 2 {
			if labels[want[i]] != want[i+1] {
				continue next
			}
		}
		switch {
		case m.Counter != nil:
			return m.Counter.GetValue()
		case m.Gauge != nil:
			return m.Gauge.GetValue()
		case m.Histogram != nil:
			return float64(m.Histogram.GetSampleCount())
		}
	}
	return 0
}

// TestServeHealthzMetrics: GET /healthz answers without the token (Host and Origin still checked); GET /metrics needs
// it and counts calls by method and outcome, their latency, the open streams and the running --exec processes; the
// counters move by exactly what the test did.
func TestServeHealthzMetrics(t *testing.T) {
	t.Parallel()
	fifo := filepath.Join(t.TempDir(), "gate")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	const token = "m3trics-token"
	s := startServe(t, "--exec", `read m; echo one; if [ "$m" = wait ]; then read x < `+fifo+`; fi; echo two`, "--chunk=\n", "--transport", "rest,grpc", "--token", token)

	code, body := rawRequest(t, "GET", s.url+"/healthz", nil, "")
	if code != 200 || strings.TrimSpace(body) != `{"status":"ok"}` {
		t.Errorf("GET /healthz = %d %q, want 200 {\"status\":\"ok\"}", code, body)
	}
	if code, _ := rawRequest(t, "GET", s.url+"/healthz", map[string]string{"Host": "rebound.example"}, ""); code != http.StatusMisdirectedRequest {
		t.Errorf("GET /healthz with a foreign Host = %d, want 421", code)
	}
	if code, _ := rawRequest(t, "GET", s.url+"/metrics", nil, ""); code != 401 {
		t.Errorf("GET /metrics without the token = %d, want 401", code)
	}

	before := scrape(t, s.url, token)
	wantCode(t, run(t, "", "send", s.url, "--blocking", "--auth", "Bearer "+token, "--transport", "grpc", "-o", "json", "x"), 0)
	// A task the server does not know: an error outcome, over REST.
	wantCode(t, run(t, "", "get", "task", s.url, "no-such-task", "--auth", "Bearer "+token), 1)
	rawRequest(t, "POST", s.url+"/message:send", nil, `{}`) // refused: no token

	c := startClient(t, "send", s.url, "--auth", "Bearer "+token, "--stream", "-o", "json", "wait")
	firstChunk(t, c, 20*time.Second)
	during := scrape(t, s.url, token)
	if v := value(during, "a2a_serve_open_streams"); v != 1 {
		t.Errorf("open streams during the stream = %v, want 1", v)
	}
	if v := value(during, "a2a_serve_running_processes"); v != 1 {
		t.Errorf("running processes during the stream = %v, want 1", v)
	}
	gate, err := os.OpenFile(fifo, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	gate.Write([]byte("go\n"))
	gate.Close()
	if _, code := c.wait(t, 20*time.Second); code != 0 {
		t.Fatalf("stream exit %d: %s", code, c.Stderr())
	}
	var after map[string]*dto.MetricFamily
	eventually(t, 10*time.Second, "the stream's end counted", func() bool {
		after = scrape(t, s.url, token)
		return value(after, "a2a_serve_open_streams") == 0 && value(after, "a2a_serve_running_processes") == 0
	})
	delta := func(name string, labels ...string) float64 {
		return value(after, name, labels...) - value(before, name, labels...)
	}
	for _, want := range []struct {
		name   string
		labels []string
		delta  float64
	}{
		{"a2a_serve_calls_total", []string{"method", "SendMessage", "outcome", "ok"}, 1},
		{"a2a_serve_calls_total", []string{"method", "GetTask", "outcome", "error"}, 1},
		{"a2a_serve_calls_total", []string{"method", "SendStreamingMessage", "outcome", "ok"}, 1},
		{"a2a_serve_calls_total", []string{"method", "other", "outcome", "refused"}, 1},
		{"a2a_serve_call_duration_seconds", []string{"method", "SendMessage"}, 1},
		{"a2a_serve_call_duration_seconds", []string{"method", "SendStreamingMessage"}, 1},
	} {
		if got := delta(want.name, want.labels...); got != want.delta {
			t.Errorf("%s%v moved by %v, want %v", want.name, want.labels, got, want.delta)
		}
	}
	if bytes.Contains([]byte(s.Log()), []byte(token)) {
		t.Errorf("log leaks the token")
	}
}

// TestServeNoMetrics: --no-metrics turns /metrics off; /healthz stays.
func TestServeNoMetrics(t *testing.T) {
	t.Parallel()
	s := startServe(t, "--echo", "--no-metrics")
	if code, _ := rawRequest(t, "GET", s.url+"/metrics", nil, ""); code != 404 {
		t.Errorf("GET /metrics with --no-metrics = %d, want 404", code)
	}
	if code, _ := rawRequest(t, "GET", s.url+"/healthz", nil, ""); code != 200 {
		t.Errorf("GET /healthz = %d, want 200", code)
	}
}

// TestServeProxyMetrics: a --proxy counts the calls its byte path forwards (its own records, not a2asrv's) like any
// backend, streams included, and a call it hands to the A2A handler (the upstream gone) once, leaving no open stream
// behind.
func TestServeProxyMetrics(t *testing.T) {
	t.Parallel()
	up := startServe(t, "--echo", "--transport", "rest,jsonrpc")
	proxy := startServe(t, "--proxy", up.url, "--transport", "rest,jsonrpc")
	before := scrape(t, proxy.url, "")
	wantCode(t, run(t, "", "send", proxy.url, "--blocking", "--transport", "jsonrpc", "x"), 0)
	wantCode(t, run(t, "", "send", proxy.url, "--stream", "-o", "json", "y"), 0)
	up.stop(t)
	r := run(t, "", "send", proxy.url, "--stream", "-o", "json", "z")
	if r.code == 0 {
		t.Fatalf("a stream through a proxy whose upstream is gone succeeded:\n%s", r)
	}
	after := scrape(t, proxy.url, "")
	delta := func(labels ...string) float64 {
		return value(after, "a2a_serve_calls_total", labels...) - value(before, "a2a_serve_calls_total", labels...)
	}
	if d := delta("method", "SendMessage", "outcome", "ok"); d != 1 {
		t.Errorf("SendMessage ok moved by %v, want 1", d)
	}
	if d := delta("method", "SendStreamingMessage", "outcome", "ok"); d != 1 {
		t.Errorf("SendStreamingMessage ok moved by %v, want 1", d)
	}
	if d := delta("method", "SendStreamingMessage", "outcome", "error"); d != 1 {
		t.Errorf("SendStreamingMessage error moved by %v, want 1\n%s", d, proxy.Log())
	}
	if v := value(after, "a2a_serve_open_streams"); v != 0 {
		t.Errorf("open streams after every stream ended = %v, want 0", v)
	}
}

package e2e

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// forged is a whole traffic line an attacker wants the operator to read; every request below tries to start a line
// with it.
const forged = "2026-01-01T00:00:00.000Z 127.0.0.1:1 SendMessage task=FORGED state=completed 1ms 0B"

// logForgeRequests are raw requests (written by hand on fresh connections, see rawHTTP) that carry a line break in
// every field of the traffic log a client chooses: the path of a request refused for want of the token (a %0a, a raw
// and an encoded U+2028), and, with the token, a REST task id and a JSON-RPC method.
func logForgeRequests(t *testing.T, s *server, token string) {
	t.Helper()
	hp := strings.TrimPrefix(s.url, "http://")
	enc := strings.NewReplacer(" ", "%20", "\n", "%0a", "\u2028", "%e2%80%a8")
	rawHTTP(t, hp, "GET", "/tasks/x%0a"+enc.Replace(forged), nil, "")
	rawHTTP(t, hp, "GET", "/tasks/x\u2028"+enc.Replace(forged), nil, "")
	rawHTTP(t, hp, "GET", "/tasks/x%e2%80%a8"+enc.Replace(forged), nil, "")
	rawHTTP(t, hp, "GET", "/tasks/x%0d%0a"+enc.Replace(forged), nil, "")
	auth := map[string]string{"Authorization": "Bearer " + token, "A2A-Version": "1.0"}
	rawHTTP(t, hp, "GET", "/tasks/x%0a"+enc.Replace(forged), auth, "")
	rpc, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "Get\n" + forged + "\u2028" + forged, "params": map[string]any{}})
	rawHTTP(t, hp, "POST", "/jsonrpc", auth, string(rpc))
}

// TestLogLinesCannotBeForged: a line break a client puts in a path, a task id or a method
// (%0a, %0d%0a, U+2028 raw or encoded) shows escaped in the traffic log, on refused requests (no token) and on calls
// alike, in text and JSON logs: no line of the log starts with the forged one and no U+2028 passes raw. Before the fix
// the 401 line of a %0a path carried the forged line on a line of its own.
func TestLogLinesCannotBeForged(t *testing.T) {
	t.Parallel()
	const token = "t0ken-for-log"
	for _, format := range []string{"text", "json"} {
		s := startServe(t, "--echo", "--transport", "rest,jsonrpc", "--token", token, "--log-format", format)
		logForgeRequests(t, s, token)
		eventually(t, 10*time.Second, "the log lines of six requests", func() bool {
			return strings.Count(s.Log(), "FORGED") >= 5 && strings.Count(s.Log(), "/jsonrpc") >= 1
		})
		s.stop(t)
		log := s.Log()
		if strings.ContainsAny(log, "\u2028\u2029\r") {
			t.Errorf("%s log: a line separator or carriage return passed raw:\n%q", format, log)
		}
		for _, line := range strings.Split(strings.TrimSpace(log), "\n") {
			if strings.HasPrefix(line, forged[:20]) || strings.HasPrefix(line, "127.0.0.1:1 ") || strings.Contains(line, "\x1b") {
				t.Errorf("%s log: a forged line: %q", format, line)
			}
			if format == "json" && !strings.HasPrefix(line, "listening on ") && !json.Valid([]byte(line)) {
				t.Errorf("json log: a line that is no JSON object: %q", line)
			}
		}
		if format == "text" {
			wantContains(t, "text log", log, `GET /tasks/x\n2026-01-01`, `\u2028`)
		}
	}
}

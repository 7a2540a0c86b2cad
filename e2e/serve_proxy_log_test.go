package e2e

import (
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/a2acli/a2a/internal/testagent"
	"github.com/a2acli/a2a/internal/testagent/wire"
	"github.com/a2aproject/a2a-go/v2/a2a"
)

// logLine waits for the proxy's traffic line of method and returns it.
func logLine(t *testing.T, s *server, method string) string {
	t.Helper()
	var line string
	eventually(t, 20*time.Second, "a "+method+" line in the proxy's log", func() bool {
		for l := range strings.SplitSeq(s.Log(), "\n") {
			if strings.Contains(l, " "+method+" task=") {
				line = l
				return true
			}
		}
		return false
	})
	return line
}

// hangUpMidCall sends a unary SendMessage by hand to url+path, waits until the upstream agent holds the call, then
// closes the connection.
func hangUpMidCall(t *testing.T, url, path, body string, ag *testagent.Agent) {
	t.Helper()
	conn, err := net.Dial("tcp", strings.TrimPrefix(url, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "POST %s HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nA2A-Version: 1.0\r\nContent-Length: %d\r\n\r\n%s",
		path, strings.TrimPrefix(url, "http://"), len(body), body)
	eventually(t, 20*time.Second, "the upstream holding the call", func() bool {
		for _, c := range ag.Calls() {
			if c.Method == "SendMessage" {
				return true
			}
		}
		return false
	})
}

// TestProxyLogSaysWhatHappened: the proxy's traffic line tells a caller that hung up from an upstream that failed,
// and a stream that finished logs its outcome. The upstream is a2a-go's server (testagent) holding the call; the
// caller is a raw TCP connection that goes away mid-call.
func TestProxyLogSaysWhatHappened(t *testing.T) {
	t.Parallel()
	const send = `{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"m1","role":"ROLE_USER","parts":[{"text":"hold"}]}}}`

	// The byte path: JSON-RPC in front of a JSON-RPC upstream.
	slow := testagent.Start(t, testagent.Options{Behavior: testagent.Slow, Delay: time.Minute})
	bytes := startServe(t, "--proxy", slow.URL, "--transport", "jsonrpc")
	hangUpMidCall(t, bytes.url, "/jsonrpc", send, slow)
	line := logLine(t, bytes, "SendMessage")
	if !strings.Contains(line, `error="client closed the connection"`) {
		t.Errorf("byte path, caller hung up: log line\n%s\nwant error=\"client closed the connection\"", line)
	}

	// The decoding path: REST in front of a JSON-RPC upstream.
	slow2 := testagent.Start(t, testagent.Options{Behavior: testagent.Slow, Delay: time.Minute})
	decoding := startServe(t, "--proxy", slow2.URL, "--transport", "rest")
	hangUpMidCall(t, decoding.url, "/message:send", `{"message":{"messageId":"m1","role":"ROLE_USER","parts":[{"text":"hold"}]}}`, slow2)
	line = logLine(t, decoding, "SendMessage")
	if !strings.Contains(line, `error="client closed the connection"`) {
		t.Errorf("decoding path, caller hung up: log line\n%s\nwant error=\"client closed the connection\"", line)
	}

	// A stream that reached its final state logs that state and no error, on either path, though the caller hangs
	// up first: the upstream (a hand-written agent) keeps the stream open after input-required, as some agents do.
	hold := wire.Start(t, wire.Options{Kind: wire.HoldInput})
	for _, tr := range []string{"jsonrpc", "rest"} {
		proxy := startServe(t, "--proxy", hold.URL, "--transport", tr)
		r := run(t, "", "send", proxy.url, "go", "--stream", "-o", "json")
		wantCode(t, r, 0)
		if events, _ := jsonLines(t, r.stdout); lastState(t, events) != a2a.TaskStateInputRequired {
			t.Fatalf("%s: stream did not stop at input-required\n%s", tr, r)
		}
		line := logLine(t, proxy, "SendStreamingMessage")
		if !strings.Contains(line, "state=input-required") || strings.Contains(line, "error=") {
			t.Errorf("%s: a stream that reached input-required logged\n%s\nwant state=input-required and no error", tr, line)
		}
	}
}

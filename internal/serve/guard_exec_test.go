package serve_test

import (
	"context"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/a2acli/a2a/internal/serve"
	"github.com/a2acli/a2a/internal/serve/execbackend"
	"github.com/a2acli/a2a/internal/serve/servetest"
	"github.com/a2aproject/a2a-go/v2/a2a"
)

// TestGuardQuietStreamSurvives: the write timeout bounds each write, not a stream: one that stays quiet for much
// longer than it still delivers its events, on every binding (the detached fast path included).
func TestGuardQuietStreamSurvives(t *testing.T) {
	t.Parallel()
	srv := startServer(t, serve.WithTimeouts(serve.Config{Backend: execbackend.New(execbackend.Config{Command: "echo one; sleep 1; echo two", Chunk: []byte("\n")}),
		Quiet: true, Transports: servetest.AllTransports}, 100*time.Millisecond, 100*time.Millisecond))
	for _, tr := range servetest.AllTransports {
		c := servetest.NewClient(t, srv.URL, tr)
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		evs, err := servetest.Collect(t, c.SendStreamingMessage(ctx, servetest.TextMessage("x")))
		cancel()
		texts, _, state := servetest.Chunks(evs)
		if err != nil || state != a2a.TaskStateCompleted || strings.Join(texts, "") != "one\ntwo\n" {
			t.Errorf("%s: quiet stream: %q %s %v", tr, texts, state, err)
		}
	}
}

// TestGuardStalledReaderLetGo: a client that stops reading a stream is let go after the write timeout, on the
// detached fast path and on net/http's, so the task's backpressure does not hold its command for ever: the command
// runs to its end and the task completes although the client never read a byte.
func TestGuardStalledReaderLetGo(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		tr         a2a.TransportProtocol
		path, body string
	}{
		{a2a.TransportProtocolHTTPJSON, "/message:stream", `{"message":{"messageId":"m","role":"ROLE_USER","parts":[{"text":"x"}]}}`},
		{a2a.TransportProtocolJSONRPC, "/jsonrpc", `{"jsonrpc":"2.0","id":1,"method":"SendStreamingMessage","params":{"message":{"messageId":"m","role":"ROLE_USER","parts":[{"text":"x"}]}}}`},
	} {
		srv := startServer(t, serve.WithTimeouts(serve.Config{Backend: execbackend.New(execbackend.Config{Command: "head -c 30000000 /dev/zero | tr '\\0' x | fold -w 1000",
			Chunk: []byte("\n")}), Quiet: true, Transports: []a2a.TransportProtocol{c.tr}}, 0, 100*time.Millisecond))
		conn, err := net.Dial("tcp", strings.TrimPrefix(srv.URL, "http://"))
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		_ = conn.(*net.TCPConn).SetReadBuffer(4096) // best effort: a smaller window fills sooner
		fmt.Fprintf(conn, "POST %s HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s",
			c.path, len(c.body), c.body)
		// Never read: the task can only finish if serve stops writing to this client.
		cl := servetest.NewClient(t, srv.URL, c.tr)
		done := servetest.Eventually(60*time.Second, func() bool {
			res, err := cl.ListTasks(context.Background(), &a2a.ListTasksRequest{})
			return err == nil && len(res.Tasks) == 1 && res.Tasks[0].Status.State == a2a.TaskStateCompleted
		})
		if !done {
			t.Errorf("%s: the task did not complete while its only client stalled", c.tr)
		}
	}
}

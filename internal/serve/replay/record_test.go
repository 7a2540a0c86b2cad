package replay

import (
	"bufio"
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/a2acli/a2a/internal/serve"
	"github.com/a2acli/a2a/internal/serve/proxy"
	"github.com/a2acli/a2a/internal/serve/servetest"
)

// TestRecordConcurrent records concurrent calls into one writer: every line stays whole, and each
// call contributes its user line and its events.
func TestRecordConcurrent(t *testing.T) {
	t.Parallel()
	var buf servetest.SyncBuffer
	srv := startServer(t, serve.Config{Backend: Record(serve.Echo(), &buf), Quiet: true})
	c := servetest.NewClient(t, srv.URL, a2a.TransportProtocolHTTPJSON)
	const calls = 8
	var wg sync.WaitGroup
	for i := range calls {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if i%2 == 0 {
				_, _ = servetest.Collect(t, c.SendStreamingMessage(context.Background(), servetest.TextMessage("s")))
				return
			}
			if _, err := c.SendMessage(context.Background(), servetest.TextMessage("m")); err != nil {
				t.Errorf("SendMessage() = %v", err)
			}
		}()
	}
	wg.Wait()
	users, events := 0, 0
	sc := bufio.NewScanner(strings.NewReader(buf.String()))
	for sc.Scan() {
		var sr a2a.StreamResponse
		if err := json.Unmarshal(sc.Bytes(), &sr); err != nil {
			t.Fatalf("recorded line %q: %v", sc.Text(), err)
		}
		if m, ok := sr.Event.(*a2a.Message); ok && m.Role == a2a.MessageRoleUser {
			users++
		} else {
			events++
		}
	}
	// A stream yields the task, working, the artifact and the final status; a send its task.
	if users != calls || events != calls/2*4+calls/2 {
		t.Errorf("recorded %d user lines and %d events, want %d and %d", users, events, calls, calls/2*4+calls/2)
	}
}

// TestProxyFastRecordUsesEvents: with a recorder, A2A calls take the decoding path so that their
// events are recorded.
func TestProxyFastRecordUsesEvents(t *testing.T) {
	t.Parallel()
	up := startServer(t, serve.Config{Backend: serve.Echo(), Quiet: true})
	var rec servetest.SyncBuffer
	px := startServer(t, serve.Config{Backend: Record(proxy.New(proxy.Config{Connect: servetest.Connector(up.URL)}), &rec), Quiet: true})
	c := servetest.NewClient(t, px.URL, a2a.TransportProtocolHTTPJSON)
	if _, err := c.SendMessage(context.Background(), servetest.TextMessage("r")); err != nil {
		t.Fatalf("SendMessage() = %v", err)
	}
	if n := strings.Count(rec.String(), "\n"); n != 2 {
		t.Errorf("recorded %d lines, want the user's message and the task:\n%s", n, rec.String())
	}
}

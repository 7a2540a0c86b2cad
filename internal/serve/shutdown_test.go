package serve

import (
	"context"
	"testing"
	"time"

	"github.com/a2acli/a2a/internal/serve/servetest"
	"github.com/a2aproject/a2a-go/v2/a2a"
)

// TestShutdownAfterDetachedStream: a connection handed back after a stream does not hold the
// shutdown (net/http would wait 5 seconds for it, as for any connection that has not spoken yet).
func TestShutdownAfterDetachedStream(t *testing.T) {
	t.Parallel()
	srv := startServer(t, Config{Quiet: true, Grace: 20 * time.Second})
	c := servetest.NewClient(t, srv.URL, a2a.TransportProtocolHTTPJSON)
	for _, err := range c.SendStreamingMessage(context.Background(), servetest.TextMessage("hi")) {
		if err != nil {
			t.Fatal(err)
		}
	}
	start := time.Now()
	if err := srv.Shutdown(); err != nil {
		t.Fatalf("Run() = %v after shutdown", err)
	}
	if d := time.Since(start); d > 4*time.Second {
		t.Errorf("shutdown took %v with an idle handed-back connection", d)
	}
}

package serve

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/a2acli/a2a/internal/serve/servetest"
)

// The shared helpers (servetest) under the names these tests use.
type syncBuffer = servetest.SyncBuffer

type testServer struct {
	*servetest.Server
	url string
}

// shutdown stops the server and returns Run's error.
func (s *testServer) shutdown() error { return s.Shutdown() }

// startServer runs cfg on 127.0.0.1:0 and stops it when the test ends.
func startServer(t testing.TB, cfg Config) *testServer {
	t.Helper()
	s := servetest.Start(t, func(ctx context.Context, ready func(string)) error {
		cfg.Ready = ready
		return Run(ctx, cfg)
	})
	return &testServer{Server: s, url: s.URL}
}

var (
	insecureGRPC = servetest.InsecureGRPC
	newClient    = servetest.NewClient
	textMessage  = servetest.TextMessage
	collect      = servetest.Collect
)

var allTransports = []a2a.TransportProtocol{a2a.TransportProtocolHTTPJSON, a2a.TransportProtocolJSONRPC, a2a.TransportProtocolGRPC}

func errorIs(err, target error) bool { return err != nil && errors.Is(err, target) }

// eventually polls cond until it holds or timeout passes, and reports whether it held.
func eventually(timeout time.Duration, cond func() bool) bool {
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for !cond() {
		select {
		case <-deadline.C:
			return cond()
		case <-tick.C:
		}
	}
	return true
}

// partsText joins the text parts.
func partsText(parts a2a.ContentParts) string {
	var b strings.Builder
	for _, p := range parts {
		b.WriteString(p.Text())
	}
	return b.String()
}

package serve

import (
	"context"
	"errors"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/a2acli/a2a/internal/serve/servetest"
)

// The shared helpers (servetest) under the names these tests use.
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
	newClient   = servetest.NewClient
	textMessage = servetest.TextMessage
	collect     = servetest.Collect
	eventually  = servetest.Eventually
	partsText   = servetest.PartsText
)

var allTransports = []a2a.TransportProtocol{a2a.TransportProtocolHTTPJSON, a2a.TransportProtocolJSONRPC, a2a.TransportProtocolGRPC}

func errorIs(err, target error) bool { return err != nil && errors.Is(err, target) }

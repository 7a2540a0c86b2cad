package replay

import (
	"context"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2aclient"
	"github.com/a2aproject/a2a-go/v2/a2aclient/agentcard"

	"github.com/a2acli/a2a/internal/serve"
	"github.com/a2acli/a2a/internal/serve/servetest"
)

// The shared helpers (servetest) under the names these tests use.
type syncBuffer = servetest.SyncBuffer

type testServer struct {
	*servetest.Server
	url string
}

// startServer runs cfg on 127.0.0.1:0 and stops it when the test ends.
func startServer(t testing.TB, cfg serve.Config) *testServer {
	t.Helper()
	s := servetest.Start(t, func(ctx context.Context, ready func(string)) error {
		cfg.Ready = ready
		return serve.Run(ctx, cfg)
	})
	return &testServer{Server: s, url: s.URL}
}

var (
	insecureGRPC = servetest.InsecureGRPC
	newClient    = servetest.NewClient
	textMessage  = servetest.TextMessage
	collect      = servetest.Collect
)

// connector connects to url like the CLI's client factory does.
func connector(url string) func(ctx context.Context) (*a2aclient.Client, *a2a.AgentCard, error) {
	return func(ctx context.Context) (*a2aclient.Client, *a2a.AgentCard, error) {
		card, err := agentcard.DefaultResolver.Resolve(ctx, url)
		if err != nil {
			return nil, nil, err
		}
		c, err := a2aclient.NewFromCard(ctx, card, insecureGRPC)
		if err != nil {
			return nil, nil, err
		}
		return c, card, nil
	}
}

package execbackend

import (
	"context"
	"testing"

	"github.com/a2acli/a2a/internal/serve"
	"github.com/a2acli/a2a/internal/serve/servetest"
)

// startServer runs cfg on 127.0.0.1:0 and stops it when the test ends.
func startServer(t testing.TB, cfg serve.Config) *servetest.Server {
	t.Helper()
	return servetest.Start(t, func(ctx context.Context, ready func(string)) error { cfg.Ready = ready; return serve.Run(ctx, cfg) })
}

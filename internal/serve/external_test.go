package serve_test

// The tests of package serve_test run the server with the backends of other packages (serve/execbackend,
// serve/proxy), which import serve: serve's own tests cannot. They share serve's helpers (servetest).

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

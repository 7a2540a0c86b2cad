package serve

import (
	"time"

	"github.com/a2acli/a2a/internal/store/pgtest"
)

// WithTimeouts sets cfg's connection timeouts (guard.go) for the tests of package serve_test; 0 keeps a default.
func WithTimeouts(cfg Config, read, write time.Duration) Config {
	cfg.readTimeout, cfg.writeTimeout = read, write
	return cfg
}

// EchoAgent is the echo backend's agent, for an upstream in the proxy's tests.
type EchoAgent = echoAgent

// PostgresURL is a new database on this package's PostgreSQL server (TestMain stops it); the test is skipped
// without PostgreSQL.
var PostgresURL = postgresURL

// PostgresServer is the PostgreSQL server PostgresURL creates databases on: nil (and why) without its binaries.
func PostgresServer() (*pgtest.Server, error) { return pg.Server() }

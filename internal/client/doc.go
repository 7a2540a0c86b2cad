// Package client reaches an A2A agent: it reads the agent reference (base URL, host:port, card URL or card file),
// fetches and checks the card, chooses the transport (the card's order, --transport, the gRPC probe of a card-less
// port), and opens an a2a-go client over one HTTP client per run (Dialer) with the run's policies: service
// parameters and credentials (kept on the named origin, see credGuard), client TLS, response limits, -v logging
// with credentials redacted, and typed errors (UsageError, CardError, HTTPStatusError, UnreachableError, ...) that
// the CLI maps to exit codes. Unary and Stream bound calls by --timeout. It also makes the plain HTTP calls a coding
// agent's slash commands need beside the protocol (cmdhttp.go), and builds the connections a server makes to the
// agent it fronts (Upstream: serve --proxy's two paths, the A3S dial) by the same rules.
//
// It must not import cobra, internal/output or internal/cli: it knows nothing of flags or of how results are shown.
package client

package proxy

import (
	"time"

	"github.com/a2acli/a2a/internal/redact"
)

// Log is the server's traffic log as the byte path writes to it (the decoding path is logged by
// the server around the handler): one line per call, and when verbose the request's parameters
// and the payloads.
type Log interface {
	Quiet() bool
	Verbose() bool
	Printf(format string, args ...any)
	// End writes the call's line.
	End(c *Call, err error)
}

// Call is what the traffic log's line says about one call.
type Call struct {
	Method    string
	Start     time.Time
	ID, State string
	Bytes     int
	Events    int
}

// maxLoggedPayload bounds one payload in the verbose traffic log, as package serve's does.
const maxLoggedPayload = 4096

// formatParams renders request parameters with credentials redacted, sorted by name, as package
// serve's traffic log does.
func formatParams(params map[string][]string) string { return redact.Lines(params, " %s=%s", ",") }

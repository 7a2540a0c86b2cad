package proxy

import (
	"net/http"
	"time"

	"github.com/a2acli/a2a/internal/redact"
)

// Log is the server's traffic log as the byte path writes to it (the decoding path is logged by
// the server around the handler): one line per call, and when verbose the request's parameters
// and the payloads.
type Log interface {
	// Records reports whether calls are recorded at all (a log line, metrics or an observer): when
	// not, the byte path keeps no record.
	Records() bool
	// Verbose reports whether requests and payloads are logged.
	Verbose() bool
	Printf(format string, args ...any)
	// Begin starts the record of a call forwarded byte for byte: in is the caller's request (its
	// headers are not changed afterwards), route where it came, body its bytes.
	Begin(in *http.Request, route Route, method, taskID string, body []byte) *Call
	// Event reports one answer payload (a unary answer or a stream event's data) of a watched call;
	// data is not modified afterwards.
	Event(c *Call, data []byte)
	// HandOff drops the record of a call the A2A handler answered: that handler records it itself.
	HandOff(c *Call)
	// End writes the call's line, counts it and ends its observation.
	End(c *Call, err error)
}

// Call is what the traffic log's line says about one call.
type Call struct {
	Method    string
	Start     time.Time
	ID, State string
	Bytes     int
	Events    int
	// Watched says an observer wants the call's payloads (Log.Event).
	Watched bool
	// Rec is the server's own record of the call; the proxy does not look inside.
	Rec any
}

// maxLoggedPayload bounds one payload in the verbose traffic log, as package serve's does.
const maxLoggedPayload = 4096

// formatParams renders request parameters with credentials redacted, sorted by name, as package
// serve's traffic log does.
func formatParams(params map[string][]string) string { return redact.Lines(params, " %s=%s", ",") }

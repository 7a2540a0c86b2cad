package output

import (
	"strings"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/a2acli/a2a/internal/termsafe"
)

// Sanitize makes agent-supplied text safe to print on a terminal (see termsafe.Sanitize): escape sequences are
// removed whole, carriage returns dropped, other control characters shown escaped, invalid UTF-8 replaced.
func Sanitize(s string) string { return termsafe.Sanitize(s) }

// Line is Sanitize for a name or id an agent chose, which must stay on one line and show every character it
// holds (see termsafe.Line): line breaks, tabs and zero-width joiners are shown escaped too.
func Line(s string) string { return termsafe.Line(s) }

// ShortState turns a protocol state into the short lower-case word users type and read:
// "TASK_STATE_INPUT_REQUIRED" becomes "input-required", "" becomes "unknown". A state this
// package does not know is lower-cased the same way, after sanitising.
func ShortState(s a2a.TaskState) string {
	if s == a2a.TaskStateUnspecified {
		return "unknown"
	}
	v := strings.TrimPrefix(Sanitize(string(s)), "TASK_STATE_")
	return strings.ReplaceAll(strings.ToLower(v), "_", "-")
}

// shortRole turns ROLE_AGENT into "agent" and ROLE_USER into "user".
func shortRole(r a2a.MessageRole) string {
	switch r {
	case a2a.MessageRoleAgent:
		return "agent"
	case a2a.MessageRoleUser:
		return "user"
	case a2a.MessageRoleUnspecified:
		return "unknown"
	}
	return strings.ToLower(strings.TrimPrefix(Sanitize(string(r)), "ROLE_"))
}

package cli

import (
	"strings"

	"github.com/a2acli/a2a/internal/redact"
)

// hasCredentials reports whether the user gave any credential: --auth, --bearer, --api-key or a credential service
// parameter.
func (o *globalOptions) hasCredentials() bool {
	if o.Auth != "" || o.Bearer != "" || o.APIKey != "" {
		return true
	}
	for _, kv := range o.SvcParams {
		if k, _, _ := strings.Cut(kv, "="); redact.Sensitive(strings.TrimSpace(k)) {
			return true
		}
	}
	return false
}

package cli

import (
	"strings"

	"github.com/a2acli/a2a/internal/client"
	"github.com/a2acli/a2a/internal/redact"
)

// hasCredentials reports whether the user gave any credential: --auth, --bearer, --api-key or a credential service
// parameter.
func (o *globalOptions) hasCredentials() bool {
	if o.Auth != "" || o.Bearer != "" || o.APIKey != "" {
		return true
	}
	for _, kv := range o.SvcParams {
		if redact.Sensitive(svcParamKey(kv)) {
			return true
		}
	}
	return false
}

// sentCredentials reports whether any credential given went out: --auth or a credential service parameter (which go
// as given), or --bearer or --api-key when not among the withheld.
func (o *globalOptions) sentCredentials(withheld []client.WithheldCredential) bool {
	if o.Auth != "" {
		return true
	}
	for _, kv := range o.SvcParams {
		if redact.Sensitive(svcParamKey(kv)) {
			return true
		}
	}
	held := map[string]bool{}
	for _, w := range withheld {
		held[w.Flag] = true
	}
	return (o.Bearer != "" && !held["--bearer"] && !held[o.BearerFrom]) || (o.APIKey != "" && !held["--api-key"])
}

// svcParamKey is the key of a --svc-param: before its first = (the seed's key=value) or : (the specification's
// key:value), whichever comes first.
func svcParamKey(kv string) string {
	if i := strings.IndexAny(kv, "=:"); i >= 0 {
		kv = kv[:i]
	}
	return strings.TrimSpace(kv)
}

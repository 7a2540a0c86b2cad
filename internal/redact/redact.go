// Package redact hides credentials in what a2a logs: the values of headers, service parameters and JSON fields
// whose names say they carry one. Both the client's -v log and the server's traffic log use it, so a credential
// is hidden the same way wherever it travels. Standard library only.
package redact

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"sync"
)

// pairs matches a JSON string member, "name": "value" (the value possibly cut off at the end of the input).
// Compiled on first use: compiling at init cost every a2a start-up a quarter of a millisecond.
var pairs = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`"([^"\\]{1,64})"\s*:\s*"((?:[^"\\]|\\.)*)`)
})

// Mask replaces a credential.
const Mask = "***"

// Whether a name carries a credential is decided by its last word, as in "Authorization", "X-Api-Key",
// "access_token", "clientSecret", "Set-Cookie": a secret is named by what it is. A word merely inside a name
// ("inputTokens", "tokenUrl", "supportsAuthenticatedExtendedCard", "auth-required") names a count, a flag or an
// address, which the user needs to see.

// secretLast are the last words that name a credential.
var secretLast = []string{
	"authorization", "auth", "token", "secret", "password", "passwd", "passphrase", "pwd", "cookie", "credential",
	"credentials", "bearer", "apikey", "jwt", "signature", "session",
}

// secretEnds are the secrets' names that also mark a last word they end ("PGPASSWORD", "AUTHTOKEN", "xapikey"):
// names written without separators.
var secretEnds = []string{
	"token", "secret", "password", "passwd", "passphrase", "cookie", "credential", "credentials", "authorization", "apikey",
}

// secretKeys are the words before a last "key" that make it a credential ("X-Api-Key", "secret_key"); other keys
// ("tls-key" names a file, "idempotencyKey" a request) are not.
var secretKeys = []string{
	"api", "access", "secret", "private", "auth", "client", "signing", "session", "master", "account", "subscription",
}

// Sensitive reports whether a header, parameter or field name carries a credential. It allocates nothing: the
// proxy asks it of every header of every call.
func Sensitive(name string) bool {
	prev, last := lastWords(name)
	switch {
	case last == "":
		return false
	case strings.EqualFold(last, "token") && (strings.EqualFold(prev, "page") || strings.EqualFold(prev, "next")):
		return false // a page cursor
	case oneOf(last, secretLast) || endsOneOf(last, secretEnds):
		return true
	case strings.EqualFold(last, "key"):
		return oneOf(prev, secretKeys)
	case strings.EqualFold(last, "id") || strings.EqualFold(last, "sid"):
		return strings.EqualFold(prev, "session") // a session id is the session's credential
	}
	return false
}

func endsOneOf(w string, list []string) bool {
	for _, s := range list {
		if len(w) > len(s) && strings.EqualFold(w[len(w)-len(s):], s) {
			return true
		}
	}
	return false
}

func oneOf(w string, list []string) bool {
	for _, s := range list {
		if strings.EqualFold(w, s) {
			return true
		}
	}
	return false
}

// lastWords returns the last two words of a name (prev is "" when there is one): words end at every byte that is
// not an ASCII letter or digit (bytes beyond ASCII count as letters), and at the case changes of camelCase
// ("inputTokens", "APIKey").
func lastWords(name string) (prev, last string) {
	start := -1
	word := func(end int) {
		if start >= 0 {
			prev, last = last, name[start:end]
			start = -1
		}
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !isLetter(c) && !isDigit(c) {
			word(i)
			continue
		}
		if isUpper(c) && start >= 0 {
			p := name[i-1]
			nextLower := i+1 < len(name) && isLower(name[i+1])
			if isLower(p) || isDigit(p) || (isUpper(p) && nextLower) {
				word(i)
			}
		}
		if start < 0 {
			start = i
		}
	}
	word(len(name))
	return prev, last
}

func isUpper(c byte) bool  { return 'A' <= c && c <= 'Z' }
func isLower(c byte) bool  { return 'a' <= c && c <= 'z' }
func isDigit(c byte) bool  { return '0' <= c && c <= '9' }
func isLetter(c byte) bool { return isUpper(c) || isLower(c) || c >= 0x80 }

// Value returns vals joined by sep, or Mask when name is sensitive.
func Value(name string, vals []string, sep string) string {
	if Sensitive(name) {
		return Mask
	}
	return strings.Join(vals, sep)
}

// Lines renders params sorted by name, one fmt.Sprintf(format, name, value) each, values joined by sep and masked
// where the name is sensitive.
func Lines(params map[string][]string, format, sep string) string {
	names := make([]string, 0, len(params))
	for k := range params {
		names = append(names, k)
	}
	sort.Strings(names)
	var b strings.Builder
	for _, k := range names {
		fmt.Fprintf(&b, format, k, Value(k, params[k], sep))
	}
	return b.String()
}

// JSON returns raw with the values of sensitive fields replaced by Mask, at any depth (objects under a
// sensitive name are searched, not replaced whole). Input that does not parse (a payload cut short for the log)
// has every "name": "value" pair with a sensitive name masked instead.
func JSON(raw []byte) []byte {
	var doc any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if dec.Decode(&doc) != nil {
		re := pairs()
		return re.ReplaceAllFunc(raw, func(m []byte) []byte {
			sub := re.FindSubmatchIndex(m)
			if !Sensitive(string(m[sub[2]:sub[3]])) {
				return m
			}
			return append(append(append([]byte{}, m[:sub[4]]...), Mask...), m[sub[5]:]...)
		})
	}
	out, err := json.Marshal(walk(doc))
	if err != nil {
		return raw
	}
	return out
}

func walk(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, val := range x {
			if _, obj := val.(map[string]any); Sensitive(k) && !obj {
				x[k] = Mask
				continue
			}
			x[k] = walk(val)
		}
	case []any:
		for i := range x {
			x[i] = walk(x[i])
		}
	}
	return v
}

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
	"unicode"
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
var secretLast = map[string]bool{
	"authorization": true, "auth": true, "token": true, "secret": true, "password": true, "passwd": true,
	"passphrase": true, "pwd": true, "cookie": true, "credential": true, "credentials": true, "bearer": true,
	"apikey": true, "jwt": true, "signature": true,
}

// secretKeys are the words before a last "key" that make it a credential ("X-Api-Key", "secret_key"); other keys
// ("tls-key" names a file, "idempotencyKey" a request) are not.
var secretKeys = map[string]bool{
	"api": true, "access": true, "secret": true, "private": true, "auth": true, "client": true, "signing": true,
	"session": true, "master": true, "account": true, "subscription": true,
}

// Sensitive reports whether a header, parameter or field name carries a credential.
func Sensitive(name string) bool {
	w := words(name)
	if len(w) == 0 {
		return false
	}
	last, prev := w[len(w)-1], ""
	if len(w) > 1 {
		prev = w[len(w)-2]
	}
	switch {
	case last == "token" && (prev == "page" || prev == "next"):
		return false // a page cursor
	case secretLast[last]:
		return true
	case last == "key":
		return secretKeys[prev]
	case last == "id" || last == "sid":
		return prev == "session" // a session id is the session's credential
	}
	return false
}

// words splits a name into its lower-case words: at every character that is not a letter or digit, and at the
// case changes of camelCase ("inputTokens", "APIKey").
func words(name string) []string {
	var out []string
	var cur []rune
	rs := []rune(name)
	flush := func() {
		if len(cur) > 0 {
			out = append(out, strings.ToLower(string(cur)))
			cur = cur[:0]
		}
	}
	for i, r := range rs {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			flush()
			continue
		}
		if unicode.IsUpper(r) && len(cur) > 0 {
			prevLower := unicode.IsLower(rs[i-1]) || unicode.IsDigit(rs[i-1])
			nextLower := i+1 < len(rs) && unicode.IsLower(rs[i+1])
			if prevLower || (unicode.IsUpper(rs[i-1]) && nextLower) {
				flush()
			}
		}
		cur = append(cur, r)
	}
	flush()
	return out
}

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

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

// secretWords are the name fragments that mark a credential ("Authorization", "X-Api-Key", "access_token", …).
var secretWords = []string{"key", "token", "secret", "auth", "password", "credential", "session", "cookie"}

// Sensitive reports whether a header, parameter or field name carries a credential.
func Sensitive(name string) bool {
	n := strings.ToLower(name)
	for _, w := range secretWords {
		if strings.Contains(n, w) {
			return true
		}
	}
	return false
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

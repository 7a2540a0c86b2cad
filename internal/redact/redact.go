// Package redact hides credentials in what a2a logs: the values of headers, service parameters and JSON fields
// whose names say they carry one, and the passwords of database connection strings (Conn). Both the client's -v log and the server's traffic log use it, so a credential
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

// connMask replaces a password in a connection string; url.URL.Redacted's choice, so both read the same.
const connMask = "xxxxx"

// Conn returns a database connection string with its secrets masked, and those secrets (unescaped) so that the
// caller can scrub them from the driver's errors too. It takes every form libpq accepts: a URL (postgres://user:PW@…,
// with password=, sslpassword= or any sensitive parameter in the query) and a key=value string (password=PW,
// password='p w\'d'). Text it cannot parse is masked from the first sign of trouble on, when it holds a secret word.
func Conn(raw string) (shown string, secrets []string) {
	// A URL's scheme holds none of these; "?://" is not a URL but text that has "://" in its query.
	if i := strings.Index(raw, "://"); i > 0 && !strings.ContainsAny(raw[:i], " =?#/@") {
		return connURL(raw)
	}
	return connKV(raw)
}

func connURL(raw string) (string, []string) {
	var secrets []string
	base, query, hasQuery := strings.Cut(raw, "?")
	// userinfo: from "://" to the last '@' before the query (a password with an unescaped '/' or '#' included).
	i := strings.Index(base, "://") + 3
	if at := strings.LastIndexByte(base[i:], '@'); at >= 0 {
		user, pw, ok := strings.Cut(base[i:i+at], ":")
		if ok {
			secrets = appendSecret(secrets, pw)
			base = base[:i] + user + ":" + connMask + base[i+at:]
		}
	}
	if !hasQuery {
		return base, secrets
	}
	params := strings.Split(query, "&")
	for k, p := range params {
		name, val, ok := strings.Cut(p, "=")
		if n, err := urlUnescape(name); err == nil {
			name = n
		}
		if ok && connSecret(name) {
			secrets = appendSecret(secrets, val)
			params[k] = p[:len(p)-len(val)] + connMask
		}
	}
	return base + "?" + strings.Join(params, "&"), secrets
}

// appendSecret adds a secret as written and unescaped (both may appear in an error).
func appendSecret(secrets []string, s string) []string {
	if s == "" {
		return secrets
	}
	secrets = append(secrets, s)
	if u, err := urlUnescape(s); err == nil && u != s && u != "" {
		secrets = append(secrets, u)
	}
	return secrets
}

// urlUnescape is url.QueryUnescape without importing net/url into every binary that logs.
func urlUnescape(s string) (string, error) {
	if !strings.ContainsAny(s, "%+") {
		return s, nil
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '+':
			b.WriteByte(' ')
		case c == '%':
			if i+2 >= len(s) || unhex(s[i+1]) < 0 || unhex(s[i+2]) < 0 {
				return "", fmt.Errorf("bad escape")
			}
			b.WriteByte(byte(unhex(s[i+1])<<4 | unhex(s[i+2])))
			i += 2
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), nil
}

func unhex(c byte) int {
	switch {
	case '0' <= c && c <= '9':
		return int(c - '0')
	case 'a' <= c && c <= 'f':
		return int(c-'a') + 10
	case 'A' <= c && c <= 'F':
		return int(c-'A') + 10
	}
	return -1
}

// connKV masks the sensitive values of a libpq key=value string: keys and values separated by '=' with optional
// spaces around it, values bare or single-quoted, a backslash escaping the next character in both.
func connKV(raw string) (string, []string) {
	var b strings.Builder
	var secrets []string
	i := 0
	isSpace := func(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v' }
	for i < len(raw) {
		start := i
		for i < len(raw) && isSpace(raw[i]) {
			i++
		}
		k := i
		for i < len(raw) && raw[i] != '=' && !isSpace(raw[i]) {
			i++
		}
		key := raw[k:i]
		for i < len(raw) && isSpace(raw[i]) {
			i++
		}
		if key == "" && i == len(raw) {
			b.WriteString(raw[start:])
			break
		}
		if i == len(raw) || raw[i] != '=' || key == "" {
			return b.String() + raw[start:k] + looseRest(raw[k:]), secrets
		}
		i++
		for i < len(raw) && isSpace(raw[i]) {
			i++
		}
		v := i
		var val strings.Builder
		if i < len(raw) && raw[i] == '\'' {
			i++
			closed := false
			for i < len(raw) {
				c := raw[i]
				if c == '\\' && i+1 < len(raw) {
					val.WriteByte(raw[i+1])
					i += 2
					continue
				}
				i++
				if c == '\'' {
					closed = true
					break
				}
				val.WriteByte(c)
			}
			if !closed {
				return b.String() + raw[start:k] + looseRest(raw[k:]), secrets
			}
		} else {
			for i < len(raw) && !isSpace(raw[i]) {
				if raw[i] == '\\' && i+1 < len(raw) {
					i++
				}
				val.WriteByte(raw[i])
				i++
			}
		}
		if connSecret(key) {
			if val.Len() > 0 {
				secrets = append(secrets, val.String())
				if s := raw[v:i]; s != val.String() {
					secrets = append(secrets, s)
				}
			}
			b.WriteString(raw[start:v] + connMask)
			continue
		}
		b.WriteString(raw[start:i])
	}
	return b.String(), secrets
}

// connSecret tells a connection string's secret parameters (password, sslpassword, any case) and its loose text that
// may hold one. It is wider than Sensitive, which judges header and field names by their last word: in a connection
// string, masking a harmless value costs nothing and a missed password leaks the database.
func connSecret(s string) bool {
	l := strings.ToLower(s)
	for _, w := range []string{"pass", "secret", "token", "key"} {
		if strings.Contains(l, w) {
			return true
		}
	}
	return Sensitive(s)
}

// looseRest is what is left of a connection string that stopped parsing: masked whole when it may hold a secret.
func looseRest(rest string) string {
	if connSecret(rest) {
		return connMask
	}
	return rest
}

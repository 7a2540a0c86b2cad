package termsafe

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// ShellQuote quotes s for a POSIX shell when it needs it, for the commands the CLI prints for a user to paste. A
// string with control characters (an agent's task id can hold anything) gets $'…' quoting with escapes, so no byte
// of it reaches the terminal raw.
func ShellQuote(s string) string {
	if hasControl(s) {
		return dollarQuote(s)
	}
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./:@=,+", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// hasControl reports whether s holds a byte or rune a terminal may act on or a reader cannot see: C0 and C1
// controls, DEL, bidirectional controls, zero-width characters, line separators, or invalid UTF-8.
func hasControl(s string) bool {
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 || isControlRune(r) {
			return true
		}
		i += size
	}
	return false
}

func isControlRune(r rune) bool { return IsControl(r) || isJoiner(r) }

// dollarQuote quotes s as $'…' (bash, zsh, ksh, POSIX.1-2024 sh): every control byte written as \xHH, so the
// command still names the exact bytes while the terminal sees only printable text.
func dollarQuote(s string) string {
	var b strings.Builder
	b.WriteString("$'")
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1 || isControlRune(r):
			for _, c := range []byte(s[i : i+size]) {
				fmt.Fprintf(&b, `\x%02x`, c)
			}
		case r == '\\' || r == '\'':
			b.WriteByte('\\')
			b.WriteRune(r)
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	b.WriteByte('\'')
	return b.String()
}

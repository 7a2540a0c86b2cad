// Package termsafe makes text that came from the network safe to print on a terminal: the one sanitiser both
// the text output and serve's traffic log use (Sanitize), and the quoting of such text in the commands the CLI
// prints for a user to paste (ShellQuote). Standard library only.
package termsafe

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

const esc = 0x1b

// Sanitize makes text that came from the network safe to print on a terminal. Escape sequences (CSI, OSC,
// DCS, SOS, PM, APC, two-byte ESC sequences and their 8-bit C1 forms) are removed whole,
// carriage returns are dropped (so a line cannot be overwritten), and any other control
// character (C0 except \n and \t, DEL, C1, bidirectional overrides) is shown as a visible
// escape such as \x07 or \u0085. Invalid UTF-8 becomes U+FFFD. Printable Unicode is kept.
func Sanitize(s string) string {
	if isClean(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b.WriteRune(utf8.RuneError)
			i++
		case r == esc:
			i = skipEscape(s, i+1)
		case r == 0x9b: // 8-bit CSI
			i = skipCSI(s, i+size)
		case r == 0x90 || r == 0x98 || r == 0x9d || r == 0x9e || r == 0x9f: // DCS, SOS, OSC, PM, APC
			i = skipString(s, i+size)
		case r == '\r':
			i += size
		case r == '\n' || r == '\t':
			b.WriteByte(byte(r))
			i += size
		case IsControl(r):
			if r < 0x80 {
				fmt.Fprintf(&b, `\x%02x`, r)
			} else {
				fmt.Fprintf(&b, `\u%04x`, r)
			}
			i += size
		default:
			b.WriteString(s[i : i+size])
			i += size
		}
	}
	return b.String()
}

// isClean is the fast path: plain printable ASCII (plus \n and \t) needs no work.
func isClean(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x80 || c == 0x7f || (c < 0x20 && c != '\n' && c != '\t') {
			return false
		}
	}
	return true
}

// IsControl reports runes that must never reach a terminal raw. Bidi overrides and isolates
// are included because they can make displayed text differ from what was sent.
func IsControl(r rune) bool {
	switch {
	case r < 0x20, r == 0x7f, r >= 0x80 && r <= 0x9f:
		return true
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
		return true
	}
	return false
}

// skipEscape returns the index just past the escape sequence whose ESC ended before i.
func skipEscape(s string, i int) int {
	if i >= len(s) {
		return i
	}
	switch s[i] {
	case '[':
		return skipCSI(s, i+1)
	case ']', 'P', 'X', '^', '_':
		return skipString(s, i+1)
	}
	// nF sequences: intermediates 0x20-0x2F, then one final byte 0x30-0x7E.
	for i < len(s) && s[i] >= 0x20 && s[i] <= 0x2f {
		i++
	}
	if i < len(s) && s[i] >= 0x30 && s[i] <= 0x7e {
		i++
	}
	return i
}

// skipCSI skips parameter and intermediate bytes and the final byte of a control sequence.
// A byte outside the grammar ends the sequence without being consumed.
func skipCSI(s string, i int) int {
	for i < len(s) && s[i] >= 0x20 && s[i] <= 0x3f {
		i++
	}
	if i < len(s) && s[i] >= 0x40 && s[i] <= 0x7e {
		i++
	}
	return i
}

// skipString skips a control string (OSC, DCS, ...) up to and including its terminator:
// BEL, ESC \ or the 8-bit ST. An unterminated string runs to the end, as a terminal would
// swallow it too.
func skipString(s string, i int) int {
	for i < len(s) {
		switch {
		case s[i] == 0x07:
			return i + 1
		case s[i] == esc:
			if i+1 < len(s) && s[i+1] == '\\' {
				return i + 2
			}
			return i // a new escape sequence aborts the string; let the caller see it
		case strings.HasPrefix(s[i:], "\u009c"):
			return i + len("\u009c")
		}
		i++
	}
	return i
}

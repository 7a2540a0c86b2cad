// Package termsafe makes text that came from the network safe to print on a terminal: the one sanitiser both
// the text output and serve's traffic log use (Sanitize, and Line for a value that must stay on its line: a log
// field, a name), and the quoting of such text in the commands the CLI prints for a user to paste (ShellQuote).
// Standard library only.
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
// character (C0 except \n and \t, DEL, C1, the IsControl runes) is shown as a visible
// escape such as \x07 or \u2028. Invalid UTF-8 becomes U+FFFD. Printable Unicode is kept, the
// zero-width joiners too (emoji sequences and Persian text need them).
func Sanitize(s string) string { return sanitize(s, false) }

// Line is Sanitize for a value that must stay on one line and show every character it holds: a field of a log
// line, a name or id an agent chose. Line breaks and tabs (\n, \r, \t, \v, \f) are shown as escapes instead of
// kept or dropped, and so are the zero-width joiners U+200C and U+200D, so "admin" and "ad\u200dmin" differ.
func Line(s string) string { return sanitize(s, true) }

func sanitize(s string, line bool) string {
	if isClean(s) && (!line || strings.IndexAny(s, "\n\t") < 0) {
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
		case line && (r == '\n' || r == '\r' || r == '\t' || r == '\v' || r == '\f'):
			k := 2 * int(r-'\t')
			b.WriteString(lineEscapes[k : k+2])
			i += size
		case r == '\r':
			i += size
		case r == '\n' || r == '\t':
			b.WriteByte(byte(r))
			i += size
		case IsControl(r) || (line && isJoiner(r)):
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

// lineEscapes is the escape of a line break or tab, as Go writes it: lineEscapes[r-'\t'] for r in \t…\r.
const lineEscapes = `\t\n\v\f\r`

// IsControl reports runes that must never reach a terminal raw. Bidirectional controls (overrides, isolates,
// the marks U+200E, U+200F and U+061C) are included because they can make displayed text differ from what was
// sent; the zero-width space and no-break space (U+200B, U+FEFF) and the word joiner (U+2060) because they
// cannot be seen; the line and paragraph separators (U+2028, U+2029) because some terminals and log readers
// break lines at them.
func IsControl(r rune) bool {
	switch {
	case r < 0x20, r == 0x7f, r >= 0x80 && r <= 0x9f:
		return true
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
		return true
	case r == 0x061c, r == 0x200b, r == 0x200e, r == 0x200f, r == 0x2028, r == 0x2029, r == 0x2060, r == 0xfeff:
		return true
	}
	return false
}

// isJoiner reports the zero-width non-joiner and joiner: invisible, but a part of emoji sequences and of Persian
// and Indic text, so only Line shows them escaped.
func isJoiner(r rune) bool { return r == 0x200c || r == 0x200d }

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

package termsafe

import "testing"

func TestSanitizeInvisible(t *testing.T) {
	for _, tc := range []struct{ in, sanitized, line string }{
		{"plain", "plain", "plain"},
		{"a\nb\tc", "a\nb\tc", `a\nb\tc`},
		{"a\rb", "ab", `a\rb`},
		{"v\vf\f", `v\x0bf\x0c`, `v\vf\f`},
		{"zw\u200bsp", `zw\u200bsp`, `zw\u200bsp`},
		{"ad\u200dmin", "ad\u200dmin", `ad\u200dmin`},
		{"non\u200cjoiner", "non\u200cjoiner", `non\u200cjoiner`},
		{"lrm\u200e rlm\u200f alm\u061c", `lrm\u200e rlm\u200f alm\u061c`, `lrm\u200e rlm\u200f alm\u061c`},
		{"rlo\u202eevil\u202c", `rlo\u202eevil\u202c`, `rlo\u202eevil\u202c`},
		{"iso\u2066x\u2069", `iso\u2066x\u2069`, `iso\u2066x\u2069`},
		{"ls\u2028ps\u2029", `ls\u2028ps\u2029`, `ls\u2028ps\u2029`},
		{"\ufeffbom wj\u2060", `\ufeffbom wj\u2060`, `\ufeffbom wj\u2060`},
		{"emoji 👩\u200d💻 ok", "emoji 👩\u200d💻 ok", `emoji 👩\u200d💻 ok`},
		{"esc \x1b[31mred", "esc red", "esc red"},
	} {
		if got := Sanitize(tc.in); got != tc.sanitized {
			t.Errorf("Sanitize(%q) = %q, want %q", tc.in, got, tc.sanitized)
		}
		if got := Line(tc.in); got != tc.line {
			t.Errorf("Line(%q) = %q, want %q", tc.in, got, tc.line)
		}
	}
}

func TestShellQuoteInvisible(t *testing.T) {
	if got, want := ShellQuote("ad\u200dmin"), `$'ad\xe2\x80\x8dmin'`; got != want {
		t.Errorf("ShellQuote = %s, want %s", got, want)
	}
}

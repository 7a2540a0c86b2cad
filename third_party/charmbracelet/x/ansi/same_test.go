package ansi_test

import (
	"bytes"
	"math/rand/v2"
	"testing"

	upstream "github.com/charmbracelet/x/ansi"
	upparser "github.com/charmbracelet/x/ansi/parser"

	"github.com/a2acli/a2a/third_party/charmbracelet/x/ansi"
	"github.com/a2acli/a2a/third_party/charmbracelet/x/ansi/parser"
)

// TestTableIsGenerated holds the patch's table to the release's: the literal in table_gen.go, what this copy's
// GenerateTransitionTable builds, and what github.com/charmbracelet/x/ansi/parser v0.8.0 builds in its init.
func TestTableIsGenerated(t *testing.T) {
	if !bytes.Equal(parser.Table, parser.GenerateTransitionTable()) {
		t.Fatal("table_gen.go is not what GenerateTransitionTable builds: run `go run gen_table.go` in parser/")
	}
	if !bytes.Equal(parser.Table, upparser.Table) {
		t.Fatal("the table differs from the release's")
	}
}

// pieces are what the inputs are made of: words, spaces and breaks, wide and combining characters, emoji sequences,
// controls, escape sequences of every kind (SGR, CSI with intermediates, OSC ended by BEL and by ST, DCS, APC, a lone
// ESC) and bytes that are not UTF-8.
var pieces = []string{
	"a", "word", "longerwordthanaline", " ", "  ", "\t", "\n", "-", "—", "nbsp\u00a0x", "é", "e\u0301", "日本語", "漢",
	"👍", "👍🏽", "👨‍👩‍👧", "🇫🇷", "\u200b", "\u00ad", "x\u200dy", "\x07", "\x00", "\r", "\x7f", "\x1b[31m", "\x1b[0m",
	"\x1b[1;38;5;208m", "\x1b[?25l", "\x1b]8;;http://x\x07", "\x1b]8;;\x1b\\", "\x1bP1$r\x1b\\", "\x1b_apc\x1b\\",
	"\x1b", "\x9b31m", "\xff", "\xc3", "\xe2\x82", "ASCII text, with punctuation.",
}

func corpus(n int) []string {
	r := rand.New(rand.NewPCG(1, 2))
	out := append([]string{""}, pieces...)
	for range n {
		var b bytes.Buffer
		for range r.IntN(24) {
			b.WriteString(pieces[r.IntN(len(pieces))])
		}
		out = append(out, b.String())
	}
	return out
}

// TestSameAsUpstream is the differential test of the copy: every function a2a uses, and those they share code with,
// give the release's result on a corpus of generated strings, at every width from 0 to 30.
func TestSameAsUpstream(t *testing.T) {
	for _, s := range corpus(1000) {
		same(t, s)
	}
}

// FuzzSameAsUpstream runs the same comparison on inputs the fuzzer makes.
func FuzzSameAsUpstream(f *testing.F) {
	for _, s := range corpus(50) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		same(t, s)
	})
}

func same(t *testing.T, s string) {
	t.Helper()
	if g, w := ansi.StringWidth(s), upstream.StringWidth(s); g != w {
		t.Fatalf("StringWidth(%q) = %d, release %d", s, g, w)
	}
	if g, w := ansi.Strip(s), upstream.Strip(s); g != w {
		t.Fatalf("Strip(%q) = %q, release %q", s, g, w)
	}
	for n := range 31 {
		if g, w := ansi.Truncate(s, n, "…"), upstream.Truncate(s, n, "…"); g != w {
			t.Fatalf("Truncate(%q, %d) = %q, release %q", s, n, g, w)
		}
		if g, w := ansi.TruncateLeft(s, n, ""), upstream.TruncateLeft(s, n, ""); g != w {
			t.Fatalf("TruncateLeft(%q, %d) = %q, release %q", s, n, g, w)
		}
		if g, w := ansi.Cut(s, n/3, n), upstream.Cut(s, n/3, n); g != w {
			t.Fatalf("Cut(%q, %d, %d) = %q, release %q", s, n/3, n, g, w)
		}
		if g, w := ansi.Wrap(s, n, ""), upstream.Wrap(s, n, ""); g != w {
			t.Fatalf("Wrap(%q, %d) = %q, release %q", s, n, g, w)
		}
		if g, w := ansi.Wordwrap(s, n, ","), upstream.Wordwrap(s, n, ","); g != w {
			t.Fatalf("Wordwrap(%q, %d) = %q, release %q", s, n, g, w)
		}
		if g, w := ansi.Hardwrap(s, n, n%2 == 0), upstream.Hardwrap(s, n, n%2 == 0); g != w {
			t.Fatalf("Hardwrap(%q, %d) = %q, release %q", s, n, g, w)
		}
	}
}

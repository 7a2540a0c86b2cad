package output

import (
	"bytes"
	"testing"
	"unicode"

	"github.com/charmbracelet/lipgloss"
	"github.com/mattn/go-runewidth"
	"github.com/muesli/termenv"
)

// TestStylesAreLipgloss is the differential test of the hand-written styles: each writes, for every word the text
// output paints, the bytes lipgloss v1.1.0 writes with the same style under the 256-colour profile (the library the
// output used before, see styles).
func TestStylesAreLipgloss(t *testing.T) {
	r := lipgloss.NewRenderer(&bytes.Buffer{})
	r.SetColorProfile(termenv.ANSI256)
	theirs := map[style]lipgloss.Style{
		bold:  r.NewStyle().Bold(true),
		faint: r.NewStyle().Faint(true),
		red:   r.NewStyle().Foreground(lipgloss.Color("1")),
		green: r.NewStyle().Foreground(lipgloss.Color("2")),
		amber: r.NewStyle().Foreground(lipgloss.Color("3")),
		cyan:  r.NewStyle().Foreground(lipgloss.Color("6")),
	}
	words := []string{"x", "completed", "input-required", "Task", "ID", "a2a send", "two words", "[data: 1]",
		"日本語", "👍🏽", "é", "trailing ", " leading", "a\tb", "line\nnext", "a\n\nb", "end\n"}
	for s, l := range theirs {
		for _, w := range words {
			if g, want := s.render(w), l.Render(w); g != want {
				t.Errorf("style %s on %q: %q, lipgloss %q", s, w, g, want)
			}
		}
	}
	for w, s := range stateStyles {
		if _, ok := theirs[s]; !ok {
			t.Errorf("state %s has style %q, which this test does not check", w, s)
		}
	}
}

// TestRuneWidthIsRunewidth compares runeWidth with go-runewidth v0.0.16's RuneWidth, which streamed text used
// before. runeWidth measures a rune as x/ansi measures a grapheme (uniseg's Unicode 15 tables), as the rest of the
// text output does. They agree on ASCII, Latin, Cyrillic, Greek, CJK and Hangul, and differ only on marks, format
// and unassigned characters, dashes and symbols whose width the Unicode data changed (about 1,300 runes, most of them
// combining marks go-runewidth counts as one cell).
func TestRuneWidthIsRunewidth(t *testing.T) {
	same := [][2]rune{{0x20, 0x7e}, {0xa0, 0x2ff}, {0x370, 0x482}, {0x48a, 0x52f}, {0x4e00, 0x9fff}, {0xac00, 0xd7a3}}
	for _, rg := range same {
		for r := rg[0]; r <= rg[1]; r++ {
			if g, want := runeWidth(r), runewidth.RuneWidth(r); g != want {
				t.Errorf("%U: %d, runewidth %d", r, g, want)
			}
		}
	}
	allowed := []*unicode.RangeTable{unicode.Mn, unicode.Mc, unicode.Me, unicode.Cf, unicode.Lm, unicode.Sk, unicode.So,
		unicode.Pd, unicode.Po}
	diff := 0
	for r := rune(0x20); r < 0x30000; r++ {
		if r >= 0xd800 && r < 0xe000 || runeWidth(r) == runewidth.RuneWidth(r) {
			continue
		}
		diff++
		if unicode.IsPrint(r) && !unicode.IsOneOf(allowed, r) {
			t.Errorf("%U (%q): %d, runewidth %d", r, r, runeWidth(r), runewidth.RuneWidth(r))
		}
	}
	if diff > 1500 {
		t.Errorf("%d runes differ", diff)
	}
}

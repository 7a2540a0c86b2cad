package output

import (
	"testing"

	"github.com/mattn/go-runewidth"
)

var sinkW int

// BenchmarkRuneWidthOurs and BenchmarkRuneWidthRunewidth compare runeWidth, on the streamed-text path, with
// go-runewidth's RuneWidth, which that path used before, over mixed ASCII, a dash and CJK.

func BenchmarkRuneWidthOurs(b *testing.B) {
	for i := 0; i < b.N; i++ {
		for _, r := range "hello, world — 日本語 text" {
			sinkW += runeWidth(r)
		}
	}
}

func BenchmarkRuneWidthRunewidth(b *testing.B) {
	for i := 0; i < b.N; i++ {
		for _, r := range "hello, world — 日本語 text" {
			sinkW += runewidth.RuneWidth(r)
		}
	}
}

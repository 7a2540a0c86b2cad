package traffic

import (
	"strings"
	"testing"
)

// Every value a line is formatted from stays on that line: a line break or separator in a string, an error or a
// Stringer shows as an escape; a value quoted with %q is left to the quoting; the format's own newline ends the line.
func TestPrintfKeepsFieldsOnTheLine(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	l := New(Config{W: &b})
	l.Printf("%s %v task=%s reason=%q %d\n", "GET /a\nFORGED", errString("e\r\nFORGED"), "t\u2028FORGED", "q\nz", 7)
	want := `GET /a\nFORGED e\r\nFORGED task=t\u2028FORGED reason="q\nz" 7` + "\n"
	if b.String() != want {
		t.Errorf("line\n got %q\nwant %q", b.String(), want)
	}
	if got := formatVerbs("%s %-5d %q %% %.2f %v"); string(got) != "sdqfv" {
		t.Errorf("formatVerbs = %q, want sdqfv", got)
	}
}

type errString string

func (e errString) Error() string { return string(e) }

package output

import (
	"bytes"
	"strings"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

// A card's notes never become members of the card: in JSON the card is printed alone, and CardChecks puts the card
// and the notes side by side, in order; on stderr (WriteNotes) quiet notes say nothing.
func TestCardNotesKeepTheCardACard(t *testing.T) {
	card := &a2a.AgentCard{Name: "n", Description: "d", Version: "1"}
	notes := []CardNote{
		{Label: "Signature", Lines: []string{"absent"}, Member: "signatureCheck", JSON: map[string]string{"status": "absent"}, Quiet: true},
		{Label: "Validation", Lines: []string{"v1.0, 0 errors, 1 warning", "warning /x: \x1b[31mred"}, Member: "validation", JSON: map[string]bool{"valid": true}},
	}
	var alone, plain, checks, stderr bytes.Buffer
	if err := New(&alone, Options{Format: JSON}).CardNotes(card, notes...); err != nil {
		t.Fatal(err)
	}
	if err := New(&plain, Options{Format: JSON}).Card(card); err != nil {
		t.Fatal(err)
	}
	if alone.String() != plain.String() {
		t.Errorf("CardNotes in JSON = %s, want the card alone %s", alone.String(), plain.String())
	}
	if err := New(&checks, Options{Format: JSON}).CardChecks(card, notes...); err != nil {
		t.Fatal(err)
	}
	want := `{"card":` + strings.TrimSpace(plain.String()) + `,"signatureCheck":{"status":"absent"},"validation":{"valid":true}}` + "\n"
	if checks.String() != want {
		t.Errorf("CardChecks = %s, want %s", checks.String(), want)
	}
	if err := WriteNotes(&stderr, notes...); err != nil {
		t.Fatal(err)
	}
	if got, want := stderr.String(), "Validation: v1.0, 0 errors, 1 warning\n  warning /x: "; !strings.HasPrefix(got, want) {
		t.Errorf("WriteNotes = %q, want %q", got, want)
	}
	if strings.Contains(stderr.String(), "\x1b") || strings.Contains(stderr.String(), "Signature") {
		t.Errorf("WriteNotes = %q: a quiet note or a raw escape got through", stderr.String())
	}
}

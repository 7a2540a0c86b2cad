package serve

import "testing"

// TestMajorMinor: the version a Route carries, whatever way a card writes it.
func TestMajorMinor(t *testing.T) {
	for in, want := range map[string]string{"0.3.0": "0.3", "0.3": "0.3", "1": "1.0", "1.0": "1.0", " v1.0.2 ": "1.0", "": "", "v": ""} {
		if got := MajorMinor(in); got != want {
			t.Errorf("MajorMinor(%q) = %q, want %q", in, got, want)
		}
	}
}

package termsafe

import "testing"

func TestDollarQuote(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{"task-1", "task-1"},
		{"a b", "'a b'"},
		{"x\x1b]0;pwned\x07y", `$'x\x1b]0;pwned\x07y'`},
		{"it's\x1b", `$'it\'s\x1b'`},
		{"\u009b2J\\", `$'\xc2\x9b2J\\'`},
		{"\xff", `$'\xff'`},
	}
	for _, tt := range tests {
		if got := ShellQuote(tt.in); got != tt.want {
			t.Errorf("ShellQuote(%q) = %s, want %s", tt.in, got, tt.want)
		}
	}
}

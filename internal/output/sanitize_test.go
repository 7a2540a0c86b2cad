package output

import (
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

func TestSanitize(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, in, want string
	}{
		{"plain", "hello world", "hello world"},
		{"newline and tab kept", "a\tb\nc", "a\tb\nc"},
		{"CSI colour", "\x1b[31mred\x1b[0m", "red"},
		{"CSI clear screen", "a\x1b[2Jb", "ab"},
		{"CSI private mode", "\x1b[?1049hx", "x"},
		{"CSI cut short by text", "\x1b[12;é", "é"},
		{"CSI unterminated at end", "x\x1b[12", "x"},
		{"OSC title with BEL", "\x1b]0;pwned\x07after", "after"},
		{"OSC title with ST", "\x1b]2;pwned\x1b\\after", "after"},
		{"OSC hyperlink", "\x1b]8;;http://evil\x07link\x1b]8;;\x07", "link"},
		{"OSC unterminated", "ok\x1b]0;pwned", "ok"},
		{"OSC cut by new escape", "\x1b]0;x\x1b[31mred", "red"},
		{"DCS", "\x1bPq#0;2;0;0;0\x1b\\x", "x"},
		{"two-byte ESC", "\x1bcreset", "reset"},
		{"charset ESC", "\x1b(Bx", "x"},
		{"lone ESC at end", "x\x1b", "x"},
		{"ESC ESC", "\x1b\x1b[1mx", "x"},
		{"8-bit CSI", "a\u009b2Jb", "ab"},
		{"8-bit OSC", "\u009d0;t\u009cafter", "after"},
		{"other C1", "a\u0085b", `a\u0085b`},
		{"bell", "ding\a", `ding\x07`},
		{"backspace", "abc\b\b\bXYZ", `abc\x08\x08\x08XYZ`},
		{"CR overwrite", "safe\rEVIL", "safeEVIL"},
		{"CRLF", "a\r\nb", "a\nb"},
		{"NUL and DEL", "a\x00b\x7f", `a\x00b\x7f`},
		{"bidi override", "abc\u202edef", `abc\u202edef`},
		{"invalid UTF-8", "a\xffb", "a\ufffdb"},
		{"raw C1 byte", "a\x9bb", "a\ufffdb"},
		{"emoji kept", "ok 👍🏽 👨‍👩‍👧", "ok 👍🏽 👨‍👩‍👧"},
		{"CJK kept", "你好，世界", "你好，世界"},
		{"accents kept", "café naïve", "café naïve"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := Sanitize(tt.in); got != tt.want {
				t.Errorf("Sanitize(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestShortState(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   a2a.TaskState
		want string
	}{
		{a2a.TaskStateSubmitted, "submitted"},
		{a2a.TaskStateWorking, "working"},
		{a2a.TaskStateInputRequired, "input-required"},
		{a2a.TaskStateAuthRequired, "auth-required"},
		{a2a.TaskStateCompleted, "completed"},
		{a2a.TaskStateFailed, "failed"},
		{a2a.TaskStateRejected, "rejected"},
		{a2a.TaskStateCanceled, "canceled"},
		{a2a.TaskStateUnspecified, "unknown"},
		{"TASK_STATE_NEW_THING", "new-thing"},
		{"TASK_STATE_\x1b[31mX", "x"},
	}
	for _, tt := range tests {
		if got := ShortState(tt.in); got != tt.want {
			t.Errorf("ShortState(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestShortRole(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   a2a.MessageRole
		want string
	}{
		{a2a.MessageRoleAgent, "agent"},
		{a2a.MessageRoleUser, "user"},
		{a2a.MessageRoleUnspecified, "unknown"},
		{"ROLE_SYSTEM", "system"},
	}
	for _, tt := range tests {
		if got := shortRole(tt.in); got != tt.want {
			t.Errorf("shortRole(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func BenchmarkSanitize(b *testing.B) {
	s := "plain agent text with an escape \x1b[31mred\x1b[0m and unicode 你好 " + evil
	b.ReportAllocs()
	for b.Loop() {
		Sanitize(s)
	}
}

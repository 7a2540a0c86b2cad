package mcpbridge

import (
	"regexp"
	"strings"
	"testing"
)

func TestSlug(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"Echo Agent":         "echo_agent",
		"  Réponse!! v2.0 ":  "r_ponse_v2.0",
		"summarize-text":     "summarize-text",
		"\x1b[31mred\x1b[0m": "31mred_0m",
		"日本語":                "",
	} {
		if got := slug(in); got != want {
			t.Errorf("slug(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestNamesUniqueStableValid(t *testing.T) {
	t.Parallel()
	valid := regexp.MustCompile(`^[A-Za-z0-9_.-]{1,64}$`)
	pairs := [][2]string{{"Echo", "echo"}, {"Echo", "Echo"}, {"Echo", "say hi"}, {"echo", "say_hi"}, {"", ""},
		{strings.Repeat("long", 30), strings.Repeat("skill", 30)}, {strings.Repeat("long", 30), strings.Repeat("skill", 30)},
		{"continue", ""}}
	var first []string
	for round := 0; round < 2; round++ {
		var n namer
		seen := map[string]bool{}
		for i, p := range pairs {
			got := n.name(p[0], p[1])
			if !valid.MatchString(got) {
				t.Errorf("name(%q, %q) = %q: not a valid MCP tool name", p[0], p[1], got)
			}
			if seen[got] || got == "continue" {
				t.Errorf("name(%q, %q) = %q: taken already", p[0], p[1], got)
			}
			seen[got] = true
			if round == 0 {
				first = append(first, got)
			} else if first[i] != got {
				t.Errorf("name(%q, %q) = %q, then %q: not stable", p[0], p[1], first[i], got)
			}
		}
	}
	if first[0] != "echo" || first[1] != "echo_2" || first[2] != "echo_say_hi" || first[3] != "echo_say_hi_2" {
		t.Errorf("names = %q", first[:4])
	}
}

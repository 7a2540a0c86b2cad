package mcpbridge

import (
	"fmt"
	"strings"
)

// maxName is the longest tool name made: MCP allows 128 characters, but some hosts (and the models behind them)
// take no more than 64.
const maxName = 64

// slug turns a card's name into the part of a tool name MCP allows (A-Z a-z 0-9 _ - .): lower case, runs of
// anything else become one underscore, none at either end.
func slug(s string) string {
	var b strings.Builder
	under := false
	for _, r := range strings.ToLower(s) {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9', r == '-', r == '.':
			if under && b.Len() > 0 {
				b.WriteByte('_')
			}
			under = false
			b.WriteRune(r)
		default:
			under = true
		}
	}
	return b.String()
}

// namer hands out tool names: agent_skill, stable for the same cards in the same order, unique (a clash gets _2, _3
// in order), never longer than maxName.
type namer struct{ used map[string]bool }

func (n *namer) name(agent, skill string) string {
	if n.used == nil {
		n.used = map[string]bool{"continue": true}
	}
	a, s := slug(agent), slug(skill)
	if a == "" {
		a = "agent"
	}
	base := a
	if s != "" && s != a {
		base = a + "_" + s
	}
	if len(base) > maxName {
		base = strings.TrimRight(base[:maxName], "_")
	}
	name := base
	for i := 2; n.used[name]; i++ {
		suffix := fmt.Sprintf("_%d", i)
		name = strings.TrimRight(base[:min(len(base), maxName-len(suffix))], "_") + suffix
	}
	n.used[name] = true
	return name
}

// Package skills embeds the repository's agent skills (skills/NAME/SKILL.md, the Agent Skills format) so that
// `a2a skill` prints them; it holds text only and imports nothing of this repository.
package skills

import _ "embed"

// A2A is skills/a2a/SKILL.md: how a coding assistant uses the a2a command line.
//
//go:embed a2a/SKILL.md
var A2A string

package cli

import (
	"io"

	"github.com/spf13/cobra"

	"github.com/a2acli/a2a/skills"
)

// newSkillCmd is `a2a skill`: the SKILL.md that teaches a coding assistant to use a2a, on stdout.
func newSkillCmd(f *factory) *cobra.Command {
	return &cobra.Command{
		Use:   "skill",
		Short: "Print the agent skill (SKILL.md) that teaches a coding assistant to use a2a",
		Long: `skill prints SKILL.md, an Agent Skills file (front matter with name and description, then copy-ready
examples) that tells a coding assistant how to use a2a. Install it where your assistant looks for skills:
~/.agents/skills/a2a/ (or a project's .agents/skills/a2a/), the location assistants share, or an assistant's own,
such as ~/.claude/skills/a2a/.`,
		Example: `  mkdir -p ~/.agents/skills/a2a && a2a skill > ~/.agents/skills/a2a/SKILL.md
  mkdir -p ~/.claude/skills/a2a && a2a skill > ~/.claude/skills/a2a/SKILL.md
  a2a skill | head`,
		Args: exactArgs(),
		RunE: func(*cobra.Command, []string) error {
			_, err := io.WriteString(f.io.Out, skills.A2A)
			return err
		},
	}
}

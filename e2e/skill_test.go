package e2e

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var (
	requirementID = regexp.MustCompile(`A2ACLI_[A-Z_]+_[0-9]{3}`)
	skillName     = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)
)

// TestSkillShipped holds the Agent Skill to the a2a-cli specification's §14 (A2ACLI_SKILL_001/002): exactly one
// skill is shipped, `a2a skill` prints it byte for byte, it stays small, sends the agent to the runtime help, and
// cites no clause of the specification.
func TestSkillShipped(t *testing.T) {
	t.Parallel()
	skills, err := filepath.Glob("../skills/*/SKILL.md")
	if err != nil {
		t.Fatal(err)
	}
	if len(skills) != 1 || skills[0] != "../skills/a2a/SKILL.md" {
		t.Fatalf("skills shipped: %v, want exactly ../skills/a2a/SKILL.md", skills)
	}
	body, err := os.ReadFile(skills[0])
	if err != nil {
		t.Fatal(err)
	}
	r := run(t, "", "skill")
	wantCode(t, r, 0)
	if r.stdout != string(body) {
		t.Errorf("a2a skill prints something other than skills/a2a/SKILL.md")
	}
	if !strings.HasPrefix(r.stdout, "---\nname: a2a\ndescription: ") || !strings.Contains(r.stdout, "\ncompatibility: ") {
		t.Errorf("front matter: want name, description and compatibility:\n%s", trim(r.stdout))
	}
	// The Agent Skills format's front matter (agentskills.io/specification), as installers check it: name, 1-64
	// lower-case letters, digits and single hyphens, the skill directory's name; description, 1-1024 characters;
	// compatibility, at most 500.
	front, _, ok := strings.Cut(strings.TrimPrefix(r.stdout, "---\n"), "\n---\n")
	fields := map[string]string{}
	for _, line := range strings.Split(front, "\n") {
		if k, v, found := strings.Cut(line, ": "); found && ok {
			fields[k] = v
		}
	}
	if name := fields["name"]; !skillName.MatchString(name) || len(name) > 64 || name != filepath.Base(filepath.Dir(skills[0])) {
		t.Errorf("front matter name %q: want the skill directory's name, lower-case letters, digits and single hyphens", name)
	}
	if d := fields["description"]; d == "" || len(d) > 1024 {
		t.Errorf("front matter description: %d characters, want 1-1024", len(d))
	}
	if c := fields["compatibility"]; len(c) > 500 {
		t.Errorf("front matter compatibility: %d characters, want at most 500", len(c))
	}
	// Token-efficient: the whole file is loaded into an agent's context whenever the skill is used.
	if words := len(strings.Fields(r.stdout)); words > 700 {
		t.Errorf("SKILL.md has %d words: keep it under 700, and leave the rest to --help", words)
	}
	wantContains(t, "SKILL.md", r.stdout, "a2a --help", "a2a <verb> --help", "command -v a2a")
	for _, normative := range []string{"MUST", "SHALL", "SHOULD", "§"} {
		if strings.Contains(r.stdout, normative) {
			t.Errorf("SKILL.md says %q: usage guidance, not the specification's requirements", normative)
		}
	}
	if id := requirementID.FindString(r.stdout); id != "" {
		t.Errorf("SKILL.md cites requirement %s: usage guidance, not the specification's requirements", id)
	}
}

// TestSkillExamples runs the a2a commands of SKILL.md's sh blocks as TestReadmeExamples runs the README's, so
// the skill never teaches a coding agent a command or a jq path that does not work.
func TestSkillExamples(t *testing.T) {
	cmds := shCommands(t, "../skills/a2a/SKILL.md")
	if len(cmds) < 10 {
		t.Fatalf("found only %d commands in SKILL.md: is the parser still right?", len(cmds))
	}
	runExamples(t, cmds)
}

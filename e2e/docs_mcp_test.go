package e2e

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestDocsMCPExamples runs the a2a commands of docs/mcp.md's sh blocks: each one it knows is run against serve's
// echo standing in for localhost:8080; one it does not know fails the test, so a new example gets run too.
func TestDocsMCPExamples(t *testing.T) {
	f, err := os.Open("../docs/mcp.md")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var cmds []string
	in := false
	for sc := bufio.NewScanner(f); sc.Scan(); {
		line := strings.TrimSpace(sc.Text())
		switch {
		case strings.HasPrefix(line, "```"):
			in = line == "```sh"
		case in && (strings.HasPrefix(line, "a2a ") || strings.Contains(line, "&& a2a ")):
			cmds = append(cmds, line)
		}
	}
	if len(cmds) < 4 {
		t.Fatalf("found only %d a2a commands in docs/mcp.md", len(cmds))
	}
	srv := startServe(t, "--echo")
	for _, c := range cmds {
		switch c {
		case "a2a serve --echo --port 8080 &":
			// srv stands for it.
		case "a2a mcp localhost:8080 </dev/null":
			r := run(t, "", "mcp", srv.url)
			wantCode(t, r, 0)
			wantContains(t, "stderr", r.stderr, "a2a mcp: 1 tools from 1 agents on stdio")
			if r.stdout != "" {
				t.Errorf("%s: stdout %q, want nothing (no request came)", c, r.stdout)
			}
		case "a2a mcp localhost:8080 --http 127.0.0.1:8765 &":
			s := startServeCmd(t, exec.Command(bin, "mcp", srv.url, "--http", "127.0.0.1:0"))
			if !strings.HasPrefix(s.url, "http://127.0.0.1:") || !strings.HasSuffix(s.url, "/mcp") {
				t.Errorf("%s: listening on %q", c, s.url)
			}
		case "a2a skill | head -4":
			r := run(t, "", "skill")
			wantCode(t, r, 0)
			if !strings.HasPrefix(r.stdout, "---\nname: a2a\ndescription: ") {
				t.Errorf("a2a skill: %q", trim(r.stdout))
			}
		case "mkdir -p ~/.agents/skills/a2a && a2a skill > ~/.agents/skills/a2a/SKILL.md":
			// In a HOME of the test's own: the skill lands where assistants look for it, byte for byte.
			home := t.TempDir()
			r := sh(t, "export HOME="+home+" && "+c)
			wantCode(t, r, 0)
			got, err := os.ReadFile(filepath.Join(home, ".agents", "skills", "a2a", "SKILL.md"))
			want, err2 := os.ReadFile("../skills/a2a/SKILL.md")
			if err != nil || err2 != nil || string(got) != string(want) {
				t.Errorf("%s: installed %d bytes (%v), want skills/a2a/SKILL.md (%v)", c, len(got), err, err2)
			}
		default:
			t.Errorf("docs/mcp.md shows %q, which this test does not run: add it", c)
		}
	}
}

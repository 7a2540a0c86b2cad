package e2e

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// docBlocks returns the fenced blocks of a docs page of the given language, in order.
func docBlocks(t *testing.T, page, lang string) []string {
	t.Helper()
	f, err := os.Open(filepath.Join("..", "docs", page))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var blocks []string
	var cur *strings.Builder
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case cur == nil && line == "```"+lang:
			cur = &strings.Builder{}
		case cur != nil && line == "```":
			blocks = append(blocks, cur.String())
			cur = nil
		case cur != nil:
			cur.WriteString(line + "\n")
		}
	}
	return blocks
}

var docPort = regexp.MustCompile(`--port (\d+)`)

// TestConformanceDocExamples runs every command of docs/conformance.md's sh blocks as a user would, in a shell with
// the built a2a first on PATH: each `a2a serve … --port N &` starts on a free port instead and localhost:N in the
// commands after it means that server; the json block is the weather-card.json the worked example serves. A
// command exits 0 unless its line says "# exits N".
func TestConformanceDocExamples(t *testing.T) {
	dir := t.TempDir()
	jsons := docBlocks(t, "conformance.md", "json")
	if len(jsons) != 1 {
		t.Fatalf("want the one json block of the worked example, found %d", len(jsons))
	}
	if err := os.WriteFile(filepath.Join(dir, "weather-card.json"), []byte(jsons[0]), 0o600); err != nil {
		t.Fatal(err)
	}
	urls := map[string]string{}
	ran := 0
	for _, block := range docBlocks(t, "conformance.md", "sh") {
		for _, line := range strings.Split(strings.TrimSpace(block), "\n") {
			want := "0"
			if cmd, code, ok := strings.Cut(line, "# exits "); ok {
				line, want = strings.TrimSpace(cmd), strings.TrimSpace(code)
			}
			for port, u := range urls {
				line = strings.ReplaceAll(line, "localhost:"+port, strings.TrimPrefix(u, "http://"))
			}
			if serve, ok := strings.CutSuffix(line, " &"); ok {
				m := docPort.FindStringSubmatch(serve)
				if m == nil {
					t.Fatalf("%q: a serve example needs --port", line)
				}
				serve = strings.Replace(serve, m[0], "--port 0", 1)
				cmd := exec.Command("sh", "-c", "exec "+serve)
				cmd.Dir = dir
				s := startServeCmd(t, cmd, "PATH="+filepath.Dir(bin)+":"+os.Getenv("PATH"))
				urls[m[1]] = s.url
				continue
			}
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			cmd := exec.CommandContext(ctx, "sh", "-c", line)
			cmd.Dir = dir
			cmd.Env = cmdEnv("PATH=" + filepath.Dir(bin) + ":" + os.Getenv("PATH"))
			out, err := cmd.CombinedOutput()
			cancel()
			code := "0"
			if ee, ok := err.(*exec.ExitError); ok {
				code = strings.TrimSpace(strings.TrimPrefix(ee.String(), "exit status "))
			} else if err != nil {
				t.Fatalf("%s: %v", line, err)
			}
			if code != want {
				t.Errorf("%s: exit %s, want %s\n%s", line, code, want, out)
			}
			ran++
		}
	}
	if ran < 6 {
		t.Fatalf("ran only %d commands of docs/conformance.md: is the parser still right?", ran)
	}
}

package e2e

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

// docCommands returns the shell commands of the sh blocks that run a2a in README.md and the guides in docs/, file
// by file, continuation lines joined.
func docCommands(t *testing.T) []string {
	t.Helper()
	guides, err := filepath.Glob("../docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	var cmds []string
	for _, file := range append([]string{"../README.md"}, guides...) {
		if ownRunner[filepath.Base(file)] != "" {
			continue
		}
		cmds = append(cmds, shCommands(t, file)...)
	}
	return cmds
}

// ownRunner names the guides whose examples need agents of their own (a reference agent, a load, an MCP host, an
// authorization server) and the test that runs every one of them; TestReadmeExamples leaves them to it.
var ownRunner = map[string]string{
	"bench.md":       "TestDocsBenchExamples",
	"conformance.md": "TestConformanceDocExamples",
	"mcp.md":         "TestDocsMCPExamples",
	"identity.md":    "TestIdentityDocExamples",
	"production.md":  "TestProductionDocExamples",
}

// shCommands returns the shell commands of file's sh blocks that run a2a, continuation lines joined.
func shCommands(t *testing.T, file string) []string {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var cmds []string
	var cur string
	in := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "```sh"):
			in = true
			continue
		case strings.HasPrefix(line, "```"):
			in = false
			continue
		case !in:
			continue
		}
		if strings.HasSuffix(line, `\`) {
			cur += strings.TrimSuffix(line, `\`) + " "
			continue
		}
		line = cur + line
		cur = ""
		if strings.Contains(line, "a2a ") && !strings.HasPrefix(strings.TrimSpace(line), "#") {
			cmds = append(cmds, strings.TrimSpace(line))
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	return cmds
}

var portFlag = regexp.MustCompile(`--port \d+`)

// TestReadmeExamples runs every a2a command the README and the guides in docs/ show, against a2a serve --echo standing in for
// localhost:8080, with placeholders filled from real tasks. Examples that need the outside world (agent.example
// hosts) or write outside the test directory are skipped; serve examples are started on a free port and stopped.
func TestReadmeExamples(t *testing.T) {
	cmds := docCommands(t)
	if len(cmds) < 40 {
		t.Fatalf("found only %d commands in README.md and docs/*.md: is the parser still right?", len(cmds))
	}
	runExamples(t, cmds)
}

// TestIdentityDocExamples runs the sh examples of docs/identity.md as TestReadmeExamples runs the README's.
func TestIdentityDocExamples(t *testing.T) {
	cmds := shCommands(t, "../docs/identity.md")
	if len(cmds) < 3 {
		t.Fatalf("found only %d commands in docs/identity.md: is the parser still right?", len(cmds))
	}
	runExamples(t, cmds)
}

// runExamples runs documented a2a commands (the README's and the guides', --help's) as TestReadmeExamples describes.
func runExamples(t *testing.T, cmds []string) {
	srv := startServe(t, "--echo", "--transport", "rest,jsonrpc,grpc")
	host := strings.TrimPrefix(srv.url, "http://")
	task := sendTask(t, run(t, "", "send", srv.url, "seed", "-o", "json"))
	run(t, "", "send", srv.url, "seed 2", "-o", "json")
	var page a2a.ListTasksResponse
	if err := json.Unmarshal([]byte(run(t, "", "list", "tasks", srv.url, "--limit", "1", "-o", "json").stdout), &page); err != nil {
		t.Fatal(err)
	}
	// localhost:41242 stands for a coding agent (the Gemini CLI server's port): a replay of real traffic.
	recordings, err := filepath.Abs("../testdata/recordings")
	if err != nil {
		t.Fatal(err)
	}
	coder := startServe(t, "--replay", filepath.Join(recordings, "gemini-approve-write.jsonl"),
		"--replay", filepath.Join(recordings, "gemini-reject-write.jsonl"),
		"--replay", filepath.Join(recordings, "commands.jsonl"), "--idle-timeout", "300ms", "--quiet")
	dir, home := t.TempDir(), t.TempDir()
	files := map[string]string{
		"message.json": `{"role":"ROLE_USER","parts":[{"text":"from a file"}]}`,
		"chart.png":    "\x89PNG\r\n\x1a\n0000",
		"blob":         "%PDF-1.4 pretend",
		"essay.txt":    "para one\n\npara two\n",
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// The TLS examples' certificate (what their openssl line makes), and the TLS serve localhost:8443 stands for.
	writeSelfSigned(t, filepath.Join(dir, "server.pem"), filepath.Join(dir, "server-key.pem"))
	tlsSrv := startServe(t, "--echo", "--transport", "rest,jsonrpc,grpc",
		"--tls-cert", filepath.Join(dir, "server.pem"), "--tls-key", filepath.Join(dir, "server-key.pem"))
	replacer := strings.NewReplacer(
		"./bin/a2a", "a2a",
		"localhost:8443", strings.TrimPrefix(tlsSrv.url, "https://"),
		"server.pem", filepath.Join(dir, "server.pem"),
		"server-key.pem", filepath.Join(dir, "server-key.pem"),
		"localhost:8080", host,
		"localhost:41242", strings.TrimPrefix(coder.url, "http://"),
		"testdata/recordings/", recordings+"/",
		"session.jsonl", filepath.Join(dir, "session.jsonl"),
		"sqlite:tasks.db", "sqlite:"+filepath.Join(dir, "tasks.db"),
		"<task-id>", string(task.ID),
		"<context-id>", task.ContextID,
		"<ctx-id>", task.ContextID,
		"<token>", page.NextPageToken,
		"/etc/bash_completion.d/a2a", filepath.Join(dir, "completion.bash"),
	)
	var listenURL string // the README's webhook (a2a listen … &), once started
	for _, line := range cmds {
		if strings.Contains(line, ".example") && !strings.Contains(line, "serve --proxy") || strings.HasPrefix(line, "make") ||
			strings.HasPrefix(line, "a2a chat") { // chat needs a terminal: the pty tests drive it
			continue
		}
		cmd := replacer.Replace(line)
		if i := strings.Index(cmd, " # "); i >= 0 {
			cmd = strings.TrimSpace(cmd[:i])
		}
		if listenURL != "" {
			cmd = strings.ReplaceAll(cmd, "http://127.0.0.1:9000/", listenURL)
		}
		if strings.HasPrefix(cmd, "a2a listen") && strings.HasSuffix(cmd, "&") {
			// A webhook left running for the examples after it: on a free port, which they are pointed at.
			args := shellArgs(t, portFlag.ReplaceAllString(strings.TrimSuffix(strings.TrimPrefix(cmd, "a2a "), "&"), "--port 0"))
			_, listenURL = startListen(t, args[1:]...)
			continue
		}
		t.Run(line, func(t *testing.T) {
			if strings.HasPrefix(cmd, "a2a serve") {
				args := strings.Fields(portFlag.ReplaceAllString(strings.TrimPrefix(cmd, "a2a serve"), ""))
				if strings.HasSuffix(cmd, "&") || len(args) == 0 {
					return
				}
				// Quoted arguments need the shell: let it split them, and start the server through it.
				s := startServe(t, shellArgs(t, strings.Join(args, " "))...)
				if !strings.HasPrefix(s.url, "http://127.0.0.1:") && !strings.HasPrefix(s.url, "http://0.0.0.0:") &&
					!strings.HasPrefix(s.url, "https://127.0.0.1:") && !strings.HasPrefix(s.url, "https://0.0.0.0:") {
					t.Fatalf("serve advertised %q", s.url)
				}
				return
			}
			// HOME is the test's own: an example that installs into ~ (a2a skill's) must not write the user's.
			r := sh(t, "cd "+dir+" && export HOME="+home+" && "+cmd)
			want := 0
			if strings.HasPrefix(cmd, "a2a cancel") || strings.HasPrefix(cmd, "a2a task cancel") {
				want = 1 // the echo task already completed: TaskNotCancelableError
				wantContains(t, "stderr", r.stderr, "already completed")
			}
			if strings.HasPrefix(cmd, "a2a send") && strings.Contains(cmd, "--task "+string(task.ID)) {
				want = 1 // the echo task already completed: UnsupportedOperationError
				wantContains(t, "stderr", r.stderr, "already completed")
			}
			if r.code != want {
				t.Fatalf("README example %q: exit %d, want %d\n%s", line, r.code, want, r)
			}
		})
	}
}

// shellArgs splits s as /bin/sh would, by asking it.
func shellArgs(t *testing.T, s string) []string {
	t.Helper()
	r := sh(t, "set -- "+s+"\n"+`for a in "$@"; do printf '%s\0' "$a"; done`)
	if r.code != 0 {
		t.Fatalf("split %q: %s", s, r)
	}
	return strings.Split(strings.TrimSuffix(r.stdout, "\x00"), "\x00")
}

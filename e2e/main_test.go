// Package e2e holds black-box tests of the built a2a binary: every verb run as a user would, against real agents on
// 127.0.0.1 (reference agents built from the a2a-go library, and our own `a2a serve`).
package e2e

import (
	"bufio"
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// bin is the a2a binary built once for the whole package.
var bin string

func TestMain(m *testing.M) {
	if os.Getenv(rssEnv) != "" {
		os.Exit(reportPeakRSS(os.Args[1:]))
	}
	flag.Parse()
	if testing.Short() {
		fmt.Println("e2e: skipped with -short")
		os.Exit(0)
	}
	dir, err := os.MkdirTemp("", "a2a-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	bin = filepath.Join(dir, "a2a")
	// Every run reads its user configuration from here, not the developer's (optIn03 writes agents' files in it).
	configHome = filepath.Join(dir, "config")
	cacheHome = filepath.Join(dir, "cache")
	// Built as `make build` builds it, so the start-up benchmark measures the binary users get.
	build := exec.Command("go", "build", "-trimpath", "-ldflags", "-s -w", "-o", bin, "../cmd/a2a")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if prebuilt := os.Getenv("A2A_E2E_BIN"); prebuilt != "" {
		// Test an already built binary instead (e.g. an installed one).
		build = exec.Command("cp", prebuilt, bin)
	}
	build.Stdout, build.Stderr = os.Stdout, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "e2e: build a2a:", err)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	pg.Stop() // the PostgreSQL server of the store tests, if one started
	os.RemoveAll(dir)
	os.Exit(code)
}

// result is what one run of the binary produced.
type result struct {
	stdout, stderr string
	code           int
}

func (r result) String() string {
	return fmt.Sprintf("exit %d\n--- stdout:\n%s\n--- stderr:\n%s", r.code, trim(r.stdout), trim(r.stderr))
}

func trim(s string) string {
	if len(s) > 4000 {
		return s[:4000] + fmt.Sprintf("…(%d more bytes)", len(s)-4000)
	}
	return s
}

// configHome is the XDG_CONFIG_HOME of every run (a test may name another in its extra variables).
var configHome string

// cacheHome is the XDG_CACHE_HOME of every run: the card cache of the tests, not the user's.
var cacheHome string

// cmdEnv is the environment the binary runs with: no colour forcing, no terminal, the tests' own configuration
// directory, no D-Bus session (no test stores tokens in the keyring of whoever runs it).
func cmdEnv(extra ...string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "NO_COLOR=") || strings.HasPrefix(kv, "CLICOLOR_FORCE=") || strings.HasPrefix(kv, "XDG_CONFIG_HOME=") || strings.HasPrefix(kv, "XDG_CACHE_HOME=") ||
			strings.HasPrefix(kv, "DBUS_SESSION_BUS_ADDRESS=") {
			continue
		}
		env = append(env, kv)
	}
	env = append(env, "XDG_CONFIG_HOME="+configHome, "XDG_CACHE_HOME="+cacheHome)
	return append(env, extra...)
}

// optIn03 opts in to A2A 0.3 for the agent at rawURL, as a user does for an agent that speaks nothing newer (the
// a2a-cli specification's §13.2 wants an explicit opt-in): A2ACLI_A2A_VERSION=0.3 in that agent's own dotenv file,
// $XDG_CONFIG_HOME/a2a/agents/HOST_PORT.env, which every later run against it reads. The file goes before the agent
// stops (cleanups run last first), so an agent that gets its port later does not inherit it.
func optIn03(t testing.TB, rawURL string) {
	t.Helper()
	u, err := url.Parse(rawURL)
	if err != nil || u.Host == "" {
		u, err = url.Parse("http://" + rawURL)
	}
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(configHome, "a2a", "agents")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, strings.ReplaceAll(u.Host, ":", "_")+".env")
	if err := os.WriteFile(file, []byte("A2ACLI_A2A_VERSION=0.3\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Remove(file) })
}

// run runs the binary with args and stdin, bounded by a minute.
func run(t testing.TB, stdin string, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = cmdEnv()
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("a2a %s: did not finish within a minute\n%s", strings.Join(args, " "), errb.String())
	}
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("a2a %s: %v", strings.Join(args, " "), err)
	}
	return result{stdout: out.String(), stderr: errb.String(), code: code}
}

// server is a running `a2a serve`.
type server struct {
	url    string
	cmd    *exec.Cmd
	mu     sync.Mutex
	stderr bytes.Buffer
	done   chan struct{}
}

// Log returns what the server wrote to stderr so far.
func (s *server) Log() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stderr.String()
}

// startServe starts `a2a serve --port 0 args…`, waits for its "listening on" line and stops it at cleanup.
func startServe(t testing.TB, args ...string) *server {
	t.Helper()
	return startServeEnv(t, nil, args...)
}

// startServeEnv is startServe with extra environment variables (KEY=value).
func startServeEnv(t testing.TB, env []string, args ...string) *server {
	t.Helper()
	return startServeCmd(t, exec.Command(bin, append([]string{"serve", "--port", "0"}, args...)...), env...)
}

// startServeCmd starts cmd, a command that runs `a2a serve` (through a shell, say), as startServe does, with extra
// environment variables.
func startServeCmd(t testing.TB, cmd *exec.Cmd, env ...string) *server {
	t.Helper()
	args := cmd.Args[1:]
	stderr := startWithStderr(t, cmd, env...)
	s := &server{cmd: cmd, done: make(chan struct{})}
	urlc := make(chan string, 1)
	go func() {
		defer close(s.done)
		sc := bufio.NewScanner(stderr)
		sc.Buffer(make([]byte, 64<<10), 16<<20)
		for sc.Scan() {
			line := sc.Text()
			s.mu.Lock()
			s.stderr.WriteString(line + "\n")
			s.mu.Unlock()
			if u, ok := strings.CutPrefix(line, "listening on "); ok {
				select {
				case urlc <- strings.TrimSpace(u):
				default:
				}
			}
		}
		io.Copy(io.Discard, stderr)
	}()
	t.Cleanup(func() { s.stop(t) })
	select {
	case s.url = <-urlc:
	case <-s.done:
		cmd.Wait()
		t.Fatalf("a2a serve %s exited before listening:\n%s", strings.Join(args, " "), s.Log())
	case <-time.After(30 * time.Second):
		t.Fatalf("a2a serve %s: no 'listening on' line within 30s:\n%s", strings.Join(args, " "), s.Log())
	}
	return s
}

// stop sends SIGTERM and waits for the server to exit, killing it if it takes more than 10 s.
func (s *server) stop(t testing.TB) {
	if s.cmd.ProcessState != nil {
		return
	}
	s.cmd.Process.Signal(syscall.SIGTERM)
	exited := make(chan error, 1)
	go func() { <-s.done; exited <- s.cmd.Wait() }()
	select {
	case <-exited:
	case <-time.After(10 * time.Second):
		s.cmd.Process.Kill()
		<-exited
		t.Errorf("a2a serve did not exit within 10s of SIGTERM:\n%s", s.Log())
	}
}

// startWithStderr starts cmd in the tests' environment (with extra variables) and returns its stderr to read.
func startWithStderr(t testing.TB, cmd *exec.Cmd, env ...string) io.Reader {
	t.Helper()
	cmd.Env = cmdEnv(env...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return stderr
}

package e2e

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// roundTripInputs are outputs a wrapped command may write: text with blank lines, indentation and no final
// newline, multi-byte UTF-8, and random binary (invalid UTF-8, NUL bytes, delimiters anywhere).
func roundTripInputs() map[string][]byte {
	r := rand.New(rand.NewPCG(8, 8))
	binary := make([]byte, 300<<10) // more than one 64 KiB piece
	for i := range binary {
		binary[i] = byte(r.UintN(256))
	}
	return map[string][]byte{
		"text":   []byte("first line\n\n\n  indented\n\ttabbed  trailing spaces  \nthe  end  --8<--  no final newline"),
		"utf8":   []byte("héllo wörld\n€ 😀 日本語\n\n" + strings.Repeat("ü", 40000) + "\n"),
		"binary": binary,
		"empty":  nil,
	}
}

// TestExecRoundTrip: what the command writes comes out of -o raw byte for byte, whatever the delimiter, streamed or
// not, and from get task and subscribe afterwards.
func TestExecRoundTrip(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	delims := map[string][]string{
		"newline":    {"--chunk=\n"},
		"space":      {"--chunk= "},
		"multi-byte": {"--chunk", "--8<--"},
		"blank line": {"--chunk=\n\n"},
		"whole":      nil,
	}
	for inName, in := range roundTripInputs() {
		file := filepath.Join(dir, inName)
		if err := os.WriteFile(file, in, 0o644); err != nil {
			t.Fatal(err)
		}
		for dName, chunk := range delims {
			t.Run(inName+"/"+dName, func(t *testing.T) {
				t.Parallel()
				srv := startServe(t, append([]string{"--exec", "cat " + file, "--quiet"}, chunk...)...)
				check := func(how string, r result) {
					t.Helper()
					wantCode(t, r, 0)
					if !bytes.Equal([]byte(r.stdout), in) {
						t.Fatalf("%s: stdout (%d bytes) differs from what the command wrote (%d bytes): %s\n%s",
							how, len(r.stdout), len(in), firstDiff([]byte(r.stdout), in), r.stderr)
					}
				}
				check("send --stream -o raw", run(t, "", "send", srv.url, "go", "--stream", "-o", "raw"))
				check("send -o raw", run(t, "", "send", srv.url, "go", "-o", "raw"))
				task := sendTask(t, run(t, "", "send", srv.url, "go", "-o", "json"))
				check("get task -o raw", run(t, "", "get", "task", srv.url, string(task.ID), "-o", "raw"))
				check("subscribe -o raw (finished)", run(t, "", "subscribe", srv.url, string(task.ID), "-o", "raw"))
			})
		}
	}
}

// firstDiff describes where a and b first differ.
func firstDiff(a, b []byte) string {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return fmt.Sprintf("first difference at byte %d: %q vs %q", i, a[i:min(i+20, len(a))], b[i:min(i+20, len(b))])
		}
	}
	return fmt.Sprintf("one is a prefix of the other (%d vs %d bytes)", len(a), len(b))
}

// TestRawPipe: send -o raw into sha256sum gives the command's own sum, as the README's pipes section shows.
func TestRawPipe(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("sha256sum"); err != nil {
		t.Skip("no sha256sum")
	}
	srv := startServe(t, "--exec", "seq 100000", "--chunk=\n", "--quiet")
	sum := func(script string) string {
		t.Helper()
		out, err := exec.Command("sh", "-c", script).Output()
		if err != nil {
			t.Fatalf("%s: %v", script, err)
		}
		return string(out)
	}
	want := sum("seq 100000 | sha256sum")
	if got := sum(fmt.Sprintf("%s send --stream -o raw %s go | sha256sum", bin, srv.url)); got != want {
		t.Fatalf("send --stream -o raw | sha256sum = %s, want %s", got, want)
	}
}

// TestRawOnEveryTaskVerb: -o raw on send, get task, subscribe and cancel writes only the agent's content; status
// and hints stay on stderr, and a bad -o value is a usage error naming the formats.
func TestRawOnEveryTaskVerb(t *testing.T) {
	t.Parallel()
	srv := startServe(t, "--exec", `printf 'started\n'; sleep 30`, "--chunk=\n", "--quiet")
	r := run(t, "", "send", srv.url, "go", "--immediate", "-o", "json")
	wantCode(t, r, 0)
	task := sendTask(t, r)
	c := startClient(t, "subscribe", srv.url, string(task.ID), "-o", "raw")
	if line := c.next(t, 20*time.Second); line != "started" {
		t.Fatalf("subscribe -o raw first line %q, want started", line)
	}
	r = run(t, "", "get", "task", srv.url, string(task.ID), "-o", "raw")
	wantCode(t, r, 0)
	if r.stdout != "started\n" {
		t.Fatalf("get task -o raw = %q, want the output so far", r.stdout)
	}
	r = run(t, "", "cancel", srv.url, string(task.ID), "-o", "raw")
	wantCode(t, r, 0)
	if r.stdout != "started\n" {
		t.Fatalf("cancel -o raw = %q, want the output so far", r.stdout)
	}
	rest, code := c.wait(t, 20*time.Second)
	if code != 0 || len(rest) != 0 {
		t.Fatalf("subscribe -o raw ended with exit %d and more stdout %q, want 0 and nothing", code, rest)
	}

	failing := startServe(t, "--exec", `echo partial; echo broke >&2; exit 3`, "--quiet")
	r = run(t, "", "send", failing.url, "go", "-o", "raw", "--fail")
	wantCode(t, r, 6)
	if r.stdout != "partial\n" {
		t.Fatalf("failed task -o raw stdout %q, want only the output", r.stdout)
	}
	wantContains(t, "stderr", r.stderr, "failed", "broke")

	r = run(t, "", "send", srv.url, "go", "-o", "yaml")
	wantCode(t, r, 2)
	wantContains(t, "stderr", r.stderr, `invalid --output "yaml": want text, json or raw`)
}

// TestStreamSave: --save on a stream writes the artifact as its chunks arrive, text and raw chunks joined, so the
// saved file is the command's output byte for byte; a stream of text alone saves nothing.
func TestStreamSave(t *testing.T) {
	t.Parallel()
	in := roundTripInputs()["binary"]
	file := filepath.Join(t.TempDir(), "in")
	if err := os.WriteFile(file, in, 0o644); err != nil {
		t.Fatal(err)
	}
	srv := startServe(t, "--exec", "cat "+file, "--chunk=\n", "--quiet")
	for _, verb := range [][]string{{"send", srv.url, "go", "--stream"}, {"send", srv.url, "go", "--stream", "-o", "json"}} {
		dir := t.TempDir()
		r := run(t, "", append(verb, "--save", dir)...)
		wantCode(t, r, 0)
		files, err := os.ReadDir(dir)
		if err != nil || len(files) != 1 {
			t.Fatalf("%v --save wrote %v (%v), want one file\n%s", verb, files, err, r)
		}
		got, err := os.ReadFile(filepath.Join(dir, files[0].Name()))
		if err != nil || !bytes.Equal(got, in) {
			t.Fatalf("%v: saved %d bytes (%v), want the command's %d bytes: %s", verb, len(got), err, len(in), firstDiff(got, in))
		}
		wantContains(t, "stderr", r.stderr, "saved "+filepath.Join(dir, files[0].Name()))
	}
	text := startServe(t, "--exec", "seq 10", "--chunk=\n", "--quiet")
	dir := t.TempDir()
	r := run(t, "", "send", text.url, "go", "--stream", "--save", dir)
	wantCode(t, r, 0)
	wantContains(t, "stderr", r.stderr, "--save: no file parts to save")
	if files, _ := os.ReadDir(dir); len(files) != 0 {
		t.Fatalf("a text stream left %v in the --save directory", files)
	}
}

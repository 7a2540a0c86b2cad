package main

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestManPages checks that make man writes a page per command, with the command's own text.
func TestManPages(t *testing.T) {
	dir := t.TempDir()
	if err := write(dir, ""); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{
		"a2a.1":             "netcat for agents",
		"a2a-send.1":        "Send a message",
		"a2a-list-tasks.1":  "tasks",
		"a2a-config-show.1": "effective value",
		"a2a-environment.1": "A2ACLI_TIMEOUT",
	} {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatalf("no man page %s: %v", name, err)
		}
		if !strings.Contains(string(b), ".TH \"A2A\" \"1\"") || !strings.Contains(string(b), want) {
			t.Fatalf("%s is not the man page wanted (no .TH or no %q):\n%.300s", name, want, b)
		}
	}
}

// manTitle is a man page's title line, which holds the date and version it was made with.
var manTitle = regexp.MustCompile(`(?m)^\.TH .*$`)

// TestGeneratedDocsAreCurrent fails when the committed command reference (docs/reference, docs/man) differs from
// what the command tree generates: a command, flag or help text changed without `make docs`.
func TestGeneratedDocsAreCurrent(t *testing.T) {
	man, md := t.TempDir(), t.TempDir()
	if err := write(man, md); err != nil {
		t.Fatal(err)
	}
	same(t, md, "../../docs/reference", func(b []byte) string { return string(b) })
	same(t, man, "../../docs/man", func(b []byte) string { return manTitle.ReplaceAllString(string(b), ".TH") })
}

// same fails unless dirs got and want hold the same files with the same contents (as norm reads them).
func same(t *testing.T, got, want string, norm func([]byte) string) {
	t.Helper()
	names := func(dir string) []string {
		var ns []string
		entries, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			ns = append(ns, e.Name())
		}
		return ns
	}
	gotNames, wantNames := names(got), names(want)
	for _, n := range gotNames {
		if !slices.Contains(wantNames, n) {
			t.Errorf("%s: no %s, which the commands generate: run make docs", want, n)
			continue
		}
		g, err := os.ReadFile(filepath.Join(got, n))
		if err != nil {
			t.Fatal(err)
		}
		w, err := os.ReadFile(filepath.Join(want, n))
		if err != nil {
			t.Fatal(err)
		}
		if norm(g) != norm(w) {
			t.Errorf("%s/%s differs from what the commands generate: run make docs", want, n)
		}
	}
	for _, n := range wantNames {
		if !slices.Contains(gotNames, n) {
			t.Errorf("%s/%s: no command generates it: run make docs", want, n)
		}
	}
}

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestManPages checks that make man writes a page per command, with the command's own text.
func TestManPages(t *testing.T) {
	dir := t.TempDir()
	if err := write(dir); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{
		"a2a.1":             "netcat for agents",
		"a2a-send.1":        "Send a message",
		"a2a-list-tasks.1":  "tasks",
		"a2a-config-show.1": "effective value",
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

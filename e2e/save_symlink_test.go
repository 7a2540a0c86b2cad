package e2e

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/a2acli/a2a/internal/testagent"
)

// TestSaveRefusesSymlinks: a symbolic link planted in --save's folder under the name a file is saved as (dangling,
// or to a file elsewhere) is never written through nor replaced: the file goes to the next free name and nothing
// outside the folder changes; on the unary answer, on a stream and for get task. The agent is a2a-go's server (testagent).
func TestSaveRefusesSymlinks(t *testing.T) {
	t.Parallel()
	ag := testagent.Start(t, testagent.Options{Behavior: testagent.UnnamedFiles})
	r := run(t, "", "send", ag.URL, "charts please", "-o", "json")
	wantCode(t, r, 0)
	task := sendTask(t, r)
	for _, mode := range []string{"send", "send --stream", "get task"} {
		dir, outside := t.TempDir(), t.TempDir()
		dangling := filepath.Join(outside, "planted.png")
		existing := filepath.Join(outside, "victim.png")
		if err := os.WriteFile(existing, []byte("keep me"), 0o600); err != nil {
			t.Fatal(err)
		}
		links := map[string]string{
			testagent.ChartArtifact + ".png":   dangling,
			testagent.ChartArtifact + "-1.png": existing,
		}
		for name, target := range links {
			if err := os.Symlink(target, filepath.Join(dir, name)); err != nil {
				t.Fatal(err)
			}
		}
		args := []string{"send", ag.URL, "charts please", "--save", dir}
		switch mode {
		case "send --stream":
			args = append(args, "--stream")
		case "get task":
			args = []string{"get", "task", ag.URL, string(task.ID), "--save", dir}
		}
		r := run(t, "", args...)
		wantCode(t, r, 0)
		if _, err := os.Lstat(dangling); !os.IsNotExist(err) {
			t.Errorf("%s: --save wrote through a dangling link to %s (%v)", mode, dangling, err)
		}
		if b, err := os.ReadFile(existing); err != nil || string(b) != "keep me" {
			t.Errorf("%s: --save changed %s through a link: %q %v", mode, existing, b, err)
		}
		for name, target := range links {
			if got, err := os.Readlink(filepath.Join(dir, name)); err != nil || got != target {
				t.Errorf("%s: the planted link %s was replaced: %q %v", mode, name, got, err)
			}
		}
		for _, name := range []string{testagent.ChartArtifact + "-2.png", testagent.ChartArtifact + "-3.png"} {
			fi, err := os.Lstat(filepath.Join(dir, name))
			if err != nil || !fi.Mode().IsRegular() {
				t.Errorf("%s: %s not saved as a regular file: %v\n%s", mode, name, err, r.stderr)
			}
		}
	}
}

package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/a2acli/a2a/internal/store/pgtest"
)

// TestProductionDocExamples holds docs/production.md to what the soak runs: its HAProxy configuration is the one
// the soak starts (haproxyConfig, for the page's ports), every error class the soak accepts is named on the page,
// and its sh example runs as written (ports moved to free ones, the database a throwaway PostgreSQL named by
// A2ACLI_STORE, as the page says).
func TestProductionDocExamples(t *testing.T) {
	const page = "production.md"
	cfgs := docBlocks(t, page, "haproxy")
	if len(cfgs) != 1 {
		t.Fatalf("docs/production.md has %d haproxy blocks, want 1", len(cfgs))
	}
	reps := []*replica{{name: "r1", port: 8081}, {name: "r2", port: 8082}, {name: "r3", port: 8083}}
	if want := haproxyConfig(8080, reps); cfgs[0] != want {
		t.Fatalf("docs/production.md's HAProxy configuration is not the soak's:\n--- page\n%s\n--- soak\n%s", cfgs[0], want)
	}
	body, err := os.ReadFile(filepath.Join("..", "docs", page))
	if err != nil {
		t.Fatal(err)
	}
	for row, classes := range map[string][]string{"| a replica killed": killClasses, "| PostgreSQL restarted": storeClasses,
		"| a replica paused": pauseClasses} {
		var line string
		for _, l := range strings.Split(string(body), "\n") {
			if strings.HasPrefix(l, row) {
				line = l
			}
		}
		for _, class := range classes {
			if !strings.Contains(line, "`"+class+"`") {
				t.Errorf("docs/production.md's row %q does not name the error class `%s` the soak accepts for it", row, class)
			}
		}
	}
	scripts := docBlocks(t, page, "sh")
	if len(scripts) != 1 {
		t.Fatalf("docs/production.md has %d sh blocks, want 1", len(scripts))
	}

	hap, err := lookHAProxy()
	if err != nil {
		t.Skip("haproxy is missing (TestSoak reports it)")
	}
	if _, err := pgtest.Bin(); err != nil {
		pgtest.Need(t, nil)
	}
	db := pg.NewDB(t)
	dir := t.TempDir()
	ports := map[string]string{}
	for p := 8080; p <= 8083; p++ {
		ports[strconv.Itoa(p)] = strconv.Itoa(freePort(t))
	}
	move := func(s string) string {
		for from, to := range ports {
			s = strings.ReplaceAll(s, ":"+from, ":"+to)
			s = strings.ReplaceAll(s, "--port "+from, "--port "+to)
		}
		return s
	}
	files := map[string]string{"agent.sh": soakScript + "\n", "haproxy.cfg": move(cfgs[0]), "run.sh": move(scripts[0])}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	// The page's background jobs (the replicas, HAProxy) end with the script's process group.
	cmd := exec.CommandContext(ctx, "bash", "-e", "run.sh")
	cmd.Dir = dir
	cmd.Env = cmdEnv("A2ACLI_STORE="+db, "PATH="+filepath.Dir(bin)+":"+filepath.Dir(hap)+":"+os.Getenv("PATH"))
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	// A file, not a pipe: the background jobs keep their copy of it open, and Wait must not wait for them.
	log, err := os.Create(filepath.Join(dir, "out.log"))
	if err != nil {
		t.Fatal(err)
	}
	defer log.Close()
	cmd.Stdout, cmd.Stderr = log, log
	err = cmd.Run()
	if cmd.Process != nil {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM) //nolint:errcheck // the group may be gone already
	}
	out, _ := os.ReadFile(log.Name()) // for the messages
	if err != nil {
		t.Fatalf("docs/production.md's example: %v\n%s", err, out)
	}
	f, err := os.Open(filepath.Join(dir, "tasks.jsonl"))
	if err != nil {
		t.Fatalf("the example wrote no tasks.jsonl: %v\n%s", err, out)
	}
	defer f.Close()
	n := 0
	for sc := bufio.NewScanner(f); sc.Scan(); n++ {
		var rec soakRecord
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil || rec.Class != "" || rec.Task == "" {
			t.Errorf("tasks.jsonl: %v: %s", err, sc.Text())
		}
	}
	if n == 0 {
		t.Fatalf("tasks.jsonl is empty\n%s", out)
	}
}

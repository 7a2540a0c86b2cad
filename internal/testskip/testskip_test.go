package testskip

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// fakeT records what a skip did.
type fakeT struct {
	name    string
	skipped []any
}

func (f *fakeT) Helper()          {}
func (f *fakeT) Name() string     { return f.name }
func (f *fakeT) Skip(args ...any) { f.skipped = args }

// TestMissingRecords: a skip appends "group, install line, test" to the file $A2A_SKIP_LOG names, one line per skip,
// and skips the test with its reason.
func TestMissingRecords(t *testing.T) {
	log := filepath.Join(t.TempDir(), "skips")
	t.Setenv(EnvLog, log)
	a, b := &fakeT{name: "TestA"}, &fakeT{name: "TestB/sub"}
	Missing(a, Chromium, "chromium is not installed")
	Missing(b, PostgreSQL, "no postgres")
	got, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	want := "chromium\tapt-get install chromium\tTestA\nPostgreSQL\tapt-get install postgresql\tTestB/sub\n"
	if string(got) != want {
		t.Errorf("skip log = %q, want %q", got, want)
	}
	if len(a.skipped) != 1 || a.skipped[0] != "chromium is not installed" {
		t.Errorf("skipped with %v", a.skipped)
	}
}

// TestNoLog: without $A2A_SKIP_LOG a skip writes nothing and still skips.
func TestNoLog(t *testing.T) {
	t.Setenv(EnvLog, "")
	f := &fakeT{name: "TestA"}
	Missing(f, JQ, "no jq")
	if len(f.skipped) != 1 {
		t.Error("not skipped")
	}
}

// TestSummaryLine: the script make test runs after go test turns the skip log into one line naming each group, how
// many tests it skipped and the install line; no log, no line.
func TestSummaryLine(t *testing.T) {
	log := filepath.Join(t.TempDir(), "skips")
	t.Setenv(EnvLog, log)
	for _, f := range []struct{ name, group string }{{"TestA", Node}, {"TestB", Chromium}, {"TestC", Node}} {
		Missing(&fakeT{name: f.name}, f.group, "missing")
	}
	out, err := exec.Command("../../.ci/skips", log).CombinedOutput()
	if err != nil {
		t.Fatalf(".ci/skips: %v\n%s", err, out)
	}
	want := "make test: skipped for a missing tool: chromium (1 test: apt-get install chromium); node/npm (2 tests: apt-get install nodejs npm)\n"
	if string(out) != want {
		t.Errorf(".ci/skips printed %q, want %q", out, want)
	}
	out, err = exec.Command("../../.ci/skips", filepath.Join(t.TempDir(), "none")).CombinedOutput()
	if err != nil || len(out) != 0 {
		t.Errorf(".ci/skips without a log: %v %q, want nothing", err, out)
	}
}

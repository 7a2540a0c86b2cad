package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/pflag"
)

func TestParseDotenv(t *testing.T) {
	t.Parallel()
	got, err := parseDotenv([]byte("# comment\n\nexport A=1\nB='two # kept'\nC=\"x\\ny\"\nD=bare # dropped\n"))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"A": "1", "B": "two # kept", "C": "x\ny", "D": "bare"}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %q, want %q", k, got[k], v)
		}
	}
	if _, err := parseDotenv([]byte("NO EQUALS\n")); err == nil || !strings.Contains(err.Error(), "line 1") {
		t.Errorf("parseDotenv(bad line) = %v, want an error naming line 1", err)
	}
}

// TestApplyPrecedence: flag > environment > the --config file > default, each reported as its Source.
func TestApplyPrecedence(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file := filepath.Join(dir, "a2a.env")
	if err := os.WriteFile(file, []byte("A2ACLI_FROM_FILE=f\nA2ACLI_FROM_ENV=file-loses\nA2ACLI_AUTH=secret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	fs := pflag.NewFlagSet("t", pflag.ContinueOnError)
	for _, name := range []string{"from-flag", "from-env", "from-file", "default", "auth", "config"} {
		fs.String(name, "dflt", "")
	}
	if err := fs.Parse([]string{"--from-flag", "x", "--config", file}); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"A2ACLI_FROM_FLAG": "env-loses", "A2ACLI_FROM_ENV": "e", "HOME": dir}
	sources, err := Apply(fs, func(k string) string { return env[k] }, strings.NewReader(""))
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string][2]string{
		"from-flag": {"x", "flag"}, "from-env": {"e", "env A2ACLI_FROM_ENV"},
		"from-file": {"f", "file " + file}, "default": {"dflt", "default"},
	} {
		if v, src := fs.Lookup(name).Value.String(), sources[name].String(); v != want[0] || src != want[1] {
			t.Errorf("--%s = %q from %q, want %q from %q", name, v, src, want[0], want[1])
		}
	}
	for _, e := range Entries(fs, sources) {
		if e.Name == "auth" && (e.Value != "***" || e.Env != "A2ACLI_AUTH") {
			t.Errorf("config show entry for --auth = %+v, want the value masked", e)
		}
	}
}

func TestWithoutSecrets(t *testing.T) {
	got := WithoutSecrets([]string{"PATH=/bin", "A2ACLI_BEARER=t", "a2acli_client_secret=s", "A2ACLI_API_KEY=k", "A2ACLI_AUTH=Basic x",
		"A2ACLI_TIMEOUT=5s", "BEARER=mine", "A2ACLI_AUTHORITY=x"})
	want := []string{"PATH=/bin", "A2ACLI_TIMEOUT=5s", "BEARER=mine", "A2ACLI_AUTHORITY=x"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("WithoutSecrets = %q, want %q", got, want)
	}
}

// A credential flag, and --client-id beside --client-secret, take "@FILE" (its first line) or "-" (stdin's).
func TestApplyReadsFilesAndStdin(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	id := filepath.Join(dir, "client-id")
	if err := os.WriteFile(id, []byte("my-app\nsecond line\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	fs := pflag.NewFlagSet("t", pflag.ContinueOnError)
	for _, name := range []string{"client-id", "client-secret", "tenant"} {
		fs.String(name, "", "")
	}
	if err := fs.Parse([]string{"--client-id", "@" + id, "--client-secret", "-", "--tenant", "@" + id}); err != nil {
		t.Fatal(err)
	}
	if _, err := Apply(fs, func(string) string { return "" }, strings.NewReader("s3cret\r\n")); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{"client-id": "my-app", "client-secret": "s3cret", "tenant": "@" + id} {
		if got := fs.Lookup(name).Value.String(); got != want {
			t.Errorf("--%s = %q, want %q", name, got, want)
		}
	}
}

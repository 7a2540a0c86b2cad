package e2e

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestServeExecEnv: `--exec env` run by a caller holding the token does not show serve's own configuration: the
// token, the store's URL and PGPASSWORD stay out of the command's environment, while the rest of the environment,
// what --exec-env passes through by name and what it sets, and the task's variables reach it. A client's
// A2ACLI_AUTH in serve's environment does not stop serve from starting.
func TestServeExecEnv(t *testing.T) {
	t.Parallel()
	const token = "tok-s3cret-serve"
	db := "sqlite:" + filepath.Join(t.TempDir(), "tasks.db")
	s := startServeEnv(t, []string{
		"A2ACLI_SERVE_TOKEN=" + token,
		"A2ACLI_STORE=" + db,
		"A2ACLI_AUTH=Bearer client-s3cret",
		"PGPASSWORD=pg-s3cret",
		"PGAPPNAME=passed-app",
		"PGUSER=pg-user-kept-out",
		"A2A_E2E_PLAIN=inherited",
	}, "--exec", "env", "--exec-env", "PGAPPNAME", "--exec-env", "A2A_E2E_SET=set=by-flag")
	r := run(t, "", "send", s.url, "hi", "--auth", "Bearer "+token, "-o", "raw")
	r.stdout = "\n" + r.stdout
	wantCode(t, r, 0)
	for _, secret := range []string{"s3cret", "A2ACLI_", "PGUSER", db} {
		if strings.Contains(r.stdout, secret) {
			t.Errorf("the command's environment holds %q:\n%s", secret, r.stdout)
		}
	}
	wantContains(t, "the command's environment", r.stdout, "\nA2A_E2E_PLAIN=inherited\n", "\nPGAPPNAME=passed-app\n",
		"\nA2A_E2E_SET=set=by-flag\n", "\nA2A_TASK_ID=", "\nPATH=")

	r = run(t, "", "serve", "--echo", "--port", "0", "--exec-env", "X")
	wantCode(t, r, 2)
	wantContains(t, "--exec-env without --exec", r.stderr, "go with --exec")
	r = run(t, "", "serve", "--exec", "env", "--port", "0", "--exec-env", "NOT A NAME")
	wantCode(t, r, 2)
	wantContains(t, "a bad name", r.stderr, `invalid --exec-env "NOT A NAME"`)
	r = run(t, "", "serve", "--exec", "env", "--port", "0", "--auth", "Bearer x")
	wantCode(t, r, 2)
	wantContains(t, "--auth given to serve --exec", r.stderr, "--auth and --svc-param go with --proxy")
}

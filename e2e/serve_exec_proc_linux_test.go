package e2e

import (
	"crypto/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// snoop is an --exec command that tries to read serve's secrets through /proc, as the user serve runs as, and
// answers what it read: serve's environment and memory map (whole, if it can), whether it could open serve's
// memory, what stays readable (serve's name, its command line, its status, which the memory tests read), and the
// environment of serve's other children (the exec watchdog).
const snoop = `p=$PPID
echo "uid: $(id -u)"
echo "parent: $(cat /proc/$p/comm)"
for f in environ maps; do
	if tr '\0' '\n' < /proc/$p/$f; then echo "$f: read"; else echo "$f: refused"; fi
done
if (: < /proc/$p/mem) 2>/dev/null; then echo "mem: opened"; else echo "mem: refused"; fi
if ls /proc/$p/fd >/dev/null 2>&1; then echo "fd: listed"; else echo "fd: refused"; fi
if cat /proc/$p/cmdline >/dev/null; then echo "cmdline: read"; fi
if grep -q '^VmRSS:' /proc/$p/status; then echo "status: read"; fi
for c in $(cat /proc/$p/task/*/children); do
	[ "$c" = $$ ] && continue
	if tr '\0' '\n' < /proc/$c/environ; then
		if grep -q -a a2a-exec-watchdog /proc/$c/cmdline; then echo "watchdog: read"; else echo "child $c: read"; fi
	fi
done`

// TestServeExecCannotReadServe: a command run by `serve --exec` cannot read serve's own environment or memory
// through /proc, although it runs as serve's user, nor find them in the environment of the exec watchdog serve
// starts: the token (A2ACLI_SERVE_TOKEN) and the store's password (PGPASSWORD) in serve's environment do not reach
// the caller. Serve's status stays readable. Root may read any process's /proc files, so when the tests run as
// root, serve runs as nobody (and so does its command).
func TestServeExecCannotReadServe(t *testing.T) {
	t.Parallel()
	token, pgPassword := "tok-"+rand.Text(), "pg-"+rand.Text() // no other test's, in an environment the command may read
	cmd := exec.Command(bin, "serve", "--port", "0", "--exec", snoop)
	var env []string
	if os.Geteuid() == 0 {
		// nobody needs a binary, a working directory and configuration folders it may reach.
		dir, err := os.MkdirTemp("", "a2a-e2e-nobody-")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.RemoveAll(dir) })
		nobodyBin := filepath.Join(dir, "a2a")
		if err := exec.Command("cp", bin, nobodyBin).Run(); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		cmd.Path, cmd.Args[0], cmd.Dir = nobodyBin, nobodyBin, dir
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
		env = append(env, "HOME="+dir, "XDG_CONFIG_HOME="+filepath.Join(dir, "config"), "XDG_CACHE_HOME="+filepath.Join(dir, "cache"))
	}
	s := startServeCmd(t, cmd, append(env, "A2ACLI_SERVE_TOKEN="+token, "PGPASSWORD="+pgPassword)...)
	r := run(t, "", "send", s.url, "hi", "--auth", "Bearer "+token, "-o", "raw")
	wantCode(t, r, 0)
	for _, secret := range []string{token, pgPassword} {
		if strings.Contains(r.stdout, secret) {
			t.Errorf("the command read %q:\n%s", secret, r.stdout)
		}
	}
	wantContains(t, "what the command read of serve", r.stdout, "\nparent: a2a\n",
		"\nenviron: refused\n", "\nmaps: refused\n", "\nmem: refused\n", "\nfd: refused\n", "\nstatus: read\n",
		"\nwatchdog: read\n")
	if os.Geteuid() == 0 {
		wantContains(t, "the command's user", r.stdout, "uid: 65534\n")
	}
}

package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/a2acli/a2a/internal/serve/servetest"
	"github.com/a2acli/a2a/internal/store/pgtest"
)

// pg is the PostgreSQL server of the package's store tests, started on first use and stopped by TestMain.
var pg pgtest.Shared

// postgresURL returns the URL of a fresh database on the shared server, skipping the test when PostgreSQL is not
// installed (a failure with CI=1).
func postgresURL(t *testing.T) string {
	t.Helper()
	return pg.NewDB(t)
}

// storeScript echoes its input line as a chunk, with its pid; a line starting with "slow" then sleeps, so the task
// keeps running until it is canceled or its server dies.
const storeScript = `read l; echo "pid $$"; echo "got $l"; case "$l" in slow*) sleep 120;; esac`

func getTask(t *testing.T, url string, id a2a.TaskID) (*a2a.Task, result) {
	t.Helper()
	r := run(t, "", "get", "task", url, string(id), "--with-artifacts", "-o", "json")
	if r.code != 0 {
		return nil, r
	}
	var task a2a.Task
	if err := json.Unmarshal([]byte(r.stdout), &task); err != nil {
		t.Fatalf("get task: %v\n%s", err, r.stdout)
	}
	return &task, r
}

func statusText(t *a2a.Task) string {
	if t.Status.Message == nil || len(t.Status.Message.Parts) == 0 {
		return ""
	}
	return t.Status.Message.Parts[0].Text()
}

// startSlow starts a streaming send of a slow task on url and returns the client, the task ID and the pid of the
// script running it, once its first chunk arrived.
func startSlow(t *testing.T, url string) (*client, a2a.TaskID, int) {
	t.Helper()
	c := startClient(t, "send", url, "slow", "--stream", "-o", "json")
	text, id := firstChunk(t, c, 30*time.Second)
	pid := pidsFrom(t, strings.TrimPrefix(strings.TrimSpace(text), "pid "))[0]
	killOnCleanup(t, pid)
	return c, id, pid
}

// TestStoreSQLiteRestart: tasks survive a restart on sqlite:; one that was running when the server was killed is
// reported failed at start-up, saying why, instead of working forever. The files serve creates hold every task's
// messages: they are its user's only (0600), whatever the umask lets through (022 gave 0644 before).
func TestStoreSQLiteRestart(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db := "sqlite:" + filepath.Join(dir, "tasks.db")
	args := []string{"--exec", storeScript, "--chunk", "\n", "--store", db}
	s := startServe(t, args...)
	r := run(t, "", "send", s.url, "fast", "-o", "json")
	wantCode(t, r, 0)
	done := sendTask(t, r)
	for _, name := range []string{"tasks.db", "tasks.db-wal"} {
		fi, err := os.Stat(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if m := fi.Mode().Perm(); m != 0o600 {
			t.Errorf("%s: mode %o, want 600", name, m)
		}
	}
	_, slowID, pid := startSlow(t, s.url)
	s.cmd.Process.Kill() // kill -9: no chance to write anything more
	s.cmd.Wait()
	syscall.Kill(-pid, syscall.SIGKILL) // the script's process group: its serve cannot stop it any more

	s2 := startServe(t, args...)
	got, r := getTask(t, s2.url, done.ID)
	if got == nil || got.Status.State != a2a.TaskStateCompleted || len(got.Artifacts) == 0 {
		t.Fatalf("finished task after restart: %v", r)
	}
	var text strings.Builder
	for _, p := range got.Artifacts[0].Parts {
		text.WriteString(p.Text())
	}
	wantContains(t, "artifact after restart", text.String(), "got fast")
	slow, r := getTask(t, s2.url, slowID)
	if slow == nil || slow.Status.State != a2a.TaskStateFailed || !strings.Contains(statusText(slow), "server stopped while the task was running") {
		t.Fatalf("running task after restart: %v", r)
	}
	r = run(t, "", "list", "tasks", s2.url)
	wantCode(t, r, 0)
	wantContains(t, "list after restart", r.stdout, string(done.ID), string(slowID), "Total: 2")
	// A clean stop and start keeps them too, and the second process on the same file is refused.
	r = run(t, "", "serve", "--echo", "--port", "0", "--store", db)
	wantCode(t, r, 1)
	wantContains(t, "second serve on the file", r.stderr, "task store "+db, "locked")
}

// TestStoreReplicas: three replicas on one PostgreSQL answer for each other's tasks: get, list, subscribe to a
// task running on another replica, and cancel it there (its process group stops within a second).
func TestStoreReplicas(t *testing.T) {
	t.Parallel()
	db := postgresURL(t)
	var reps []*server
	for range 3 {
		reps = append(reps, startServe(t, "--exec", storeScript, "--chunk", "\n", "--store", db))
	}
	a, b, c := reps[0], reps[1], reps[2]
	r := run(t, "", "send", a.url, "fast", "-o", "json")
	wantCode(t, r, 0)
	done := sendTask(t, r)
	for _, rep := range []*server{b, c} {
		got, r := getTask(t, rep.url, done.ID)
		if got == nil || got.Status.State != a2a.TaskStateCompleted {
			t.Fatalf("get on another replica: %v", r)
		}
	}
	sender, slowID, pid := startSlow(t, a.url)
	r = run(t, "", "list", "tasks", c.url, "-o", "json")
	wantCode(t, r, 0)
	wantContains(t, "list on the third replica", r.stdout, string(done.ID), string(slowID), `"totalSize":2`)

	sub := startClient(t, "subscribe", b.url, string(slowID), "-o", "json")
	if ev := sub.event(t, 30*time.Second); ev.TaskInfo().TaskID != slowID {
		t.Fatalf("subscribe on replica b: first event %#v", ev)
	}
	start := time.Now()
	r = run(t, "", "cancel", c.url, string(slowID), "-o", "json")
	wantCode(t, r, 0)
	var canceled a2a.Task
	if err := json.Unmarshal([]byte(r.stdout), &canceled); err != nil || canceled.Status.State != a2a.TaskStateCanceled {
		t.Fatalf("cancel on replica c: %v", r)
	}
	wantGone(t, 5*time.Second, pid)
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("cancel through another replica took %s", d)
	}
	rest, code := sub.wait(t, 30*time.Second)
	if code != 0 || len(rest) == 0 || !strings.Contains(rest[len(rest)-1], "TASK_STATE_CANCELED") {
		t.Fatalf("subscriber on b: exit %d, last lines %q\n%s", code, rest, sub.Stderr())
	}
	sender.wait(t, 30*time.Second)
}

// TestStoreReplicaKilled: when the replica running a task is killed (-9), another one fails the task within the
// lease, saying the replica stopped.
func TestStoreReplicaKilled(t *testing.T) {
	t.Parallel()
	db := postgresURL(t)
	args := []string{"--exec", storeScript, "--chunk", "\n", "--store", db, "--lease", "1s"}
	a := startServe(t, args...)
	b := startServe(t, args...)
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("replica a:\n%s\nreplica b:\n%s", a.Log(), b.Log())
		}
	})
	_, id, pid := startSlow(t, a.url)
	a.cmd.Process.Kill()
	a.cmd.Wait()
	syscall.Kill(-pid, syscall.SIGKILL) // the script's process group: its serve cannot stop it any more
	killed := time.Now()
	var got *a2a.Task
	eventually(t, 20*time.Second, "task failed by the other replica", func() bool {
		got, _ = getTask(t, b.url, id)
		return got != nil && got.Status.State == a2a.TaskStateFailed
	})
	wantContains(t, "status message", statusText(got), "stopped while the task was running", "lease of 1s expired")
	if d := time.Since(killed); d > 10*time.Second {
		t.Errorf("failed after %s, lease 1s", d)
	}
}

// TestStoreGoesAway: while PostgreSQL is stopped, no call is told a task ended that a crash would lose: a send whose
// turn ended but could not be saved fails with a clear error (blocking and streaming), later calls fail fast, and
// after a kill -9 of serve and a restart of both, every task reported completed is there. Clients hear "task store
// unavailable"; the details, the store named with every password redacted (the URL's user info, password= and
// sslpassword= in its query, PGPASSWORD), go to serve's log only. Once the store is back, calls work again without
// restarting serve.
func TestStoreGoesAway(t *testing.T) {
	t.Parallel()
	srv, db := servetest.OwnPostgres(t) // skips without PostgreSQL
	// Every form a password takes (trust authentication ignores them).
	db = strings.Replace(db, "postgres:s3cret-pw@", "postgres@", 1) + "&password=q-s3cret-pw&sslpassword=ssl-s3cret-pw"
	env := []string{"PGPASSWORD=env-s3cret-pw"}
	args := []string{"--exec", storeScript, "--chunk", "\n", "--store", db}
	s := startServeEnv(t, env, args...)
	noLeak := func(what, out string) {
		t.Helper()
		if strings.Contains(out, "s3cret") || strings.Contains(out, "postgres://") {
			t.Fatalf("%s: the store's URL or password reached a client:\n%s", what, out)
		}
	}
	r := run(t, "", "send", s.url, "before", "-o", "json")
	wantCode(t, r, 0)
	before := sendTask(t, r)
	completed := []a2a.TaskID{before.ID}

	srv.Stop()
	// The first call after the store went away: its turn ends, but the end cannot be saved.
	r = run(t, "", "send", s.url, "during", "-o", "json")
	if r.code == 0 {
		t.Fatalf("a send answered while the store is away: %v", r)
	}
	wantContains(t, "blocking send while the store is away", r.String(), "task store unavailable", "not saved yet")
	noLeak("blocking send", r.stdout+r.stderr)
	r = run(t, "", "send", s.url, "during stream", "--stream", "-o", "json")
	if r.code == 0 || strings.Contains(r.stdout, "TASK_STATE_COMPLETED") {
		t.Fatalf("a stream ended completed while the store is away: %v", r)
	}
	wantContains(t, "streaming send while the store is away", r.stderr+r.stdout, "task store unavailable")
	noLeak("streaming send", r.stdout+r.stderr)
	for _, args := range [][]string{{"send", s.url, "later"}, {"get", "task", s.url, string(before.ID)}, {"list", "tasks", s.url}} {
		r = run(t, "", args...)
		if r.code == 0 {
			t.Fatalf("a2a %s while the store is away: %v", args[0], r)
		}
		wantContains(t, args[0]+" while the store is away", r.stderr, "task store unavailable")
		noLeak(args[0], r.stdout+r.stderr)
	}
	log := s.Log()
	if strings.Contains(log, "s3cret") {
		t.Fatalf("password in serve's log:\n%s", log)
	}
	wantContains(t, "serve's log", log, "task store postgres://postgres@127.0.0.1:", "password=xxxxx&sslpassword=xxxxx")

	// kill -9 while the store is away, then both come back: what was reported completed is there.
	s.cmd.Process.Kill()
	s.cmd.Wait()
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	s2 := startServeEnv(t, env, args...)
	for _, id := range completed {
		got, r := getTask(t, s2.url, id)
		if got == nil || got.Status.State != a2a.TaskStateCompleted {
			t.Fatalf("task %s reported completed, after kill -9 and restart: %v", id, r)
		}
	}

	// Away again and back, serve running all along: calls work again without a restart.
	srv.Stop()
	eventually(t, 20*time.Second, "a call failing while the store is away", func() bool {
		return run(t, "", "send", s2.url, "away again").code != 0
	})
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	eventually(t, 20*time.Second, "calls working again once the store is back", func() bool {
		return run(t, "", "send", s2.url, "after").code == 0
	})
	if strings.Contains(s2.Log(), "s3cret") {
		t.Fatalf("password in serve's log:\n%s", s2.Log())
	}
}

// TestStoreBadURL: a store that cannot be used stops serve at start, exit 1, the URL's password redacted; a URL
// that is not a store at all is a usage error.
func TestStoreBadURL(t *testing.T) {
	t.Parallel()
	r := run(t, "", "serve", "--echo", "--port", "0", "--store", "postgres://bob:hunter2@127.0.0.1:1/db?connect_timeout=5")
	wantCode(t, r, 1)
	wantContains(t, "unreachable store", r.stderr, "task store postgres://bob:xxxxx@127.0.0.1:1/db")
	if strings.Contains(r.stderr, "hunter2") {
		t.Fatalf("password in the error: %s", r.stderr)
	}
	r = run(t, "", "serve", "--echo", "--port", "0", "--store", "postgres://bob@127.0.0.1:1/db?password=hunter2&connect_timeout=5")
	wantCode(t, r, 1)
	wantContains(t, "unreachable store, password in the query", r.stderr, "task store postgres://bob@127.0.0.1:1/db?password=xxxxx&connect_timeout=5")
	if strings.Contains(r.stderr, "hunter2") {
		t.Fatalf("password in the error: %s", r.stderr)
	}
	r = run(t, "", "serve", "--echo", "--port", "0", "--store", "redis://bob:hunter2@x")
	wantCode(t, r, 2)
	wantContains(t, "not a store", r.stderr, "invalid --store: want memory, sqlite:PATH or postgres://...")
	r = run(t, "", "serve", "--echo", "--port", "0", "--store", "sqlite:"+filepath.Join(t.TempDir(), "t.db"), "--lease", "5s")
	wantCode(t, r, 2)
	wantContains(t, "lease without postgres", r.stderr, "--lease goes with a postgres:// --store")
}

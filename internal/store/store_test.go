package store

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/a2acli/a2a/internal/store/pgtest"
)

var pg *pgtest.Server

func TestMain(m *testing.M) {
	s, stop, err := pgtest.Main()
	if err != nil {
		fmt.Fprintln(os.Stderr, "store tests: start PostgreSQL:", err)
		os.Exit(1)
	}
	pg = s
	code := m.Run()
	stop()
	os.Exit(code)
}

// tasks is a Source over a map, standing in for serve's memory.
type tasks struct {
	mu sync.Mutex
	m  map[a2a.TaskID]*Snapshot
}

func (ts *tasks) put(s *Store, snap *Snapshot, urgent bool) {
	ts.mu.Lock()
	ts.m[snap.Task.ID] = snap
	ts.mu.Unlock()
	s.Touch(snap.Task.ID, urgent)
}

func (ts *tasks) source(id a2a.TaskID) (*Snapshot, bool) {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	s, ok := ts.m[id]
	return s, ok
}

type backend struct {
	name string
	url  func(t *testing.T) string
}

func backends() []backend {
	return []backend{
		{"sqlite", func(t *testing.T) string { return "sqlite:" + filepath.Join(t.TempDir(), "tasks.db") }},
		{"postgres", func(t *testing.T) string {
			pgtest.Need(t, pg)
			u, err := pg.NewDB()
			if err != nil {
				t.Fatal(err)
			}
			return u
		}},
	}
}

func open(t *testing.T, url string, opts Options) (*Store, *tasks) {
	t.Helper()
	ts := &tasks{m: map[a2a.TaskID]*Snapshot{}}
	if opts.Source == nil {
		opts.Source = ts.source
	}
	s, err := Open(context.Background(), url, opts)
	if err != nil {
		t.Fatalf("Open(%s): %v", url, err)
	}
	t.Cleanup(func() { s.Close() })
	return s, ts
}

func task(id string, state a2a.TaskState, at time.Time) *a2a.Task {
	return &a2a.Task{ID: a2a.TaskID(id), ContextID: "ctx-" + id, Status: a2a.TaskStatus{State: state, Timestamp: &at},
		History: []*a2a.Message{a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("hi "+id))}}
}

func flush(t *testing.T, s *Store) {
	t.Helper()
	if err := s.Flush(context.Background()); err != nil {
		t.Fatalf("Flush: %v", err)
	}
}

func TestRoundTripAndList(t *testing.T) {
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			s, ts := open(t, b.url(t), Options{})
			base := time.Unix(1700000000, 0)
			for i := range 5 {
				state := a2a.TaskStateCompleted
				if i%2 == 1 {
					state = a2a.TaskStateWorking
				}
				tk := task(fmt.Sprintf("t%d", i), state, base.Add(time.Duration(i)*time.Second))
				tk.ContextID = "c" + fmt.Sprint(i%2)
				ts.put(s, &Snapshot{Task: tk, Updated: base.Add(time.Duration(i) * time.Second), Seq: int64(i),
					Push: []Push{{Config: &a2a.PushConfig{ID: "p", TaskID: tk.ID, URL: "http://127.0.0.1:1/hook"}, V03: true}}}, false)
			}
			flush(t, s)
			got, err := s.Load(context.Background(), "t3")
			if err != nil {
				t.Fatal(err)
			}
			if got.Task.Status.State != a2a.TaskStateWorking || got.Seq != 3 || got.Task.ContextID != "c1" ||
				len(got.Push) != 1 || !got.Push[0].V03 || got.Push[0].Config.URL != "http://127.0.0.1:1/hook" ||
				got.Task.History[0].Parts[0].Text() != "hi t3" {
				t.Fatalf("Load(t3) = %+v", got)
			}
			if _, err := s.Load(context.Background(), "nope"); err != ErrNotFound {
				t.Fatalf("Load(nope) error = %v, want ErrNotFound", err)
			}
			page, total, err := s.List(context.Background(), Query{Limit: 2})
			if err != nil {
				t.Fatal(err)
			}
			if total != 5 || len(page) != 2 || page[0].Task.ID != "t4" || page[1].Task.ID != "t3" {
				t.Fatalf("List page 1 = %d %v", total, ids(page))
			}
			next, _, err := s.List(context.Background(), Query{Limit: 10, After: &Cursor{Updated: page[1].Updated, ID: page[1].Task.ID}})
			if err != nil {
				t.Fatal(err)
			}
			if got := ids(next); got != "t2 t1 t0" {
				t.Fatalf("List page 2 = %s, want t2 t1 t0", got)
			}
			after := base.Add(1500 * time.Millisecond)
			f, total, err := s.List(context.Background(), Query{Limit: 10, ContextID: "c0", State: a2a.TaskStateCompleted, StatusAfter: &after})
			if err != nil {
				t.Fatal(err)
			}
			if got := ids(f); got != "t4 t2" || total != 2 {
				t.Fatalf("List filtered = %s (%d), want t4 t2 (2)", got, total)
			}
		})
	}
}

func ids(ss []*Snapshot) string {
	var out []string
	for _, s := range ss {
		out = append(out, string(s.Task.ID))
	}
	return strings.Join(out, " ")
}

// TestRestartFailsRunning guards the promise that a task is never left working forever: tasks that were running
// when a SQLite store was last closed are failed at its next Open, finished ones are kept as they were.
func TestRestartFailsRunning(t *testing.T) {
	url := "sqlite:" + filepath.Join(t.TempDir(), "tasks.db")
	s, ts := open(t, url, Options{})
	now := time.Now()
	ts.put(s, &Snapshot{Task: task("run", a2a.TaskStateWorking, now), Updated: now, Owner: s.Replica(), Seq: 4}, true)
	ts.put(s, &Snapshot{Task: task("done", a2a.TaskStateCompleted, now), Updated: now}, true)
	flush(t, s)
	s.Close()
	s2, _ := open(t, url, Options{})
	got, err := s2.Load(context.Background(), "run")
	if err != nil {
		t.Fatal(err)
	}
	if got.Task.Status.State != a2a.TaskStateFailed || got.Owner != "" || got.Seq != 5 ||
		!strings.Contains(got.Task.Status.Message.Parts[0].Text(), "server stopped while the task was running") {
		t.Fatalf("running task after restart = %+v", got.Task.Status)
	}
	done, err := s2.Load(context.Background(), "done")
	if err != nil || done.Task.Status.State != a2a.TaskStateCompleted {
		t.Fatalf("finished task after restart = %+v, %v", done, err)
	}
}

// TestSecondProcessRefused: two serves on one SQLite file would fail each other's tasks; the second is refused.
func TestSecondProcessRefused(t *testing.T) {
	url := "sqlite:" + filepath.Join(t.TempDir(), "tasks.db")
	open(t, url, Options{})
	_, err := Open(context.Background(), url, Options{Source: func(a2a.TaskID) (*Snapshot, bool) { return nil, false }})
	if err == nil || !strings.Contains(err.Error(), "locked") || !strings.Contains(err.Error(), url) ||
		strings.Contains(err.Error(), "pragma") {
		t.Fatalf("second Open error = %v, want a locked database naming %s (and no driver pragma)", err, url)
	}
}

func TestNewerSchemaRefused(t *testing.T) {
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			url := b.url(t)
			s, _ := open(t, url, Options{})
			if _, err := s.db.Exec(`UPDATE a2a_schema SET version = 99`); err != nil {
				t.Fatal(err)
			}
			s.Close()
			_, err := Open(context.Background(), url, Options{Source: func(a2a.TaskID) (*Snapshot, bool) { return nil, false }})
			if err == nil || !strings.Contains(err.Error(), "schema version 99 is newer than this a2a knows (1)") {
				t.Fatalf("Open error = %v, want the newer schema refused", err)
			}
		})
	}
}

func TestBadURLs(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ url, want string }{
		{"redis://x", `invalid store "redis://x": want memory, sqlite:PATH or postgres://...`},
		{"sqlite:", "invalid store sqlite: want sqlite:PATH"},
		{"sqlite:" + filepath.Join(t.TempDir(), "no", "such", "dir", "x.db"), "task store sqlite:"},
		{"postgres://bob:hunter2@127.0.0.1:1/db?connect_timeout=5", "task store postgres://bob:xxxxx@127.0.0.1:1/db?connect_timeout=5:"},
		{"postgres://bob:hunter2@[::1/db", "invalid store URL"},
		{"postgres://bob@127.0.0.1:1/db?password=hunter2&connect_timeout=5", "task store postgres://bob@127.0.0.1:1/db?password=xxxxx&connect_timeout=5:"},
		{"postgres://bob@127.0.0.1:1/db?sslpassword=hunter2&password=hunter2%21&connect_timeout=5", "sslpassword=xxxxx&password=xxxxx&"},
		{"host=127.0.0.1 password='hunter2 x' dbname=db", `invalid store "host=127.0.0.1 password=xxxxx dbname=db"`},
	} {
		_, err := Open(context.Background(), tc.url, Options{})
		if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "hunter2") {
			t.Errorf("Open(%q) error = %v, want it to contain %q and no password", tc.url, err, tc.want)
		}
	}
}

func TestRetention(t *testing.T) {
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			now := time.Now()
			clock := func() time.Time { return now }
			s, ts := open(t, b.url(t), Options{MaxTasks: 2, TTL: time.Hour, Now: clock})
			for i := range 4 {
				at := now.Add(time.Duration(i-4) * time.Minute)
				ts.put(s, &Snapshot{Task: task(fmt.Sprint("f", i), a2a.TaskStateCompleted, at), Updated: at}, false)
			}
			old := now.Add(-2 * time.Hour)
			ts.put(s, &Snapshot{Task: task("old", a2a.TaskStateCompleted, old), Updated: old}, false)
			ts.put(s, &Snapshot{Task: task("oldrun", a2a.TaskStateWorking, old), Updated: old, Owner: s.Replica()}, false)
			flush(t, s)
			if _, err := s.Load(context.Background(), "old"); err != ErrNotFound {
				t.Fatalf("Load(old) error = %v, want ErrNotFound (past the TTL)", err)
			}
			if err := s.prune(context.Background()); err != nil {
				t.Fatal(err)
			}
			all, total, err := s.List(context.Background(), Query{Limit: 10})
			if err != nil {
				t.Fatal(err)
			}
			if got := ids(all); got != "f3 f2 oldrun" || total != 3 {
				t.Fatalf("after prune: %s (%d), want f3 f2 oldrun: two finished, the running one kept", got, total)
			}
		})
	}
}

// TestSQLiteFileModes: the database file and its -wal and -shm files are readable by their owner only, whatever
// the umask lets through.
func TestSQLiteFileModes(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "tasks.db")
	s, ts := open(t, "sqlite:"+path, Options{})
	ts.put(s, &Snapshot{Task: task("t1", a2a.TaskStateCompleted, time.Now()), Updated: time.Now()}, true)
	flush(t, s)
	check := func() int {
		t.Helper()
		n := 0
		for _, name := range []string{"tasks.db", "tasks.db-wal", "tasks.db-shm", "tasks.db-journal"} {
			fi, err := os.Stat(filepath.Join(dir, name))
			if os.IsNotExist(err) {
				continue
			}
			if err != nil {
				t.Fatal(err)
			}
			n++
			if m := fi.Mode().Perm(); m != 0o600 {
				t.Errorf("%s: mode %o, want 600", name, m)
			}
		}
		return n
	}
	if n := check(); n < 2 {
		t.Fatalf("want the database and its -wal file, found %d files", n)
	}
	s.Close()
	check()
}

// TestScrubDriverEnv: the passwords the driver reads from the environment are scrubbed from errors too.
func TestScrubDriverEnv(t *testing.T) {
	t.Setenv("PGPASSWORD", "env-hunter2")
	t.Setenv("PGSSLPASSWORD", "ssl-hunter2")
	name, secrets, err := parseURL("postgres://bob@127.0.0.1:1/db")
	if err != nil {
		t.Fatal(err)
	}
	s := &Store{name: name, secrets: secrets}
	got := s.wrap(fmt.Errorf("driver said env-hunter2 and ssl-hunter2")).Error()
	if strings.Contains(got, "hunter2") {
		t.Fatalf("wrap = %q", got)
	}
}

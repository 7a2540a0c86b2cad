package store

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

// TestSQLiteFileOfTheOldDriver: a store file written before the switch of SQLite drivers (testdata/modernc-v1.59.db:
// `a2a serve --echo --store sqlite:...` built with modernc.org/sqlite v1.59.0, one message sent, then stopped with
// Ctrl-C) opens with the driver of today: its task reads back whole, and the file takes new tasks and keeps them.
func TestSQLiteFileOfTheOldDriver(t *testing.T) {
	old, err := os.ReadFile(filepath.Join("testdata", "modernc-v1.59.db"))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "tasks.db")
	if err := os.WriteFile(path, old, 0o600); err != nil {
		t.Fatal(err)
	}
	const id, text = "01a21b41-4a61-7750-80bf-fcfd6ea76e87", "written by the modernc.org/sqlite driver"
	check := func(s *Store) {
		t.Helper()
		got, err := s.Load(context.Background(), id)
		if err != nil {
			t.Fatalf("Load(%s) of the old file: %v", id, err)
		}
		tk := got.Task
		if tk.Status.State != a2a.TaskStateCompleted || got.Owner != "" || tk.ContextID != "01a21b41-4a61-7752-9f5c-b3e310e96bbe" ||
			len(tk.History) != 1 || tk.History[0].Parts[0].Text() != text ||
			len(tk.Artifacts) != 1 || tk.Artifacts[0].Parts[0].Text() != text {
			t.Fatalf("old task = %+v (owner %q), want the completed echo of %q", tk, got.Owner, text)
		}
		if want := time.Date(2026, 11, 27, 4, 26, 33, 441561510, time.UTC); !tk.Status.Timestamp.Equal(want) {
			t.Errorf("old task's status time = %s, want %s", tk.Status.Timestamp, want)
		}
	}
	s, ts := open(t, "sqlite:"+path, Options{})
	check(s)
	now := time.Now()
	ts.put(s, &Snapshot{Task: task("new", a2a.TaskStateCompleted, now), Updated: now}, true)
	flush(t, s)
	s.Close()

	s, _ = open(t, "sqlite:"+path, Options{})
	check(s)
	list, total, err := s.List(context.Background(), Query{Limit: 10})
	if err != nil || total != 2 || len(list) != 2 || list[0].Task.ID != "new" || list[1].Task.ID != id {
		t.Fatalf("List after a new task = %d tasks, total %d, %v; want new then the old one", len(list), total, err)
	}
}

// TestSQLiteKilledFileOfTheOldDriver: a store left by a serve built with modernc.org/sqlite v1.59.0 and killed
// with kill -9 (testdata/modernc-v1.59-killed: its tasks still in the -wal file, one finished, one running) opens
// with the driver of today: the WAL is recovered, the finished task reads back, the running one is failed.
func TestSQLiteKilledFileOfTheOldDriver(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"tasks.db", "tasks.db-wal"} {
		b, err := os.ReadFile(filepath.Join("testdata", "modernc-v1.59-killed", name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	s, _ := open(t, "sqlite:"+filepath.Join(dir, "tasks.db"), Options{})
	ctx := context.Background()
	fast, err := s.Load(ctx, "01a21b45-45b7-73b2-b32e-3af4b7f94561")
	if err != nil {
		t.Fatal(err)
	}
	if tk := fast.Task; tk.Status.State != a2a.TaskStateCompleted || len(tk.Artifacts) != 1 ||
		tk.Artifacts[0].Parts[0].Text() != "got fast before the crash\n" {
		t.Fatalf("finished task of the killed store = %+v", tk)
	}
	slow, err := s.Load(ctx, "01a21b45-45c1-7318-8105-dc1c94f5c9dd")
	if err != nil {
		t.Fatal(err)
	}
	if st := slow.Task.Status; st.State != a2a.TaskStateFailed || slow.Owner != "" ||
		!strings.Contains(st.Message.Parts[0].Text(), "server stopped while the task was running") {
		t.Fatalf("running task of the killed store = %+v (owner %q), want failed", st, slow.Owner)
	}
}

// TestSQLiteOddPath: a store path with characters a SQLite URI would read otherwise (space, &, +, %, #, ?) names
// that file, and its -wal file gets the database's mode through the escaped modeof parameter.
func TestSQLiteOddPath(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "a b&c+d%20e#f?g")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "t&modeof=x.db")
	s, ts := open(t, "sqlite:"+path, Options{})
	now := time.Now()
	ts.put(s, &Snapshot{Task: task("t1", a2a.TaskStateCompleted, now), Updated: now}, true)
	flush(t, s)
	for _, name := range []string{"t&modeof=x.db", "t&modeof=x.db-wal"} {
		fi, err := os.Stat(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if m := fi.Mode().Perm(); m != 0o600 {
			t.Errorf("%s: mode %o, want 600", name, m)
		}
	}
	entries, err := os.ReadDir(filepath.Dir(dir))
	if err != nil || len(entries) != 1 {
		t.Fatalf("files beside the store's directory: %v, %v; want its directory only", entries, err)
	}
}

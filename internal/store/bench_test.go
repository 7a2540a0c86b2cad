package store

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

// benchSQLite opens a sqlite: store in a fresh directory for a benchmark.
func benchSQLite(b *testing.B) (*Store, *tasks) {
	b.Helper()
	ts := &tasks{m: map[a2a.TaskID]*Snapshot{}}
	s, err := Open(context.Background(), "sqlite:"+filepath.Join(b.TempDir(), "tasks.db"), Options{Source: ts.source})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	return s, ts
}

// benchTask is a finished task of about 2 KB as JSON: a message and an artifact.
func benchTask(id string) *a2a.Task {
	tk := task(id, a2a.TaskStateCompleted, time.Now())
	tk.Artifacts = []*a2a.Artifact{{ID: "a", Parts: []*a2a.Part{a2a.NewTextPart(strings.Repeat("x", 1800))}}}
	return tk
}

// BenchmarkSQLiteWrite: one task written and committed per op (the write of a task's end, which its client waits
// for): the driver's cost per statement and per commit, without HTTP around it.
func BenchmarkSQLiteWrite(b *testing.B) {
	s, ts := benchSQLite(b)
	ctx := context.Background()
	b.ResetTimer()
	for i := range b.N {
		tk := benchTask(fmt.Sprint("t", i))
		ts.put(s, &Snapshot{Task: tk, Updated: time.Now()}, true)
		if err := s.FlushTask(ctx, tk.ID); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSQLiteRead: Load of one task and a List page of 20 out of 1,000 tasks per op.
func BenchmarkSQLiteRead(b *testing.B) {
	s, ts := benchSQLite(b)
	ctx := context.Background()
	for i := range 1000 {
		ts.put(s, &Snapshot{Task: benchTask(fmt.Sprint("t", i)), Updated: time.Now()}, false)
	}
	if err := s.Flush(ctx); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := range b.N {
		if _, err := s.Load(ctx, a2a.TaskID(fmt.Sprint("t", i%1000))); err != nil {
			b.Fatal(err)
		}
		if page, _, err := s.List(ctx, Query{Limit: 20}); err != nil || len(page) != 20 {
			b.Fatalf("List = %d tasks, %v", len(page), err)
		}
	}
}

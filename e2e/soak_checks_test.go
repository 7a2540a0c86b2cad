package e2e

import (
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// checkRecorder is a soakT that keeps what the soak's checks report instead of failing the test.
type checkRecorder struct {
	mu   sync.Mutex
	errs []string
}

func (r *checkRecorder) Helper() {}

func (r *checkRecorder) Errorf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}

func (r *checkRecorder) Fatal(args ...any) { r.Errorf("%s", fmt.Sprint(args...)) }

// checksAgent answers like the soak's agent, at once; a message starting with "short" completes with the first
// chunk only: a task that lost chunks.
const checksAgent = `read -r m
case "$m" in
echo*) printf '%s\n' "$m";;
short*) printf 'part 1 of 4\n';;
*) printf 'part 1 of 4\npart 2 of 4\npart 3 of 4\npart 4 of 4\ndone\n';;
esac`

// TestSoakChecksFail: the soak's checks (checkSoak, which the CI version in make test runs too) fail a run that lost
// a task, lost a chunk, left a stream in working, told a client an end the store does not keep, kept a task on one
// replica only, or saw an error outside a fault window or of a class its fault does not cost; and pass the same
// tasks when nothing is wrong. The tasks are real (a2a bench --record against serve); the faults are in what the
// records or the replicas say.
func TestSoakChecksFail(t *testing.T) {
	dir := t.TempDir()
	r1 := &replica{name: "r1", port: freePort(t), args: []string{"--quiet", "--exec", checksAgent, "--chunk", "\n"}}
	r1.start(t)
	t.Cleanup(r1.stop)
	// r2 has a store of its own: it knows none of r1's tasks, as a replica would that lost them.
	r2 := &replica{name: "r2", port: freePort(t), args: []string{"--quiet", "--exec", checksAgent, "--chunk", "\n"}}
	r2.start(t)
	t.Cleanup(r2.stop)

	record := func(name, text, mix string, n int) []soakRecord {
		path := filepath.Join(dir, name+".jsonl")
		b := startBench(t, path, r1.url(), text, "-n", fmt.Sprint(n), "-c", "1", "--mix", mix)
		b.wait(t)
		recs := readRecords(t, path)
		if len(recs) != n {
			t.Fatalf("%s: %d records, want %d", name, len(recs), n)
		}
		for _, rec := range recs {
			if rec.Class != "" || rec.Task == "" || rec.State != "completed" {
				t.Fatalf("%s: a request did not complete a task: %+v", name, rec)
			}
		}
		return recs
	}
	good := record("exec", "work", "send=1,stream=1,poll=1", 3)
	echo := record("echo", "echo hello", "send=1", 1)
	for i := range echo {
		echo[i].echo = true
	}
	short := record("short", "short", "send=1", 1)
	ok := append(append([]soakRecord(nil), good...), echo...)

	var stream soakRecord
	for _, rec := range good {
		if rec.Op == "stream" {
			stream = rec
		}
	}
	if stream.Task == "" {
		t.Fatalf("no stream among %+v", good)
	}

	plan := soakPlan{grace: time.Second, settle: 2 * time.Second}
	now := time.Now()
	// changed is the sound records and one more: the stream's, as f changes it.
	changed := func(f func(*soakRecord)) []soakRecord {
		rec := stream
		f(&rec)
		return append(append([]soakRecord(nil), ok...), rec)
	}
	window := []fault{{name: "kill -9 r1, restarted", classes: killClasses, start: now.Add(-time.Minute), end: now.Add(time.Minute)}}
	for _, c := range []struct {
		name   string
		reps   []*replica
		recs   []soakRecord
		faults []fault
		want   string // in one of the errors; "" for none
	}{
		{"nothing wrong", []*replica{r1}, ok, nil, ""},
		{"an error inside its fault's window", []*replica{r1}, changed(func(r *soakRecord) {
			r.Class, r.Error, r.State, r.End = "transport: connection closed", "EOF", "working", now
		}), window, ""},
		{"a lost task", []*replica{r1}, changed(func(r *soakRecord) { r.Task = "9b2f4c1e-0d3a-4e5f-8a7b-6c5d4e3f2a1b" }), nil,
			"is not terminal"},
		{"a lost chunk", []*replica{r1}, append(ok, short...), nil, "completed with output \"part 1 of 4\\n\""},
		{"an echo's output lost", []*replica{r1}, changed(func(r *soakRecord) { r.echo = true }), nil, "want \"echo hello\\n\""},
		{"a stream ending in working", []*replica{r1}, changed(func(r *soakRecord) { r.State = "working" }), nil,
			"ended in \"working\" without an error"},
		{"a client told another end", []*replica{r1}, changed(func(r *soakRecord) { r.State = "failed" }), nil,
			"told its client failed"},
		{"a task on one replica only", []*replica{r1, r2}, ok, nil, "from r2"},
		{"an error outside the faults", []*replica{r1}, changed(func(r *soakRecord) {
			r.Class, r.Error, r.End = "a2a INTERNAL_ERROR", "task store unavailable", now
		}), nil, "outside every fault window"},
		{"an error its fault does not cost", []*replica{r1}, changed(func(r *soakRecord) {
			r.Class, r.Error, r.End = "a2a INTERNAL_ERROR", "task store unavailable", now
		}), window, "is not one docs/production.md names"},
	} {
		rec := &checkRecorder{}
		checkSoak(rec, plan, c.reps, c.recs, c.faults)
		got := strings.Join(rec.errs, "\n")
		switch {
		case c.want == "" && len(rec.errs) > 0:
			t.Errorf("%s: the checks failed a sound run:\n%s", c.name, got)
		case c.want != "" && !strings.Contains(got, c.want):
			t.Errorf("%s: the checks did not say %q; they said:\n%s", c.name, c.want, got)
		}
	}
}

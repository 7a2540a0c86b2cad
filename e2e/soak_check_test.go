package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// soakRecord is a line of `a2a bench --record`.
type soakRecord struct {
	Op, Task, State, Class, Error string
	Start, End                    time.Time
	Measured                      bool
	echo                          bool
}

func readRecords(t *testing.T, path string) []soakRecord {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	echo := strings.Contains(path, "echo")
	var out []soakRecord
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var r soakRecord
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("%s: %v: %s", path, err, sc.Text())
		}
		r.echo = echo
		out = append(out, r)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// The error classes docs/production.md names as what each fault may cost a client; any other, or one outside its
// fault's window, fails the soak (TestProductionDocExamples holds the page to these lists).
var (
	killClasses  = []string{"transport: connection closed", "http 502", "http 503"}
	storeClasses = []string{"a2a INTERNAL_ERROR", "a2a TASK_NOT_FOUND"}
	pauseClasses = []string{"http 504", "timeout"}
)

// restTask is the part of a task (REST, v1.0) the checks read.
type restTask struct {
	ID     string `json:"id"`
	Status struct {
		State     string `json:"state"`
		Timestamp string `json:"timestamp"`
		Message   *struct {
			Parts []struct {
				Text string `json:"text"`
			} `json:"parts"`
		} `json:"message"`
	} `json:"status"`
	Artifacts []struct {
		Parts []struct {
			Text string `json:"text"`
		} `json:"parts"`
	} `json:"artifacts"`
}

func (t *restTask) output() string {
	var b strings.Builder
	for _, a := range t.Artifacts {
		for _, p := range a.Parts {
			b.WriteString(p.Text)
		}
	}
	return b.String()
}

func (t *restTask) reason() string {
	if t.Status.Message == nil {
		return ""
	}
	var b strings.Builder
	for _, p := range t.Status.Message.Parts {
		b.WriteString(p.Text)
	}
	return b.String()
}

var terminalStates = map[string]bool{"TASK_STATE_COMPLETED": true, "TASK_STATE_FAILED": true, "TASK_STATE_CANCELED": true,
	"TASK_STATE_REJECTED": true}

func fetchTask(c *http.Client, base, id string) (*restTask, error) {
	resp, err := c.Get(base + "/tasks/" + id)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET /tasks/%s: %s: %.200s", id, resp.Status, body)
	}
	var t restTask
	if err := json.Unmarshal(body, &t); err != nil {
		return nil, err
	}
	return &t, nil
}

// soakReport is what the soak measured.
type soakReport struct {
	tasks      int
	states     map[string]int
	errors     map[string]map[string]int // fault (or "outside") -> class -> count
	recs       []soakRecord
	faults     []fault
	settleTime time.Duration
	probe      *soakProbe
	cpu        string // each replica's CPU over the load, in % of a core (its commands included)
	bench      []benchReport
}

// soakT is what the soak's checks report to: the test, or the recorder of TestSoakChecksFail.
type soakT interface {
	Helper()
	Errorf(format string, args ...any)
	Fatal(args ...any)
}

// checkSoak holds every recorded task to the soak's promises; errors outside the fault windows fail it.
func checkSoak(t soakT, plan soakPlan, reps []*replica, recs []soakRecord, faults []fault) *soakReport {
	t.Helper()
	rep := &soakReport{states: map[string]int{}, errors: map[string]map[string]int{}, recs: recs, faults: faults}
	ids := map[string]bool{}
	heard := map[string][]soakRecord{} // the ends clients were told
	echo := map[string]bool{}
	for _, r := range recs {
		if r.Task != "" {
			ids[r.Task] = true
			echo[r.Task] = r.echo
		}
		if r.Class == "" && r.Task != "" && terminalStates["TASK_STATE_"+strings.ToUpper(r.State)] {
			heard[r.Task] = append(heard[r.Task], r)
		}
		if r.Class == "" && (r.Op == "stream" || r.Op == "subscribe") && !terminalStates["TASK_STATE_"+strings.ToUpper(r.State)] {
			t.Errorf("%s of task %s ended in %q without an error", r.Op, r.Task, r.State)
		}
		if r.Class == "" {
			continue
		}
		where, allowed := "outside the faults", false
		for _, f := range faults {
			if !r.End.Before(f.start) && !r.End.After(f.end.Add(plan.grace)) {
				where = f.name
				if slices.Contains(f.classes, r.Class) {
					allowed = true
					break
				}
			}
		}
		if rep.errors[where] == nil {
			rep.errors[where] = map[string]int{}
		}
		rep.errors[where][r.Class]++
		if where == "outside the faults" {
			t.Errorf("%s at %s, outside every fault window: %s: %s (task %q)", r.Op, r.End.Format(time.RFC3339Nano), r.Class, r.Error, r.Task)
		} else if !allowed {
			t.Errorf("%s during %s: error class %q is not one docs/production.md names for it: %s (task %q)", r.Op, where,
				r.Class, r.Error, r.Task)
		}
	}
	rep.tasks = len(ids)
	if rep.tasks == 0 {
		t.Fatal("no task was recorded")
	}
	// Every task reaches a terminal state: the killed replica's running tasks once its lease expired.
	c := &http.Client{Timeout: soakTimeout}
	start := time.Now()
	deadline := start.Add(plan.settle)
	pending := make([]string, 0, len(ids))
	for id := range ids {
		pending = append(pending, id)
	}
	sort.Strings(pending)
	// Polled once a second: a lease's expiry, which ends a dead replica's tasks, has no event a test can wait on.
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for len(pending) > 0 && time.Now().Before(deadline) {
		var left []string
		for _, id := range pending {
			if tk, err := fetchTask(c, reps[0].url(), id); err != nil || !terminalStates[tk.Status.State] {
				left = append(left, id)
			}
		}
		pending = left
		if len(pending) > 0 {
			<-tick.C
		}
	}
	rep.settleTime = time.Since(start)
	for _, id := range pending {
		tk, err := fetchTask(c, reps[0].url(), id)
		t.Errorf("task %s is not terminal %s after the run: %+v %v", id, time.Since(start).Round(time.Second), tk, err)
	}
	// Every replica sees the same end, the output whole (or a prefix of it, cut by a cancel; or failed with a reason).
	var mu sync.Mutex
	var wg sync.WaitGroup
	work := make(chan string)
	for w := 0; w < 8; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for id := range work {
				checkTask(t, c, reps, id, echo[id], heard[id], &mu, rep.states)
			}
		}()
	}
	for id := range ids {
		work <- id
	}
	close(work)
	wg.Wait()
	return rep
}

func checkTask(t soakT, c *http.Client, reps []*replica, id string, echo bool, heard []soakRecord, mu *sync.Mutex,
	states map[string]int) {
	var first *restTask
	for _, r := range reps {
		tk, err := fetchTask(c, r.url(), id)
		if err != nil {
			t.Errorf("task %s from %s: %v", id, r.name, err)
			return
		}
		if first == nil {
			first = tk
			continue
		}
		if tk.Status.State != first.Status.State || tk.Status.Timestamp != first.Status.Timestamp || tk.output() != first.output() {
			t.Errorf("task %s: %s says %s at %s with %q, %s says %s at %s with %q", id, reps[0].name, first.Status.State,
				first.Status.Timestamp, first.output(), r.name, tk.Status.State, tk.Status.Timestamp, tk.output())
		}
	}
	// A task ends once: every client that heard of its end heard the end the store keeps.
	for _, r := range heard {
		if got := "TASK_STATE_" + strings.ToUpper(r.State); got != first.Status.State {
			t.Errorf("task %s: %s told its client %s at %s, the replicas say %s (%q)", id, r.Op, r.State,
				r.End.Format(time.RFC3339Nano), first.Status.State, first.reason())
		}
	}
	want := soakOutput
	if echo {
		want = "echo hello\n"
	}
	out := first.output()
	switch first.Status.State {
	case "TASK_STATE_COMPLETED":
		if out != want {
			t.Errorf("task %s completed with output %q, want %q", id, out, want)
		}
	case "TASK_STATE_CANCELED":
		if !strings.HasPrefix(want, out) {
			t.Errorf("task %s canceled with output %q, not a prefix of %q", id, out, want)
		}
	case "TASK_STATE_FAILED":
		if first.reason() == "" || !strings.HasPrefix(want, out) {
			t.Errorf("task %s failed with reason %q and output %q", id, first.reason(), out)
		}
	default:
		t.Errorf("task %s ended %s", id, first.Status.State)
	}
	mu.Lock()
	states[strings.ToLower(strings.TrimPrefix(first.Status.State, "TASK_STATE_"))+reasonKind(first)]++
	mu.Unlock()
}

// reasonKind tells a failed task's cause apart in the report: a replica that died, or something else.
func reasonKind(t *restTask) string {
	if t.Status.State != "TASK_STATE_FAILED" {
		return ""
	}
	if strings.Contains(t.reason(), "lease") {
		return " (replica died)"
	}
	return " (" + t.reason() + ")"
}

// log writes the soak's figures: tasks by end, errors by fault and class, p99 before, during and after each fault.
func (r *soakReport) log(t *testing.T, plan soakPlan, t0 time.Time) {
	var b strings.Builder
	fmt.Fprintf(&b, "soak: %d replicas, %s of load at %g exec + %g echo requests/s, %d tasks\n", plan.replicas, plan.duration,
		plan.rate, plan.echoRate, r.tasks)
	keys := make([]string, 0, len(r.states))
	for k := range r.states {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Fprintf(&b, "  ended %-28s %d\n", k, r.states[k])
	}
	fmt.Fprintf(&b, "  CPU of the replicas (of one core, their commands included):%s\n", r.cpu)
	for _, br := range r.bench {
		fmt.Fprintf(&b, "  bench %s: %d requests, %.1f/s, p50 %.0fms p99 %.0fms, %d errors\n", br.Mode, br.Requests, br.Throughput,
			br.Latency.P50, br.Latency.P99, br.Errors)
	}
	fmt.Fprintf(&b, "  every task terminal %s after the load\n", r.settleTime.Round(100*time.Millisecond))
	seen := map[string]bool{}
	for _, rec := range r.recs {
		if rec.Class != "" && !seen[rec.Class] {
			seen[rec.Class] = true
			fmt.Fprintf(&b, "  e.g. %s at %s: %s: %.300s\n", rec.Op, rec.End.Sub(t0).Round(100*time.Millisecond), rec.Class, rec.Error)
		}
	}
	for where, classes := range r.errors {
		for class, n := range classes {
			fmt.Fprintf(&b, "  errors during %s: %s %d\n", where, class, n)
		}
	}
	// Latencies of the requests that ended before a fault, of those that ran into it (or its grace), and of those that
	// started after it, within 10 s.
	lat := func(keep func(rec soakRecord) bool) string {
		var ds []time.Duration
		for _, rec := range r.recs {
			if rec.Class == "" && keep(rec) {
				ds = append(ds, rec.End.Sub(rec.Start))
			}
		}
		if len(ds) == 0 {
			return "-"
		}
		sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
		return fmt.Sprintf("p50 %s p99 %s (%d)", ds[len(ds)/2].Round(time.Millisecond), ds[len(ds)*99/100].Round(time.Millisecond), len(ds))
	}
	for _, f := range r.faults {
		over := f.end.Add(plan.grace)
		fmt.Fprintf(&b, "  %s at %s: before %s | during %s | after %s\n", f.name, f.start.Sub(t0).Round(time.Second),
			lat(func(rec soakRecord) bool {
				return rec.End.Before(f.start) && rec.End.After(f.start.Add(-10*time.Second))
			}),
			lat(func(rec soakRecord) bool { return !rec.End.Before(f.start) && rec.Start.Before(over) }),
			lat(func(rec soakRecord) bool {
				return !rec.Start.Before(over) && rec.Start.Before(over.Add(10*time.Second))
			}))
	}
	if r.probe != nil {
		r.probe.report(&b, t0)
	}
	t.Log(b.String())
	if path := os.Getenv("A2A_SOAK_REPORT"); path != "" {
		if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
			t.Error(err)
		}
	}
}

// soakProbe samples PostgreSQL during the soak: connections to the database, the NOTIFY queue's use, and how close
// each replica's lease came to expiring.
type soakProbe struct {
	db       string
	cancel   context.CancelFunc
	done     chan struct{}
	mu       sync.Mutex
	maxConns int
	maxQueue float64
	samples  int
	margins  map[string]time.Duration // replica id -> the smallest lease time left seen
	minAt    map[string]time.Time     // replica id -> when
	pids     map[string]string        // pid -> replica name
}

func startSoakProbe(t *testing.T, db string, reps []*replica) *soakProbe {
	ctx, cancel := context.WithCancel(context.Background())
	p := &soakProbe{db: db, cancel: cancel, done: make(chan struct{}), margins: map[string]time.Duration{},
		minAt: map[string]time.Time{}, pids: map[string]string{}}
	for _, r := range reps {
		p.pids[strconv.Itoa(r.cmd.Process.Pid)] = r.name
	}
	go p.run(ctx)
	t.Cleanup(p.stop)
	return p
}

// addPID names a restarted replica's new process.
func (p *soakProbe) addPID(r *replica) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.pids[strconv.Itoa(r.cmd.Process.Pid)] = r.name
}

func (p *soakProbe) stop() {
	p.cancel()
	<-p.done
}

func (p *soakProbe) run(ctx context.Context) {
	defer close(p.done)
	var conn *pgx.Conn
	defer func() {
		if conn != nil {
			conn.Close(context.Background())
		}
	}()
	tick := time.NewTicker(250 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		if conn == nil || conn.IsClosed() {
			c, err := pgx.Connect(ctx, p.db)
			if err != nil {
				continue // PostgreSQL restarting
			}
			conn = c
		}
		p.sample(ctx, conn)
	}
}

func (p *soakProbe) sample(ctx context.Context, conn *pgx.Conn) {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	var conns int
	var queue float64
	if err := conn.QueryRow(ctx, `SELECT count(*), pg_notification_queue_usage() FROM pg_stat_activity WHERE datname = current_database()`).
		Scan(&conns, &queue); err != nil {
		conn.Close(ctx)
		return
	}
	rows, err := conn.Query(ctx, `SELECT id, lease_until FROM a2a_replicas`)
	if err != nil {
		return
	}
	now := time.Now()
	margins := map[string]time.Duration{}
	for rows.Next() {
		var id string
		var until int64
		if rows.Scan(&id, &until) == nil {
			margins[id] = time.Unix(0, until).Sub(now)
		}
	}
	rows.Close()
	p.mu.Lock()
	defer p.mu.Unlock()
	p.samples++
	p.maxConns = max(p.maxConns, conns-1) // not the probe's own
	p.maxQueue = max(p.maxQueue, queue)
	for id, m := range margins {
		if old, ok := p.margins[id]; !ok || m < old {
			p.margins[id], p.minAt[id] = m, now
		}
	}
}

func (p *soakProbe) report(b *strings.Builder, t0 time.Time) {
	p.mu.Lock()
	defer p.mu.Unlock()
	fmt.Fprintf(b, "  PostgreSQL (%d samples): at most %d connections from the replicas, NOTIFY queue at most %.4f%% used\n",
		p.samples, p.maxConns, 100*p.maxQueue)
	ids := make([]string, 0, len(p.margins))
	for id := range p.margins {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		name := "?"
		if f := strings.Split(id, "-"); len(f) >= 3 {
			if n, ok := p.pids[f[len(f)-2]]; ok {
				name = n
			}
		}
		fmt.Fprintf(b, "  lease of %s (%s): least time left %s, at %s\n", id, name, p.margins[id].Round(10*time.Millisecond),
			p.minAt[id].Sub(t0).Round(100*time.Millisecond))
	}
}

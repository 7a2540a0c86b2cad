package e2e

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// The figures docs/production.md reports, measured on demand (A2A_SOAK=measure, `make soak-measure`): throughput
// and latency of the soak's load with 1, 2 and 3 replicas, and the memory and database size of a replica holding
// 100,000 finished tasks. They measure; they hold nothing but that the runs work.

func needMeasure(t *testing.T) {
	if os.Getenv("A2A_SOAK") != "measure" {
		t.Skip("measurements run with A2A_SOAK=measure (make soak-measure)")
	}
}

// TestSoakScaling runs the soak's mix in a closed loop (as fast as the replicas answer) against 1, 2 and 3
// replicas behind HAProxy, with the PostgreSQL probe watching connections, the NOTIFY queue and the leases.
func TestSoakScaling(t *testing.T) {
	needMeasure(t)
	d := 12 * time.Second
	var b strings.Builder
	base := 0.0
	for n := 1; n <= 3; n++ {
		t.Run(strconv.Itoa(n), func(t *testing.T) {
			cl := startCluster(t, n, "--lease", "10s")
			probe := startSoakProbe(t, cl.db, cl.reps)
			cpu0 := make([]time.Duration, n)
			for i, r := range cl.reps {
				cpu0[i] = cpuTime(r.cmd.Process.Pid)
			}
			t0 := time.Now()
			dir := t.TempDir()
			work := startBench(t, filepath.Join(dir, "exec.jsonl"), closedLoop(cl.url, "work", 150, d, soakMix)...)
			echo := startBench(t, filepath.Join(dir, "echo.jsonl"), closedLoop(cl.url, "echo hello", 16, d, echoMix)...)
			work.wait(t)
			echo.wait(t)
			wall := time.Since(t0)
			probe.stop()
			var cpu float64
			for i, r := range cl.reps {
				cpu += float64(cpuTime(r.cmd.Process.Pid)-cpu0[i]) / float64(wall)
			}
			total := work.report.Throughput + echo.report.Throughput
			if n == 1 {
				base = total
			}
			fmt.Fprintf(&b, "%d replicas: exec %.1f/s (p50 %.0fms p99 %.0fms), echo %.1f/s (p50 %.0fms p99 %.0fms); "+
				"together %.1f/s, x%.2f of one replica; replicas' CPU %.0f%% of a core; errors %d+%d\n",
				n, work.report.Throughput, work.report.Latency.P50, work.report.Latency.P99,
				echo.report.Throughput, echo.report.Latency.P50, echo.report.Latency.P99, total, total/base, 100*cpu,
				work.report.Errors, echo.report.Errors)
			var pb strings.Builder
			probe.report(&pb, t0)
			b.WriteString(pb.String())
		})
	}
	t.Log("\n" + b.String())
	writeMeasure(t, "scaling", b.String())
}

// TestSoakRetention fills one replica (serve --echo) with 110,000 tasks under --max-tasks 100000, then reports its
// memory and the database's size: retention at work keeps both at what 100,000 tasks take.
func TestSoakRetention(t *testing.T) {
	needMeasure(t)
	n := 110000
	if s := os.Getenv("A2A_SOAK_TASKS"); s != "" {
		n, _ = strconv.Atoi(s) // a bad number is 0: the bench refuses -n 0 with --duration 0
	}
	cl := startCluster(t, 0) // PostgreSQL only
	r := &replica{name: "r1", port: freePort(t), args: []string{"--quiet", "--echo", "--store", cl.db,
		"--max-tasks", "100000", "--task-ttl", "24h"}}
	r.start(t)
	t.Cleanup(r.stop)
	idle := rss(r.cmd.Process.Pid)
	bench := exec.Command(bin, "bench", r.url(), "-c", "16", "-n", strconv.Itoa(n), "--duration", "0", "-o", "json", "--yes")
	bench.Env = cmdEnv()
	out, err := bench.Output()
	if err != nil {
		t.Fatalf("bench: %v\n%s", err, out)
	}
	// The retention sweep runs every half second: wait for it to have dropped the oldest.
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, cl.db)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var rows int
	eventually(t, time.Minute, "retention keeps 100000 tasks", func() bool {
		return conn.QueryRow(ctx, `SELECT count(*) FROM a2a_tasks`).Scan(&rows) == nil && rows <= 100000
	})
	var dbSize, tasksSize, eventsSize int64
	if err := conn.QueryRow(ctx, `SELECT pg_database_size(current_database()), pg_total_relation_size('a2a_tasks'),
		pg_total_relation_size('a2a_events')`).Scan(&dbSize, &tasksSize, &eventsSize); err != nil {
		t.Fatal(err)
	}
	full := rss(r.cmd.Process.Pid)
	rep := fmt.Sprintf("%d tasks sent, %d kept (--max-tasks 100000): serve's RSS %.1f MiB idle, %.1f MiB with them; "+
		"database %.1f MiB (a2a_tasks %.1f MiB with its indexes, a2a_events %.1f MiB)\n", n, rows,
		float64(idle)/(1<<20), float64(full)/(1<<20), float64(dbSize)/(1<<20), float64(tasksSize)/(1<<20), float64(eventsSize)/(1<<20))
	t.Log(rep)
	writeMeasure(t, "retention", rep)
}

// closedLoop is the arguments of a closed loop of `a2a bench` with c workers.
func closedLoop(url, text string, c int, d time.Duration, mix string) []string {
	return []string{url, text, "--duration", d.String(), "-n", "0", "-c", strconv.Itoa(c), "--mix", mix, "--poll-interval", "200ms"}
}

// writeMeasure appends a measurement to $A2A_SOAK_REPORT, when set.
func writeMeasure(t *testing.T, what, text string) {
	path := os.Getenv("A2A_SOAK_REPORT")
	if path == "" {
		return
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		t.Error(err)
		return
	}
	defer f.Close()
	fmt.Fprintf(f, "== %s (%s)\n%s\n", what, time.Now().UTC().Format(time.RFC3339), text)
}

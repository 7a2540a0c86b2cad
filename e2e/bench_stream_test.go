package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// BenchmarkStreamClient measures the streaming client against curl on the same stream: `serve --exec cat FILE
// --chunk=$'\n'` over a 50 MB file of 1 KiB lines. Every round runs curl (reading the raw SSE bytes of the REST
// stream), then send --stream with -o raw, -o json and -o text, one after the other, so all four see the same
// machine load; the figures are medians over the rounds: MB/s of the command's output, the client's peak RSS, and
// each format's speed as a share of curl's. Targets: RSS under 40 MiB in every format, raw at least 50%
// of curl, json at least 35%.
func BenchmarkStreamClient(b *testing.B) {
	curl, err := exec.LookPath("curl")
	if err != nil {
		b.Skip("no curl")
	}
	const lines = 51200
	file := filepath.Join(b.TempDir(), "lines")
	if err := os.WriteFile(file, []byte(strings.Repeat(strings.Repeat("x", 1023)+"\n", lines)), 0o644); err != nil {
		b.Fatal(err)
	}
	size := float64(lines * 1024)
	srv := startServe(b, "--exec", "cat "+file, "--chunk=\n", "--quiet", "--transport", "rest")
	body := `{"message":{"messageId":"m1","role":"ROLE_USER","parts":[{"text":"go"}]}}`
	clients := []struct {
		name string
		cmd  []string
	}{
		{"curl", []string{curl, "-sSfN", "-X", "POST", "-H", "Content-Type: application/json", "-H", "A2A-Version: 1.0",
			"--data", body, srv.url + "/message:stream"}},
		{"raw", []string{bin, "send", srv.url, "go", "--stream", "-o", "raw"}},
		{"json", []string{bin, "send", srv.url, "go", "--stream", "-o", "json"}},
		{"text", []string{bin, "send", srv.url, "go", "--stream"}},
	}
	secs := make([][]float64, len(clients))
	rss := make([][]float64, len(clients))
	for b.Loop() {
		for range 3 {
			for i, c := range clients {
				d, maxRSS := runMeasured(b, c.cmd)
				secs[i] = append(secs[i], d.Seconds())
				rss[i] = append(rss[i], maxRSS)
			}
		}
	}
	curlSpeed := size / median(secs[0])
	for i, c := range clients {
		speed := size / median(secs[i])
		b.ReportMetric(speed/1e6, c.name+"-MB/s")
		b.ReportMetric(median(rss[i]), c.name+"-RSS-MiB")
		if i > 0 {
			b.ReportMetric(100*speed/curlSpeed, c.name+"-%curl")
		}
	}
}

// runMeasured runs cmd with stdout to /dev/null and returns its wall time and peak RSS in MiB. The peak is the
// kernel's high-water mark (VmHWM) of the process's own image, polled until it exits: the rusage of a child
// started with vfork also counts the parent's memory.
func runMeasured(b *testing.B, args []string) (time.Duration, float64) {
	b.Helper()
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Env = cmdEnv()
	null, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		b.Fatal(err)
	}
	defer null.Close()
	cmd.Stdout = null // a file, as a shell redirect gives: no copying goroutine in the measure
	var stderr strings.Builder
	cmd.Stderr = &stderr
	start := time.Now()
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	done := make(chan struct{})
	peak := make(chan float64, 1)
	go func() {
		hwm := 0.0
		tick := time.NewTicker(5 * time.Millisecond)
		defer tick.Stop()
		for {
			if v, ok := vmHWM(cmd.Process.Pid); ok && v > hwm {
				hwm = v
			}
			select {
			case <-done:
				peak <- hwm
				return
			case <-tick.C:
			}
		}
	}()
	err = cmd.Wait()
	d := time.Since(start)
	close(done)
	if err != nil {
		b.Fatalf("%s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return d, <-peak
}

// vmHWM reads the peak resident set of pid, in MiB, from /proc.
func vmHWM(pid int) (float64, bool) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, false
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, err := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")))
			return float64(kb) / 1024, err == nil
		}
	}
	return 0, false
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[len(s)/2]
}

package e2e

import (
	"context"
	"os/exec"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
)

// initLine is one line of GODEBUG=inittrace=1: "init pkg @0.5 ms, 0.12 ms clock, 9512 bytes, 159 allocs".
var initLine = regexp.MustCompile(`^init (\S+) @[0-9.]+ ms, ([0-9.]+) ms clock, ([0-9]+) bytes, ([0-9]+) allocs$`)

// TestInitCost keeps start-up cheap: no package linked into a2a may spend more than 2 ms of clock or 500 KB in its
// init, which every command (`--help` included) pays before it runs. Clock is noisy on a shared machine, so a
// package fails only when its fastest of several runs is over the limit; bytes do not vary between runs. The
// patched copies in third_party (jsonschema, gojq, yaml) must stay under 16 KB: their work waits for first use.
func TestInitCost(t *testing.T) {
	const (
		runs     = 5
		maxClock = 2.0       // ms
		maxBytes = 500 << 10 // 500 KB
	)
	fastest := map[string]float64{} // package → its smallest clock, ms
	most := map[string]int{}        // package → its largest allocation, bytes
	for range runs {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		cmd := exec.CommandContext(ctx, bin, "--help")
		cmd.Env = cmdEnv("GODEBUG=inittrace=1")
		var errb strings.Builder
		cmd.Stderr = &errb
		err := cmd.Run()
		cancel()
		if err != nil {
			t.Fatalf("a2a --help: %v\n%s", err, errb.String())
		}
		n := 0
		for _, line := range strings.Split(errb.String(), "\n") {
			m := initLine.FindStringSubmatch(line)
			if m == nil {
				continue
			}
			n++
			clock, _ := strconv.ParseFloat(m[2], 64)
			bytes, _ := strconv.Atoi(m[3])
			if c, ok := fastest[m[1]]; !ok || clock < c {
				fastest[m[1]] = clock
			}
			most[m[1]] = max(most[m[1]], bytes)
		}
		if n == 0 {
			t.Fatalf("a2a --help with GODEBUG=inittrace=1 printed no init line:\n%s", errb.String())
		}
	}
	// The trace lists the packages linked in: make sure it is the trace of a whole a2a, jsonschema included.
	for _, pkg := range []string{"github.com/spf13/cobra", "github.com/a2acli/a2a/third_party/santhosh-tekuri/jsonschema", "github.com/a2acli/a2a/third_party/itchyny/gojq", "github.com/a2acli/a2a/third_party/go-yaml/yaml"} {
		if _, ok := most[pkg]; !ok {
			t.Errorf("the init trace has no line for %s: did the binary change, or the trace format?", pkg)
		}
	}
	// runtime/metrics's init builds its table of every metric, for serve's /metrics alone, which reads the runtime
	// through other APIs (promtext.GoCollector): no import may bring it back.
	if _, ok := most["runtime/metrics"]; ok {
		t.Error("a2a links runtime/metrics again: its init runs in every command; read the value from the API that sets it")
	}
	// The patched copies in third_party do their start-up work on first use: their init stays near nothing.
	for _, pkg := range []string{"github.com/a2acli/a2a/third_party/santhosh-tekuri/jsonschema", "github.com/a2acli/a2a/third_party/itchyny/gojq", "github.com/a2acli/a2a/third_party/go-yaml/yaml"} {
		if most[pkg] > 16<<10 {
			t.Errorf("init of %s allocates %d bytes: its patch (PATCHED.md there) should leave it under 16 KB", pkg, most[pkg])
		}
	}
	pkgs := make([]string, 0, len(most))
	for p := range most {
		pkgs = append(pkgs, p)
	}
	sort.Strings(pkgs)
	for _, p := range pkgs {
		// modernc.org/sqlite's C library translated to Go (modernc.org/libc: os.Executable, its own allocator,
		// large tables) cost every command ~0.3 ms of init; sqlite: is ncruces/go-sqlite3, whose init is near nothing.
		if strings.HasPrefix(p, "modernc.org/") {
			t.Errorf("a2a links %s again: its init runs in every command; sqlite: needs no modernc.org package", p)
		}
		if fastest[p] > maxClock {
			t.Errorf("init of %s takes %.2f ms of clock (fastest of %d runs), over %.0f ms", p, fastest[p], runs, maxClock)
		}
		if most[p] > maxBytes {
			t.Errorf("init of %s allocates %d bytes, over %d (500 KB)", p, most[p], maxBytes)
		}
	}
}

package promtext

import (
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"time"
)

// GoCollector yields the Go runtime families of client_golang's default Go collector (same names, types and help
// texts), from runtime.ReadMemStats, debug.ReadGCStats, runtime.GOMAXPROCS, debug.SetMemoryLimit and GOGC at scrape
// time. It does not import runtime/metrics (client_golang's source for the last three): that package's init runs
// before main in every a2a command, `--help` included, and only serve's /metrics would read it.
type GoCollector struct{}

type memStat struct {
	name, help string
	typ        string
	value      func(*runtime.MemStats) float64
}

var memStats = []memStat{
	{"go_memstats_alloc_bytes", "Number of bytes allocated in heap and currently in use. Equals to /memory/classes/heap/objects:bytes.", typeGauge, func(m *runtime.MemStats) float64 { return float64(m.Alloc) }},
	{"go_memstats_alloc_bytes_total", "Total number of bytes allocated in heap until now, even if released already. Equals to /gc/heap/allocs:bytes.", typeCounter, func(m *runtime.MemStats) float64 { return float64(m.TotalAlloc) }},
	{"go_memstats_buck_hash_sys_bytes", "Number of bytes used by the profiling bucket hash table. Equals to /memory/classes/profiling/buckets:bytes.", typeGauge, func(m *runtime.MemStats) float64 { return float64(m.BuckHashSys) }},
	{"go_memstats_frees_total", "Total number of heap objects frees. Equals to /gc/heap/frees:objects + /gc/heap/tiny/allocs:objects.", typeCounter, func(m *runtime.MemStats) float64 { return float64(m.Frees) }},
	{"go_memstats_gc_sys_bytes", "Number of bytes used for garbage collection system metadata. Equals to /memory/classes/metadata/other:bytes.", typeGauge, func(m *runtime.MemStats) float64 { return float64(m.GCSys) }},
	{"go_memstats_heap_alloc_bytes", "Number of heap bytes allocated and currently in use, same as go_memstats_alloc_bytes. Equals to /memory/classes/heap/objects:bytes.", typeGauge, func(m *runtime.MemStats) float64 { return float64(m.HeapAlloc) }},
	{"go_memstats_heap_idle_bytes", "Number of heap bytes waiting to be used. Equals to /memory/classes/heap/released:bytes + /memory/classes/heap/free:bytes.", typeGauge, func(m *runtime.MemStats) float64 { return float64(m.HeapIdle) }},
	{"go_memstats_heap_inuse_bytes", "Number of heap bytes that are in use. Equals to /memory/classes/heap/objects:bytes + /memory/classes/heap/unused:bytes", typeGauge, func(m *runtime.MemStats) float64 { return float64(m.HeapInuse) }},
	{"go_memstats_heap_objects", "Number of currently allocated objects. Equals to /gc/heap/objects:objects.", typeGauge, func(m *runtime.MemStats) float64 { return float64(m.HeapObjects) }},
	{"go_memstats_heap_released_bytes", "Number of heap bytes released to OS. Equals to /memory/classes/heap/released:bytes.", typeGauge, func(m *runtime.MemStats) float64 { return float64(m.HeapReleased) }},
	{"go_memstats_heap_sys_bytes", "Number of heap bytes obtained from system. Equals to /memory/classes/heap/objects:bytes + /memory/classes/heap/unused:bytes + /memory/classes/heap/released:bytes + /memory/classes/heap/free:bytes.", typeGauge, func(m *runtime.MemStats) float64 { return float64(m.HeapSys) }},
	{"go_memstats_last_gc_time_seconds", "Number of seconds since 1970 of last garbage collection.", typeGauge, func(m *runtime.MemStats) float64 { return float64(m.LastGC) / 1e9 }},
	{"go_memstats_mallocs_total", "Total number of heap objects allocated, both live and gc-ed. Semantically a counter version for go_memstats_heap_objects gauge. Equals to /gc/heap/allocs:objects + /gc/heap/tiny/allocs:objects.", typeCounter, func(m *runtime.MemStats) float64 { return float64(m.Mallocs) }},
	{"go_memstats_mcache_inuse_bytes", "Number of bytes in use by mcache structures. Equals to /memory/classes/metadata/mcache/inuse:bytes.", typeGauge, func(m *runtime.MemStats) float64 { return float64(m.MCacheInuse) }},
	{"go_memstats_mcache_sys_bytes", "Number of bytes used for mcache structures obtained from system. Equals to /memory/classes/metadata/mcache/inuse:bytes + /memory/classes/metadata/mcache/free:bytes.", typeGauge, func(m *runtime.MemStats) float64 { return float64(m.MCacheSys) }},
	{"go_memstats_mspan_inuse_bytes", "Number of bytes in use by mspan structures. Equals to /memory/classes/metadata/mspan/inuse:bytes.", typeGauge, func(m *runtime.MemStats) float64 { return float64(m.MSpanInuse) }},
	{"go_memstats_mspan_sys_bytes", "Number of bytes used for mspan structures obtained from system. Equals to /memory/classes/metadata/mspan/inuse:bytes + /memory/classes/metadata/mspan/free:bytes.", typeGauge, func(m *runtime.MemStats) float64 { return float64(m.MSpanSys) }},
	{"go_memstats_next_gc_bytes", "Number of heap bytes when next garbage collection will take place. Equals to /gc/heap/goal:bytes.", typeGauge, func(m *runtime.MemStats) float64 { return float64(m.NextGC) }},
	{"go_memstats_other_sys_bytes", "Number of bytes used for other system allocations. Equals to /memory/classes/other:bytes.", typeGauge, func(m *runtime.MemStats) float64 { return float64(m.OtherSys) }},
	{"go_memstats_stack_inuse_bytes", "Number of bytes obtained from system for stack allocator in non-CGO environments. Equals to /memory/classes/heap/stacks:bytes.", typeGauge, func(m *runtime.MemStats) float64 { return float64(m.StackInuse) }},
	{"go_memstats_stack_sys_bytes", "Number of bytes obtained from system for stack allocator. Equals to /memory/classes/heap/stacks:bytes + /memory/classes/os-stacks:bytes.", typeGauge, func(m *runtime.MemStats) float64 { return float64(m.StackSys) }},
	{"go_memstats_sys_bytes", "Number of bytes obtained from system. Equals to /memory/classes/total:byte.", typeGauge, func(m *runtime.MemStats) float64 { return float64(m.Sys) }},
}

// runtimeGauges are the families client_golang sources from runtime/metrics by default (names and help texts as
// there), each read from the API that sets it.
var runtimeGauges = []struct {
	name, help string
	value      func() float64
}{
	{"go_gc_gogc_percent", "Heap size target percentage configured by the user, otherwise 100. This value is set by the GOGC environment variable, and the runtime/debug.SetGCPercent function. Sourced from /gc/gogc:percent.", func() float64 { return float64(uint64(int64(gogcPercent(os.Getenv("GOGC"))))) }},  // a uint64 there: off is 2^64-1
	{"go_gc_gomemlimit_bytes", "Go runtime memory limit configured by the user, otherwise math.MaxInt64. This value is set by the GOMEMLIMIT environment variable, and the runtime/debug.SetMemoryLimit function. Sourced from /gc/gomemlimit:bytes.", func() float64 { return float64(debug.SetMemoryLimit(-1)) }}, // a negative limit only reads it
	{"go_sched_gomaxprocs_threads", "The current runtime.GOMAXPROCS setting, or the number of operating system threads that can execute user-level Go code simultaneously. Sourced from /sched/gomaxprocs:threads.", func() float64 { return float64(runtime.GOMAXPROCS(0)) }},                                      // 0 only reads it
}

// gogcPercent is the GC percentage the runtime took from GOGC at start, as its readGOGC reads it (with the same
// ParseInt): "off" is -1, a decimal 32-bit number is itself (any negative one -1), anything else 100. It does not
// see a debug.SetGCPercent call; serve makes none (reading the value back through SetGCPercent would change it for
// a moment, and wait for a running mark phase).
func gogcPercent(env string) int {
	if env == "off" {
		return -1
	}
	n, err := strconv.ParseInt(env, 10, 32)
	if err != nil {
		return 100
	}
	return max(int(n), -1)
}

func gauge(name, help string, v float64) family {
	return family{name: name, help: help, typ: typeGauge, metrics: []metric{{value: v}}}
}

func (GoCollector) collect() []family {
	threads, _ := runtime.ThreadCreateProfile(nil)
	fams := []family{
		gauge("go_goroutines", "Number of goroutines that currently exist.", float64(runtime.NumGoroutine())),
		gauge("go_threads", "Number of OS threads created.", float64(threads)),
		{name: "go_info", help: "Information about the Go environment.", typ: typeGauge,
			metrics: []metric{{labels: []label{{"version", runtime.Version()}}, value: 1}}},
	}

	var gc debug.GCStats
	gc.PauseQuantiles = make([]time.Duration, 5)
	debug.ReadGCStats(&gc)
	q := metric{buckets: []float64{0, 0.25, 0.5, 0.75, 1}, counts: make([]float64, 5), sum: gc.PauseTotal.Seconds(), count: uint64(gc.NumGC)}
	for i, d := range gc.PauseQuantiles {
		q.counts[i] = d.Seconds()
	}
	fams = append(fams, family{name: "go_gc_duration_seconds", help: "A summary of the wall-time pause (stop-the-world) duration in garbage collection cycles.", typ: typeSummary, metrics: []metric{q}})

	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	for _, s := range memStats {
		fams = append(fams, family{name: s.name, help: s.help, typ: s.typ, metrics: []metric{{value: s.value(&ms)}}})
	}

	for _, g := range runtimeGauges {
		fams = append(fams, gauge(g.name, g.help, g.value()))
	}
	return fams
}

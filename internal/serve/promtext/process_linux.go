package promtext

import (
	"bytes"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// userHZ is the kernel's USER_HZ, the unit of /proc/<pid>/stat's times: 100 on every Linux architecture Go
// supports (procfs assumes the same).
const userHZ = 100

// processFamilies reads /proc/self/stat, /proc/self/fd, /proc/stat's btime and the rlimits, like
// client_golang's process collector; a family whose source cannot be read is left out.
func processFamilies() []family {
	var fams []family
	if st, err := os.ReadFile("/proc/self/stat"); err == nil {
		// The command name in parentheses may hold spaces: the fields start after the last ')'.
		if i := bytes.LastIndexByte(st, ')'); i >= 0 {
			f := strings.Fields(string(st[i+1:]))
			// f[0] is field 3 (state): field n is f[n-3].
			num := func(n int) (float64, bool) {
				if n-3 >= len(f) {
					return 0, false
				}
				v, err := strconv.ParseUint(f[n-3], 10, 64)
				return float64(v), err == nil
			}
			utime, ok1 := num(14)
			stime, ok2 := num(15)
			if ok1 && ok2 {
				fams = append(fams, family{name: "process_cpu_seconds_total", help: "Total user and system CPU time spent in seconds.", typ: typeCounter,
					metrics: []metric{{value: (utime + stime) / userHZ}}})
			}
			if start, ok := num(22); ok {
				if boot, ok := bootTime(); ok {
					fams = append(fams, gauge("process_start_time_seconds", "Start time of the process since unix epoch in seconds.", boot+start/userHZ))
				}
			}
			if vsize, ok := num(23); ok {
				fams = append(fams, gauge("process_virtual_memory_bytes", "Virtual memory size in bytes.", vsize))
			}
			if rss, ok := num(24); ok {
				fams = append(fams, gauge("process_resident_memory_bytes", "Resident memory size in bytes.", rss*float64(os.Getpagesize())))
			}
		}
	}
	if d, err := os.Open("/proc/self/fd"); err == nil {
		names, err := d.Readdirnames(-1)
		d.Close()
		if err == nil {
			// The directory's own descriptor is among them, as in client_golang's count.
			fams = append(fams, gauge("process_open_fds", "Number of open file descriptors.", float64(len(names))))
		}
	}
	var lim syscall.Rlimit
	if syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim) == nil {
		fams = append(fams, gauge("process_max_fds", "Maximum number of open file descriptors.", rlimit(lim.Cur)))
	}
	if syscall.Getrlimit(syscall.RLIMIT_AS, &lim) == nil {
		fams = append(fams, gauge("process_virtual_memory_max_bytes", "Maximum amount of virtual memory available in bytes.", rlimit(lim.Cur)))
	}
	return fams
}

// rlimit is a limit as client_golang reports it: unlimited (RLIM_INFINITY) is 2^64-1 as a float.
func rlimit(v uint64) float64 { return float64(v) }

// bootTime is /proc/stat's btime, the boot time in seconds since the epoch.
func bootTime() (float64, bool) {
	st, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0, false
	}
	for _, line := range strings.Split(string(st), "\n") {
		if v, ok := strings.CutPrefix(line, "btime "); ok {
			n, err := strconv.ParseUint(strings.TrimSpace(v), 10, 64)
			return float64(n), err == nil
		}
	}
	return 0, false
}

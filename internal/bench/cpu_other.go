//go:build !unix

package bench

import "time"

// cpuTime is unknown here: the report leaves CPU per request out.
func cpuTime() time.Duration { return 0 }

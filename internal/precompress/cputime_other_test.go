//go:build !unix

package precompress

import "time"

// cpuTime is 0 where the process's CPU time is not known: cpu-ms/MB
// reads 0.
func cpuTime() time.Duration { return 0 }

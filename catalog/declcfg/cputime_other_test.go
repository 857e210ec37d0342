//go:build !unix

package declcfg

import "time"

func cpuTime() time.Duration { return 0 }

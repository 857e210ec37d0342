package cputime

import (
	"runtime"
	"testing"
	"time"
)

// TestProcessCountsWork: work adds CPU time (on unix, where it is known),
// and the time never goes backwards. It spins until 2 ms of CPU time are
// counted, which on a loaded machine may take longer; only a process
// whose CPU time does not move in 20 s of spinning fails.
func TestProcessCountsWork(t *testing.T) {
	if runtime.GOOS == "windows" || runtime.GOOS == "plan9" || runtime.GOOS == "js" || runtime.GOOS == "wasip1" {
		t.Skip("no process CPU time on", runtime.GOOS)
	}
	before := Process()
	last := before
	for start := time.Now(); last-before < 2*time.Millisecond; {
		now := Process()
		if now < last {
			t.Fatalf("CPU time went back from %v to %v", last, now)
		}
		last = now
		if time.Since(start) > 20*time.Second {
			t.Fatalf("CPU time %v then %v after 20 s of spinning", before, last)
		}
	}
}

// Package gcbudget runs a batch job's garbage collector against a fixed
// heap budget instead of the default proportional pacing.
//
// A generation allocates a few hundred megabytes of short-lived buffers
// while its live heap stays near 100 MB, so with GOGC=100 the collector
// runs dozens of times and costs about 15 % of the job's CPU time. Letting
// the heap grow to a budget first removes most of those cycles; the
// budget keeps the peak resident size bounded. A job whose live heap
// approaches the budget is not left collecting in a loop at the limit: the
// default pacing comes back.
package gcbudget

import (
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
)

// liveMetric is the heap the last collection found reachable.
const liveMetric = "/gc/heap/live:bytes"

// Apply lets the heap grow to budget bytes (total Go memory, as
// debug.SetMemoryLimit counts it) before the collector runs. Once a
// collection finds more than three quarters of the budget live, the
// previous settings are restored: the collector would then run at least
// every quarter of the budget allocated, and a heap still growing is
// paced as usual. (At half, a real-scale generation, 170 MB live at its
// peak under a 256 MiB budget, went back to GOGC=100 and grew to 360 MB
// resident.) Apply does nothing when GOGC or GOMEMLIMIT is set
// in the environment: whoever set them decided. The returned function
// restores the previous settings; it is safe to call more than once.
func Apply(budget int64) (restore func()) {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return func() {}
	}
	prevPercent := debug.SetGCPercent(-1)
	prevLimit := debug.SetMemoryLimit(budget)
	var (
		mu       sync.Mutex
		restored bool
	)
	restore = func() {
		mu.Lock()
		defer mu.Unlock()
		if !restored {
			restored = true
			debug.SetGCPercent(prevPercent)
			debug.SetMemoryLimit(prevLimit)
		}
	}
	afterEachGC(func() bool {
		mu.Lock()
		done := restored
		mu.Unlock()
		if done {
			return false
		}
		if live() > uint64(budget)/4*3 {
			restore()
			return false
		}
		return true
	})
	return restore
}

// afterEachGC calls f after every collection for as long as it returns
// true: a sentinel object is dropped, and its cleanup, run once a
// collection has found it unreachable, calls f and drops the next one.
func afterEachGC(f func() bool) {
	sentinel := new([32]byte) // not tiny-allocated, or it could share a block and never be freed
	runtime.AddCleanup(sentinel, func(struct{}) {
		if f() {
			afterEachGC(f)
		}
	}, struct{}{})
}

func live() uint64 {
	s := []metrics.Sample{{Name: liveMetric}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return s[0].Value.Uint64()
}

package gcbudget

import (
	"math"
	"runtime"
	"runtime/debug"
	"testing"
	"time"
)

// settings reads the current GC percent and memory limit.
func settings() (percent int, limit int64) {
	percent = debug.SetGCPercent(100)
	debug.SetGCPercent(percent)
	return percent, debug.SetMemoryLimit(-1)
}

func TestApplyAndRestore(t *testing.T) {
	t.Setenv("GOGC", "")
	t.Setenv("GOMEMLIMIT", "")
	restore := Apply(1 << 30)
	if p, l := settings(); p != -1 || l != 1<<30 {
		restore()
		t.Fatalf("under the budget: GOGC %d, limit %d; want off and 1 GiB", p, l)
	}
	restore()
	restore()
	if p, l := settings(); p != 100 || l != math.MaxInt64 {
		t.Fatalf("restored: GOGC %d, limit %d; want 100 and none", p, l)
	}
}

// A live heap over three quarters of the budget brings the default
// pacing back after the next collection.
func TestLargeLiveHeapRestoresPacing(t *testing.T) {
	t.Setenv("GOGC", "")
	t.Setenv("GOMEMLIMIT", "")
	restore := Apply(64 << 20)
	defer restore()
	held := make([]byte, 56<<20)
	for i := range held {
		held[i] = byte(i)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		runtime.GC()
		if p, _ := settings(); p == 100 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("pacing not restored with 56 MiB live under a 64 MiB budget")
		}
		time.Sleep(10 * time.Millisecond)
	}
	runtime.KeepAlive(held)
	if _, l := settings(); l != math.MaxInt64 {
		t.Fatalf("limit %d after restoring; want none", l)
	}
}

// A live heap between half and three quarters of the budget keeps it.
func TestHalfLiveKeepsBudget(t *testing.T) {
	t.Setenv("GOGC", "")
	t.Setenv("GOMEMLIMIT", "")
	restore := Apply(64 << 20)
	defer restore()
	held := make([]byte, 36<<20)
	for i := range held {
		held[i] = byte(i)
	}
	for range 3 {
		runtime.GC()
		time.Sleep(10 * time.Millisecond) // the cleanup runs after the collection
	}
	runtime.KeepAlive(held)
	if p, l := settings(); p != -1 || l != 64<<20 {
		t.Fatalf("with 36 MiB live under a 64 MiB budget: GOGC %d, limit %d; want off and 64 MiB", p, l)
	}
}

func TestEnvironmentWins(t *testing.T) {
	t.Setenv("GOGC", "50")
	p0, l0 := settings()
	restore := Apply(1 << 30)
	defer restore()
	if p, l := settings(); p != p0 || l != l0 {
		t.Fatalf("GOGC set in the environment: GOGC %d, limit %d changed", p, l)
	}
}

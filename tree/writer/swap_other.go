//go:build !linux

package writer

import "time"

// lock is a no-op where flock is unavailable; stale staging directories
// are then only removed when no other run holds them, which cannot be told.
func lock(string) (func(), error) { return func() {}, nil }

// waitClockPast returns once the clock is past t by more than a coarse
// file-time tick, for the reason given on Linux's.
func waitClockPast(t time.Time) {
	if d := time.Until(t.Add(20 * time.Millisecond)); d > 0 {
		time.Sleep(d)
	}
}

//go:build !linux

package writer

func exchange(a, b string) error { return renameSwap(a, b) }

// syncTree is a no-op where no single-call file system flush exists.
func syncTree(string) error { return nil }

// lock is a no-op where flock is unavailable; stale staging directories
// are then only removed when no other run holds them, which cannot be told.
func lock(string) (func(), error) { return func() {}, nil }

//go:build !linux

package dirswap

// Exchange swaps directories a and b with fallback(a, b): no atomic
// exchange here.
func Exchange(a, b string, fallback func(a, b string) error) error { return fallback(a, b) }

// SyncFS is a no-op where no single-call file system flush exists.
func SyncFS(string) error { return nil }

//go:build !linux

package writer

func exchange(a, b string) error { return renameSwap(a, b) }

// syncTree is a no-op where no single-call file system flush exists.
func syncTree(string) error { return nil }

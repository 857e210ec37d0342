//go:build !linux

package imagebuild

func exchange(a, b string) error { return renameSwap(a, b) }

// syncDir is a no-op where no single-call file system flush exists.
func syncDir(string) error { return nil }

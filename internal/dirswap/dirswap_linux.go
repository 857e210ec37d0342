package dirswap

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// Exchange atomically swaps directories a and b with
// renameat2(RENAME_EXCHANGE), so neither path ever stops existing; where
// the kernel or the file system does not support the flag, it returns
// fallback(a, b) (two renames, say).
func Exchange(a, b string, fallback func(a, b string) error) error {
	err := unix.Renameat2(unix.AT_FDCWD, a, unix.AT_FDCWD, b, unix.RENAME_EXCHANGE)
	if errors.Is(err, unix.EINVAL) || errors.Is(err, unix.ENOSYS) {
		return fallback(a, b)
	}
	return err
}

// SyncFS flushes the file system holding dir in one call: fsync of every
// file of a large tree would cost seconds.
func SyncFS(dir string) error {
	f, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer f.Close()
	return unix.Syncfs(int(f.Fd()))
}

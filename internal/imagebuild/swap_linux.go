package imagebuild

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// exchange atomically swaps directories a and b with
// renameat2(RENAME_EXCHANGE), so b never stops existing; file systems
// without the flag get two renames.
func exchange(a, b string) error {
	err := unix.Renameat2(unix.AT_FDCWD, a, unix.AT_FDCWD, b, unix.RENAME_EXCHANGE)
	if errors.Is(err, unix.EINVAL) || errors.Is(err, unix.ENOSYS) {
		return renameSwap(a, b)
	}
	return err
}

// syncDir flushes the file system holding dir in one call, so the swap
// never publishes blobs whose data is not on disk yet.
func syncDir(dir string) error {
	f, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer f.Close()
	return unix.Syncfs(int(f.Fd()))
}

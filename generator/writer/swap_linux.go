package writer

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// exchange atomically swaps two directories with renameat2(RENAME_EXCHANGE),
// so the output path never stops existing; it falls back to two renames on
// file systems that do not support the flag.
func exchange(a, b string) error {
	err := unix.Renameat2(unix.AT_FDCWD, a, unix.AT_FDCWD, b, unix.RENAME_EXCHANGE)
	if errors.Is(err, unix.EINVAL) || errors.Is(err, unix.ENOSYS) {
		return renameSwap(a, b)
	}
	return err
}

// syncTree flushes the file system holding dir in one call: fsync of every
// file of a large tree would cost seconds, and the swap must not publish
// files whose data is not on disk yet.
func syncTree(dir string) error {
	f, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer f.Close()
	return unix.Syncfs(int(f.Fd()))
}

// lock takes an exclusive lock on path, so two runs never write the same
// output at once. The lock dies with the process, so a killed run never
// leaves it held.
func lock(path string) (unlock func(), err error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, err
	}
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, unix.EWOULDBLOCK) {
			return nil, errors.New("another upgraph run is writing this output")
		}
		return nil, err
	}
	return func() { f.Close() }, nil
}

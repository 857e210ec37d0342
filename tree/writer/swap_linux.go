package writer

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// lock takes an exclusive lock on path, so two runs never write the same
// output at once. The lock dies with the process, so a killed run never
// leaves it held. Releasing it removes the file, so that nothing is left
// beside the output; a run may then have locked a file another run has
// just removed, so a lock counts only on the file path still names.
func lock(path string) (unlock func(), err error) {
	for range 10 {
		f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
		if err != nil {
			return nil, err
		}
		if err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
			f.Close()
			if errors.Is(err, unix.EWOULDBLOCK) {
				return nil, errBusy
			}
			return nil, err
		}
		held, err := f.Stat()
		if err != nil {
			f.Close()
			return nil, err
		}
		if cur, err := os.Stat(path); err == nil && os.SameFile(held, cur) {
			return func() {
				os.Remove(path) // still locked: no run holds the file it names
				f.Close()
			}, nil
		}
		f.Close() // removed by the run that held it: lock the new one
	}
	return nil, errBusy
}

var errBusy = errors.New("another upgraph run is writing this output")

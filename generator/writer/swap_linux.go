package writer

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

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

package writer

import (
	"errors"
	"os"
	"time"

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

// waitClockPast returns once the clock files take their times from is
// past t (at most 100 ms later). Modification times come from a coarse
// clock, one tick of which (1–10 ms) can hold both a generation's last
// file and a change made to one of its files just after the run: a
// regeneration, which takes a file over only if it was not modified
// after the previous index.json (LinkPrevious), would then take the
// changed file over. Waiting out the tick at the end of a commit gives
// every later change a later time.
func waitClockPast(t time.Time) {
	deadline := time.Now().Add(100 * time.Millisecond)
	for {
		var ts unix.Timespec
		if unix.ClockGettime(unix.CLOCK_REALTIME_COARSE, &ts) != nil || time.Unix(ts.Unix()).After(t) || time.Now().After(deadline) {
			return
		}
		time.Sleep(time.Millisecond)
	}
}

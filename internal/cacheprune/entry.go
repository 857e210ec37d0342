package cacheprune

import (
	"fmt"
	"io"
	"os"
	"time"
)

// ReadEntry reads the cache entry file p, of at most max bytes, and
// returns its modification time (its last use, see Used) from the same
// open file: a hit costs no second lookup of its name. A file that is not
// regular or is larger is refused. An entry is never written in place, so
// its size is its stat's; should it not be, the caller's check of what it
// read (a digest, a checksum) makes it a miss.
func ReadEntry(p string, max int64) ([]byte, time.Time, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, time.Time{}, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, time.Time{}, err
	}
	if !st.Mode().IsRegular() || st.Size() > max {
		return nil, time.Time{}, fmt.Errorf("%s: not a regular file of at most %d bytes", p, max)
	}
	data := make([]byte, st.Size())
	if _, err := io.ReadFull(f, data); err != nil {
		return nil, time.Time{}, err
	}
	return data, st.ModTime(), nil
}

// Package atomicfile writes a file whole or not at all: the bytes go to a
// temporary file beside it, renamed over the name once written, so a
// reader (another process sharing a cache) never sees a partial file and
// a killed writer leaves at most a temporary file.
package atomicfile

import (
	"os"
	"path/filepath"
)

// Write writes data to path through a temporary file in path's directory
// named by tmpPattern (os.CreateTemp's pattern: what a cleaner of that
// directory recognises as a killed writer's leftover), removed if
// anything fails. It does not sync: the callers are caches, where a lost
// entry costs only time.
func Write(path, tmpPattern string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), tmpPattern)
	if err != nil {
		return err
	}
	_, err = tmp.Write(data)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		os.Remove(tmp.Name())
	}
	return err
}

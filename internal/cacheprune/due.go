// Package cacheprune holds what the on-disk caches (release scrapes,
// catalog images, decoded catalog files) share about when to prune: a
// marker file whose time is when pruning last started, shared by every
// process using the cache, so that pruning costs one listing an interval
// whatever the number of runs. What each cache removes stays its own.
package cacheprune

import (
	"os"
	"path/filepath"
	"time"

	"github.com/upgraph/upgraph/internal/atomicfile"
)

// Due reports whether the cache whose marker file is marker is to be
// pruned at now: not when the marker is a regular file whose time is
// within every before now (a marker in the future, a clock set back, is
// due). When due, the marker is written again, with time now, by renaming
// a new file over it, so that a symbolic link planted as the marker is
// replaced and never written through, and Due reports true. A marker that
// cannot be written is never due: nothing could be removed beside it
// either. The marker's directory must exist.
func Due(marker string, now time.Time, every time.Duration) bool {
	if st, err := os.Lstat(marker); err == nil && st.Mode().IsRegular() {
		if age := now.Sub(st.ModTime()); age >= 0 && age < every {
			return false
		}
	}
	if err := atomicfile.Write(marker, filepath.Base(marker)+".tmp-*", nil); err != nil {
		return false
	}
	return os.Chtimes(marker, time.Time{}, now) == nil
}

// Used records that the cache entry at path, whose modification time is
// mod, was used at now: its modification time is set to now when mod is
// more than every before now (or more than every after it, a clock set
// back), so that a run writes at most one time per entry and interval and
// pruning, which goes by that time, sees the entry used. The access time
// is left as it is. A cache that cannot be written costs only the entry's
// removal later.
func Used(path string, mod, now time.Time, every time.Duration) {
	if now.Sub(mod) > every || mod.After(now.Add(every)) {
		_ = os.Chtimes(path, time.Time{}, now)
	}
}

// IsLowerHex reports whether s is a non-empty string of lowercase
// hexadecimal digits, as the caches' entry names (digests) are.
func IsLowerHex(s string) bool {
	if s == "" {
		return false
	}
	for i := range len(s) {
		if c := s[i]; (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

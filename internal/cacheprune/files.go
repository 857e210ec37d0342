package cacheprune

import (
	"cmp"
	"os"
	"slices"
	"strings"
	"time"
)

// File is a regular file of a cache, as its listing found it: an entry
// (whose modification time is when a run last used it) or a temporary
// file of a writer.
type File struct {
	Path string
	Mod  time.Time
	Size int64
}

// Policy bounds a cache of files.
type Policy struct {
	// Retention: an entry not used for longer is removed.
	Retention time.Duration
	// MaxBytes: beyond it, the least recently used entries are removed.
	MaxBytes int64
	// TempAge: a temporary file older is a killed writer's.
	TempAge time.Duration
}

// Removed counts what PruneFiles removed.
type Removed struct {
	Stale, OverSize, Temporary int
	Bytes                      int64 // of the entries removed
}

// PruneFiles removes the temporary files older than p.TempAge, the
// entries not used for p.Retention, then, while the rest exceed
// p.MaxBytes, the least recently used (ties by path). A file is removed
// only if it is still the regular file the listing found (RemoveUnchanged):
// one a run used since keeps its place, though it counts as gone for the
// budget, which the next pruning then meets at worst. The work is linear
// in the files, plus a sort of the entries when over the budget.
func PruneFiles(entries, temps []File, now time.Time, p Policy) Removed {
	var n Removed
	for _, t := range temps {
		if now.Sub(t.Mod) > p.TempAge && RemoveUnchanged(t) {
			n.Temporary++
		}
	}
	kept := make([]File, 0, len(entries))
	var total int64
	for _, e := range entries {
		if now.Sub(e.Mod) > p.Retention {
			if RemoveUnchanged(e) {
				n.Stale++
				n.Bytes += e.Size
			}
			continue
		}
		kept = append(kept, e)
		total += e.Size
	}
	if total <= p.MaxBytes {
		return n
	}
	slices.SortFunc(kept, func(a, b File) int {
		return cmp.Or(a.Mod.Compare(b.Mod), strings.Compare(a.Path, b.Path))
	})
	for _, e := range kept {
		if total <= p.MaxBytes {
			break
		}
		if RemoveUnchanged(e) {
			n.OverSize++
			n.Bytes += e.Size
		}
		total -= e.Size
	}
	return n
}

// RemoveUnchanged removes f if it is still a regular file of the
// listing's modification time (a symbolic link put in its place is left,
// never followed), and reports whether it did.
func RemoveUnchanged(f File) bool {
	st, err := os.Lstat(f.Path)
	if err != nil || !st.Mode().IsRegular() || !st.ModTime().Equal(f.Mod) {
		return false
	}
	return os.Remove(f.Path) == nil
}

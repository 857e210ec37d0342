package declcfg

import (
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/upgraph/upgraph/internal/cacheprune"
)

// Bounds of a FileCache. An entry's modification time is when a load last
// wrote or read it (to within refreshAfter), so the entries pruning
// removes are those no load has used for a while: those of file contents
// that changed (the old bytes of an edited bundle's file) or of catalogs
// no longer read.
const (
	// DefaultRetention keeps what a weekly regeneration reads.
	DefaultRetention = 7 * 24 * time.Hour
	// DefaultMaxBytes holds the entries of a catalog the size of the
	// shared one (14 MB of files, 33 entries of 12.5 MB) eighty times
	// over; a scheduled regeneration writes an entry per changed file,
	// about the file's size.
	DefaultMaxBytes = 1 << 30

	// refreshAfter is how stale an entry's time may get before a read
	// sets it again: one write per entry and hour at most, not one per
	// file and load, and nothing near Retention.
	refreshAfter = time.Hour
	// pruneEvery is how often loads prune: one listing of the cache an
	// hour, whatever the number of loads and processes sharing it.
	pruneEvery = time.Hour
	// tempAge is the age from which a temporary file is a killed run's:
	// writing one entry takes far less.
	tempAge = time.Hour
)

// pruneMarker, in Dir/<decodedFormat>/, has the time pruning last started.
const pruneMarker = ".last-pruned"

// maybePrune prunes the cache unless a load (of this process or another
// sharing the directory) did within pruneEvery of now. A cache where the
// marker cannot be written is not pruned: nothing could be removed there
// either. A cache directory that does not exist holds nothing to prune
// and is not made for the marker: a load that stored no entry (an empty
// catalog, a run refused before storing any) leaves no trace.
func (c *FileCache) maybePrune(now time.Time) {
	if _, err := os.Stat(c.Dir); err != nil {
		return
	}
	marker := filepath.Join(c.Dir, decodedFormat, pruneMarker)
	if err := os.MkdirAll(filepath.Dir(marker), 0o755); err != nil {
		return
	}
	if cacheprune.Due(marker, now, pruneEvery) {
		c.prune(now)
	}
}

// cacheFile is an entry or temporary file pruning found.
type cacheFile = cacheprune.File

// pruned counts what prune removed.
type pruned = cacheprune.Removed

// prune removes, under every decoded-v<N> directory of c.Dir (so the
// entries of an older format age out too):
//
//   - entries whose time is more than Retention before now,
//   - then, while the rest exceed MaxBytes, the least recently used,
//   - temporary files more than tempAge old (of a killed run).
//
// Only files named as prune's listing names them are removed, never
// anything else in the directory, and never one whose time changed since
// the listing (a load used it meanwhile). Removing an entry another load
// is about to read makes its read a miss: the file is decoded again and
// the entry rewritten, never a wrong answer. The work is one listing of
// the cache, linear in its entries, and a sort of them when over MaxBytes.
func (c *FileCache) prune(now time.Time) pruned {
	retention, maxBytes := c.Retention, c.MaxBytes
	if retention <= 0 {
		retention = DefaultRetention
	}
	if maxBytes <= 0 {
		maxBytes = DefaultMaxBytes
	}
	entries, temps := listCacheFiles(c.Dir)
	return cacheprune.PruneFiles(entries, temps, now, cacheprune.Policy{Retention: retention, MaxBytes: maxBytes, TempAge: tempAge})
}

// listCacheFiles lists the entries (dir/decoded-v<N>/<xx>/<xx…64 hex>)
// and temporary files (.tmp-<digits> beside them) under dir, regular
// files only; symbolic links are never followed. A file gone before its
// time is read is left out.
func listCacheFiles(dir string) (entries, temps []cacheFile) {
	formats, _ := os.ReadDir(dir)
	for _, f := range formats {
		if !f.IsDir() || !isFormatDir(f.Name()) {
			continue
		}
		fdir := filepath.Join(dir, f.Name())
		shards, _ := os.ReadDir(fdir)
		for _, s := range shards {
			if !s.IsDir() || len(s.Name()) != 2 || !cacheprune.IsLowerHex(s.Name()) {
				continue
			}
			sdir := filepath.Join(fdir, s.Name())
			files, _ := os.ReadDir(sdir)
			for _, e := range files {
				name := e.Name()
				isEntry := len(name) == 64 && strings.HasPrefix(name, s.Name()) && cacheprune.IsLowerHex(name)
				isTemp := isTempName(name)
				if !e.Type().IsRegular() || !isEntry && !isTemp {
					continue
				}
				info, err := e.Info()
				if err != nil {
					continue
				}
				cf := cacheFile{Path: filepath.Join(sdir, name), Mod: info.ModTime(), Size: info.Size()}
				if isEntry {
					entries = append(entries, cf)
				} else {
					temps = append(temps, cf)
				}
			}
		}
	}
	return entries, temps
}

// removeUnchanged removes f if it is still the regular file of the
// listing's time, and reports whether it did.
func removeUnchanged(f cacheFile) bool { return cacheprune.RemoveUnchanged(f) }

// isFormatDir reports whether name is decoded-v<N>, the directory of a
// format of entries (decodedFormat or another).
func isFormatDir(name string) bool {
	v, ok := strings.CutPrefix(name, "decoded-v")
	return ok && v != "" && isDigits(v)
}

// isTempName reports whether name is one put's os.CreateTemp makes.
func isTempName(name string) bool {
	v, ok := strings.CutPrefix(name, ".tmp-")
	return ok && v != "" && isDigits(v)
}

func isDigits(s string) bool {
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

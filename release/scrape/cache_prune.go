package scrape

import (
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/upgraph/upgraph/internal/cacheprune"
)

// Bounds of a DirCache. An entry's modification time is when a run last
// wrote or read it (to within refreshAfter), so the entries pruning
// removes are those no run has used for a while: digests no longer
// tagged in the repositories scraped. Without them the cache grew by an
// entry per digest ever scraped, for ever (a nightly stream of releases:
// tens of thousands a year).
const (
	// DefaultRetention keeps what a run every few weeks reads.
	DefaultRetention = 90 * 24 * time.Hour
	// DefaultMaxBytes holds the real-scale release repositories' entries
	// (about 12,000 digests of 1-3 KB) several times over.
	DefaultMaxBytes = 256 << 20

	// refreshAfter is how stale an entry's time may get before a read
	// sets it again: one write per entry and hour at most.
	refreshAfter = time.Hour
	// pruneEvery is how often runs prune: one listing of the cache an
	// hour, whatever the number of runs and processes sharing it.
	pruneEvery = time.Hour
	// tempAge is the age from which a temporary file is a killed run's.
	tempAge = time.Hour
)

// pruneMarker, in Dir/<cacheFormat>/, has the time pruning last started.
const pruneMarker = ".last-pruned"

// touch sets the time of the entry at p to now when it is older than
// refreshAfter, so that pruning sees it used.
func touch(p string, now time.Time) {
	if st, err := os.Stat(p); err == nil {
		cacheprune.Used(p, st.ModTime(), now, refreshAfter)
	}
}

// maybePrune prunes the cache unless a run (of this process or another
// sharing the directory) did within pruneEvery of now. A cache where the
// marker cannot be written is not pruned.
func (c DirCache) maybePrune(now time.Time) {
	marker := filepath.Join(c.Dir, cacheFormat, pruneMarker)
	if cacheprune.Due(marker, now, pruneEvery) {
		c.prune(now)
	}
}

// cacheFile is an entry or temporary file pruning found.
type cacheFile = cacheprune.File

// prune removes, under Dir/<cacheFormat>/<algorithm>/, the entries whose
// time is more than Retention before now, then, while the rest exceed
// MaxBytes, the least recently used, and temporary files more than
// tempAge old. Only regular files named as entries (<hex>.json) or as
// Put's temporary files (.<hex>.*) are removed, never anything else in
// the directory nor one whose time changed since the listing (a run used
// it meanwhile); removing an entry a run is about to read makes its read
// a miss, never a wrong answer. It returns how many files it removed.
func (c DirCache) prune(now time.Time) int {
	retention, maxBytes := c.Retention, c.MaxBytes
	if retention <= 0 {
		retention = DefaultRetention
	}
	if maxBytes <= 0 {
		maxBytes = DefaultMaxBytes
	}
	entries, temps := c.list()
	n := cacheprune.PruneFiles(entries, temps, now, cacheprune.Policy{Retention: retention, MaxBytes: maxBytes, TempAge: tempAge})
	return n.Stale + n.OverSize + n.Temporary
}

// list lists the entries and temporary files of the cache, regular files
// only: symbolic links are never followed.
func (c DirCache) list() (entries, temps []cacheFile) {
	fdir := filepath.Join(c.Dir, cacheFormat)
	algs, _ := os.ReadDir(fdir)
	for _, a := range algs {
		if !a.IsDir() {
			continue
		}
		adir := filepath.Join(fdir, a.Name())
		files, _ := os.ReadDir(adir)
		for _, f := range files {
			name := f.Name()
			hex, isEntry := strings.CutSuffix(name, ".json")
			isEntry = isEntry && cacheprune.IsLowerHex(hex)
			tmpHex, _, isTemp := strings.Cut(strings.TrimPrefix(name, "."), ".")
			isTemp = isTemp && strings.HasPrefix(name, ".") && cacheprune.IsLowerHex(tmpHex)
			if !f.Type().IsRegular() || !isEntry && !isTemp {
				continue
			}
			info, err := f.Info()
			if err != nil {
				continue
			}
			cf := cacheFile{Path: filepath.Join(adir, name), Mod: info.ModTime(), Size: info.Size()}
			if isEntry {
				entries = append(entries, cf)
			} else {
				temps = append(temps, cf)
			}
		}
	}
	return entries, temps
}

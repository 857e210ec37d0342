package source

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/upgraph/upgraph/internal/cacheprune"
)

// Bounds of the catalog image cache, as those of the decoded-file cache
// beside it (catalog/declcfg filecache_prune.go). An entry's last use is
// the modification time of its entry.json: written by put, set again by
// a get when more than refreshAfter old. An image rebuilt several times a
// day leaves an entry per digest, each the size of its catalog (100-300
// MB for the real index images): pruning removes those no run used for
// the retention, then the least recently used beyond the byte budget.
const (
	// DefaultCacheRetention keeps the images a weekly regeneration reads
	// (the decoded-file cache's retention).
	DefaultCacheRetention = 7 * 24 * time.Hour
	// DefaultCacheMaxBytes holds a dozen catalogs of the largest real
	// index images (300 MB of files each), so that the images one run
	// reads (a handful) stay and the superseded digests of rebuilt
	// images go first.
	DefaultCacheMaxBytes = 4 << 30

	// refreshAfter is how stale an entry's time may get before a get
	// sets it again: one write per entry and hour at most.
	refreshAfter = time.Hour
	// inUse is how recent an entry's time must be for pruning to keep it
	// whatever the budget: an entry a run (this one or another sharing
	// the directory) read in the last hour has a time at most
	// refreshAfter older than that, and a run reads an entry's files in
	// seconds, long before an hour is up.
	inUse = 2 * refreshAfter
	// pruneEvery is how often loads prune: one listing of the cache an
	// hour, whatever the number of loads and processes sharing it.
	pruneEvery = time.Hour
	// tempAge is the age from which a temporary directory is a killed
	// run's. Its time is set when it is made and when entry.json is
	// written, not while its files are: far longer than extracting
	// the largest image over a slow link (300 MB at 10 Mbit/s takes four
	// minutes), and a leftover costs only its size for a day.
	tempAge = 24 * time.Hour
)

// pruneMarker, in Dir/<cacheFormat>/, has the time pruning last started.
const pruneMarker = ".last-pruned"

// maybePrune prunes the cache unless a load (of this process or another
// sharing the directory) did within pruneEvery of now. The entry of
// keep, the image the calling load read, is never removed. A cache where
// the marker cannot be written is not pruned (nothing could be removed
// there either); one without Dir/<cacheFormat> holds nothing to prune.
func (c cache) maybePrune(now time.Time, keep string) {
	root := filepath.Join(c.Dir, cacheFormat)
	st, err := os.Lstat(root)
	if err != nil {
		return
	}
	if !st.IsDir() {
		c.logger().Warn("catalog cache not pruned: not a directory (a symbolic link is not followed)", "path", root)
		return
	}
	marker := filepath.Join(root, pruneMarker)
	if cacheprune.Due(marker, now, pruneEvery) {
		c.prune(now, keep)
	}
}

// imageEntry is an entry or temporary directory pruning found.
type imageEntry struct {
	path string
	hex  string
	// timed is the file whose time is mod: entry.json, or the directory
	// itself for a temporary directory or an entry without a readable
	// entry.json.
	timed string
	mod   time.Time
	bytes int64
	// broken is an entry without a readable entry.json naming its
	// digest: a get misses it.
	broken bool
}

// pruned counts what prune removed and kept.
type pruned struct {
	Stale, OverBudget, Temporary, Broken, Links int
	Bytes                                       int64
	// InUse counts the entries kept over the budget because a run used
	// them within inUse (or the calling load read them).
	InUse      int
	InUseBytes int64
}

// prune removes, under Dir/<cacheFormat>/<algorithm>/:
//
//   - entries whose time is more than Retention before now,
//   - then, while the rest exceed MaxBytes (the bytes entry.json
//     records), the least recently used,
//   - temporary directories (.<hex>.tmp-*) and entries without a
//     readable entry.json more than tempAge old (of a killed run, or
//     damaged),
//   - symbolic links where an algorithm directory, entry or temporary
//     directory would be: removed as links, never followed.
//
// Entries used within inUse of now and the entry of keep are never
// removed, even over the budget (a log line says so). An entry is
// removed only if its time did not change since the listing, and by
// renaming it to a temporary name first: a get meanwhile misses it whole
// (its entry.json is gone) and extracts the image again, never reading
// part of an entry. Nothing but what the listing names is removed, and
// nothing outside Dir/<cacheFormat>. The work is one listing of the
// cache and one read of each entry's entry.json (not of its files),
// linear in its entries, and a sort of them when over MaxBytes.
func (c cache) prune(now time.Time, keep string) pruned {
	retention, maxBytes := c.Retention, c.MaxBytes
	if retention <= 0 {
		retention = DefaultCacheRetention
	}
	if maxBytes <= 0 {
		maxBytes = DefaultCacheMaxBytes
	}
	var n pruned
	entries, temps := c.list(&n)
	for _, t := range temps {
		if now.Sub(t.mod) > tempAge && c.remove(t) {
			if t.broken {
				n.Broken++
			} else {
				n.Temporary++
			}
		}
	}
	used := func(e imageEntry) bool { return e.hex == keep || now.Sub(e.mod) < inUse }
	kept := entries[:0]
	var total int64
	for _, e := range entries {
		if now.Sub(e.mod) > retention && !used(e) && c.remove(e) {
			n.Stale++
			n.Bytes += e.bytes
			continue
		}
		kept = append(kept, e)
		total += e.bytes
	}
	if total > maxBytes {
		slices.SortFunc(kept, func(a, b imageEntry) int {
			return cmp.Or(a.mod.Compare(b.mod), strings.Compare(a.path, b.path))
		})
		for _, e := range kept {
			if total <= maxBytes {
				break
			}
			if used(e) {
				n.InUse++
				n.InUseBytes += e.bytes
				continue
			}
			if c.remove(e) {
				n.OverBudget++
				n.Bytes += e.bytes
			}
			// One used meanwhile is kept, though it counts as gone: the
			// budget is met by the next pruning at worst.
			total -= e.bytes
		}
		if total > maxBytes {
			c.logger().Warn("catalog cache over its budget: the entries runs used in the last two hours are kept",
				"dir", filepath.Join(c.Dir, cacheFormat), "bytes", total, "budget", maxBytes, "inUse", n.InUse, "inUseBytes", n.InUseBytes)
		}
	}
	if n.Stale+n.OverBudget+n.Temporary+n.Broken+n.Links > 0 {
		c.logger().Info("catalog cache pruned", "dir", filepath.Join(c.Dir, cacheFormat), "stale", n.Stale, "overBudget", n.OverBudget,
			"temporary", n.Temporary, "broken", n.Broken, "links", n.Links, "bytes", n.Bytes)
	}
	return n
}

// list lists the entries (<algorithm>/<hex>/) and temporary directories
// (<algorithm>/.<hex>.tmp-*) under Dir/<cacheFormat>, directories only,
// with entries lacking a readable entry.json among the temporary ones.
// A symbolic link in their place is removed as a link; anything else is
// left alone. One gone before its time is read is left out.
func (c cache) list(n *pruned) (entries, temps []imageEntry) {
	root := filepath.Join(c.Dir, cacheFormat)
	algs, _ := os.ReadDir(root)
	for _, a := range algs {
		adir := filepath.Join(root, a.Name())
		size, ok := hexLen(a.Name())
		if !ok {
			continue
		}
		if a.Type()&fs.ModeSymlink != 0 {
			c.removeLink(adir, n)
			continue
		}
		if !a.IsDir() {
			continue
		}
		names, _ := os.ReadDir(adir)
		for _, d := range names {
			name, p := d.Name(), filepath.Join(adir, d.Name())
			hex, isTemp := tempHex(name)
			if isTemp && len(hex) != size || !isTemp && (len(name) != size || !cacheprune.IsLowerHex(name)) {
				continue
			}
			if d.Type()&fs.ModeSymlink != 0 {
				c.removeLink(p, n)
				continue
			}
			if !d.IsDir() {
				continue
			}
			info, err := d.Info()
			if err != nil {
				continue
			}
			e := imageEntry{path: p, hex: hex, timed: p, mod: info.ModTime()}
			if isTemp {
				temps = append(temps, e)
				continue
			}
			e.hex = name
			if readEntryFile(&e, a.Name()) {
				entries = append(entries, e)
			} else {
				e.broken = true
				temps = append(temps, e)
			}
		}
	}
	return entries, temps
}

// readEntryFile sets e's time and bytes from its entry.json, if it is a
// regular file naming the entry's digest.
func readEntryFile(e *imageEntry, alg string) bool {
	p := filepath.Join(e.path, entryFile)
	st, err := os.Lstat(p)
	if err != nil || !st.Mode().IsRegular() {
		return false
	}
	data, err := os.ReadFile(p)
	if err != nil {
		return false
	}
	var ce cacheEntry
	if json.Unmarshal(data, &ce) != nil || ce.Digest != alg+":"+e.hex {
		return false
	}
	e.timed, e.mod, e.bytes = p, st.ModTime(), max(ce.Bytes, 0)
	return true
}

// remove removes e if its time is still the listing's: renamed to a
// temporary name beside it, then removed (os.RemoveAll removes links
// inside as links). It reports whether e was renamed away.
func (c cache) remove(e imageEntry) bool {
	st, err := os.Lstat(e.timed)
	if err != nil || st.Mode()&fs.ModeSymlink != 0 || !st.ModTime().Equal(e.mod) {
		return false
	}
	if st, err := os.Lstat(e.path); err != nil || !st.IsDir() {
		return false
	}
	gone := filepath.Join(filepath.Dir(e.path), fmt.Sprintf(".%s.tmp-pruned-%d-%d", e.hex, os.Getpid(), time.Now().UnixNano()))
	if err := os.Rename(e.path, gone); err != nil {
		return false
	}
	if err := os.RemoveAll(gone); err != nil {
		// Left for a later pruning, as a killed run's.
		c.logger().Warn("catalog cache: removing a pruned entry", "path", gone, "err", err)
	}
	return true
}

// removeLink removes the symbolic link p, where the cache keeps a
// directory: a link is never followed, and the cache never makes one.
func (c cache) removeLink(p string, n *pruned) {
	target, _ := os.Readlink(p)
	if st, err := os.Lstat(p); err != nil || st.Mode()&fs.ModeSymlink == 0 {
		return
	}
	if err := os.Remove(p); err != nil {
		c.logger().Warn("catalog cache: a symbolic link where a directory belongs, not followed, not removed", "path", p, "target", target, "err", err)
		return
	}
	n.Links++
	c.logger().Warn("catalog cache: removed a symbolic link where a directory belongs (not followed)", "path", p, "target", target)
}

func (c cache) logger() *slog.Logger {
	if c.Logger == nil {
		return slog.New(slog.DiscardHandler)
	}
	return c.Logger
}

// tempHex returns the hex of a temporary directory's name, .<hex>.tmp-*
// (put's os.MkdirTemp, or an entry renamed by remove).
func tempHex(name string) (string, bool) {
	rest, ok := strings.CutPrefix(name, ".")
	if !ok {
		return "", false
	}
	hex, suffix, ok := strings.Cut(rest, ".tmp-")
	if !ok || hex == "" || suffix == "" || !cacheprune.IsLowerHex(hex) {
		return "", false
	}
	return hex, true
}

// hexLen is the length of the hex of each digest algorithm an image's
// manifest digest can have (go-containerregistry's v1.Hasher): the
// directories of the cache.
func hexLen(algorithm string) (int, bool) {
	switch algorithm {
	case "sha256":
		return 64, true
	case "sha512":
		return 128, true
	}
	return 0, false
}

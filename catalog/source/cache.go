package source

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/upgraph/upgraph/internal/cacheprune"
)

// DefaultCacheDir is under the user's cache directory, beside the release
// scrape cache.
func DefaultCacheDir() (string, error) {
	base, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("no user cache directory (set a catalog cache directory): %w", err)
	}
	return filepath.Join(base, "upgraph", "catalogs"), nil
}

// cacheFormat versions the on-disk layout.
const cacheFormat = "v1"

// cache keeps the catalog directory of each image by its manifest digest,
// under Dir/v1/<algorithm>/<hex>/: configs/ holds the files of the
// image's configs directory, entry.json what was recorded about it. A
// digest names immutable content, so an entry never goes stale. Entries are
// built in a temporary directory beside them and renamed into place, so
// concurrent runs and a killed run leave either no entry or a whole one.
//
// The cache is bounded (cache_prune.go): entry.json's modification time
// is when a run last used the entry (put writes it, a get sets it when
// more than refreshAfter old), and a load at most once every pruneEvery
// removes the entries not used for Retention, then the least recently
// used beyond MaxBytes, and the temporary directories of killed runs.
type cache struct {
	Dir string
	// Retention is how long an entry no run used is kept
	// (DefaultCacheRetention when 0).
	Retention time.Duration
	// MaxBytes caps the entries' total size (their catalogs' bytes, as
	// entry.json records them): beyond it the least recently used are
	// removed (DefaultCacheMaxBytes when 0).
	MaxBytes int64
	// Logger, if set, says what pruning removed or kept over the budget.
	Logger *slog.Logger
}

// cacheEntry is entry.json.
type cacheEntry struct {
	Digest     string `json:"digest"`
	ConfigsDir string `json:"configsDir"`
	Platform   string `json:"platform,omitempty"`
	Files      int    `json:"files"`
	Bytes      int64  `json:"bytes"`
}

const (
	entryFile  = "entry.json"
	configsDir = "configs"
)

func (c cache) path(h v1.Hash) string {
	return filepath.Join(c.Dir, cacheFormat, h.Algorithm, h.Hex)
}

// get returns the entry for h and the directory of its catalog. An entry
// that does not read back whole (its files counted and sized as recorded)
// is a miss, and so is one that is a symbolic link (the cache never
// makes one; put replaces it, never following it), or one another run's
// pruning renamed away meanwhile (its entry.json or files are gone).
//
// An entry used for the first time in refreshAfter gets the time of this
// use, before its files are counted, so that a pruning listing it after
// that keeps it; a cache that cannot be written costs only the entry's
// removal later.
func (c cache) get(h v1.Hash) (cacheEntry, string, bool) {
	dir := c.path(h)
	if st, err := os.Lstat(dir); err != nil || !st.IsDir() {
		return cacheEntry{}, "", false
	}
	entry := filepath.Join(dir, entryFile)
	data, err := os.ReadFile(entry)
	if err != nil {
		return cacheEntry{}, "", false
	}
	var e cacheEntry
	if json.Unmarshal(data, &e) != nil || e.Digest != h.String() {
		return cacheEntry{}, "", false
	}
	if st, err := os.Lstat(entry); err == nil {
		cacheprune.Used(entry, st.ModTime(), time.Now(), refreshAfter)
	}
	root := filepath.Join(dir, configsDir)
	files, size, err := countFiles(root)
	if err != nil || files != e.Files || size != e.Bytes {
		return cacheEntry{}, "", false
	}
	return e, root, true
}

// gone reports whether the entry for h is gone: its entry.json is not
// there (removed, or renamed away with its entry by a pruning).
func (c cache) gone(h v1.Hash) bool {
	_, err := os.Lstat(filepath.Join(c.path(h), entryFile))
	return errors.Is(err, fs.ErrNotExist)
}

// put builds the entry for h with fill, which writes the catalog's files
// into the directory it is given, and returns it as get would.
func (c cache) put(h v1.Hash, fill func(dir string) (cacheEntry, error)) (cacheEntry, string, error) {
	final := c.path(h)
	if err := os.MkdirAll(filepath.Dir(final), 0o755); err != nil {
		return cacheEntry{}, "", fmt.Errorf("catalog cache: %w", err)
	}
	tmp, err := os.MkdirTemp(filepath.Dir(final), "."+h.Hex+".tmp-")
	if err != nil {
		return cacheEntry{}, "", fmt.Errorf("catalog cache: %w", err)
	}
	defer os.RemoveAll(tmp) // a no-op once renamed
	e, err := fill(filepath.Join(tmp, configsDir))
	if err != nil {
		return cacheEntry{}, "", err
	}
	data, err := json.MarshalIndent(e, "", "  ")
	if err != nil {
		return cacheEntry{}, "", err
	}
	if err := os.WriteFile(filepath.Join(tmp, entryFile), append(data, '\n'), 0o644); err != nil {
		return cacheEntry{}, "", fmt.Errorf("catalog cache: %w", err)
	}
	if err := os.Rename(tmp, final); err != nil {
		// Another run may have stored the same digest meanwhile, or a
		// broken entry is in the way.
		if got, dir, ok := c.get(h); ok {
			return got, dir, nil
		}
		if rerr := os.RemoveAll(final); rerr != nil {
			return cacheEntry{}, "", fmt.Errorf("catalog cache: %w", errors.Join(err, rerr))
		}
		if err := os.Rename(tmp, final); err != nil {
			return cacheEntry{}, "", fmt.Errorf("catalog cache: %w", err)
		}
	}
	return e, filepath.Join(final, configsDir), nil
}

// countFiles counts the regular files under root and their bytes.
func countFiles(root string) (files int, size int64, err error) {
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type().IsRegular() {
			info, err := d.Info()
			if err != nil {
				return err
			}
			files++
			size += info.Size()
		}
		return nil
	})
	return files, size, err
}

package scrape

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/upgraph/upgraph/internal/atomicfile"
)

// Entry is what one manifest digest holds for the graph: a release
// (Found) or the reason it is none. A digest names immutable content, so
// an entry never goes stale, whichever repository or tag it came from.
type Entry struct {
	Digest   string          `json:"digest"`
	Arch     string          `json:"arch,omitempty"`
	Found    bool            `json:"found"`
	Metadata ReleaseMetadata `json:"metadata,omitzero"`
	// Reason says why no release was found.
	Reason string `json:"reason,omitempty"`
}

// Cache stores entries by manifest digest across runs.
type Cache interface {
	Get(digest v1.Hash) (Entry, bool)
	Put(e Entry) error
}

// cacheFormat versions the on-disk layout: a change in what an entry
// means must not be read back as the old meaning.
const cacheFormat = "v1"

// DirCache keeps one small JSON file per digest under Dir/v1/<algorithm>/.
// Writes go through a temporary file and a rename, so concurrent runs and
// a killed run leave either no entry or a whole one. Entries no run has
// read for Retention, and the least recently used beyond MaxBytes, are
// removed when a run writes one (at most hourly, see cache_prune.go).
type DirCache struct {
	Dir       string
	Retention time.Duration // 0: DefaultRetention
	MaxBytes  int64         // 0: DefaultMaxBytes
}

// DefaultCacheDir is under the user's cache directory.
func DefaultCacheDir() (string, error) {
	base, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("no user cache directory (set --cache): %w", err)
	}
	return filepath.Join(base, "upgraph", "scrape"), nil
}

func (c DirCache) path(h v1.Hash) string {
	return filepath.Join(c.Dir, cacheFormat, h.Algorithm, h.Hex+".json")
}

// Get returns the entry for digest; an unreadable entry is a miss.
func (c DirCache) Get(h v1.Hash) (Entry, bool) {
	p := c.path(h)
	data, err := os.ReadFile(p)
	if err != nil {
		return Entry{}, false
	}
	var e Entry
	if json.Unmarshal(data, &e) != nil || e.Digest != h.String() {
		return Entry{}, false
	}
	if e.Found {
		if _, err := parseMetadata(mustJSON(e.Metadata)); err != nil {
			return Entry{}, false
		}
	}
	touch(p, time.Now())
	return e, true
}

// Put stores e.
func (c DirCache) Put(e Entry) error {
	h, err := v1.NewHash(e.Digest)
	if err != nil {
		return err
	}
	p := c.path(h)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return fmt.Errorf("scrape cache: %w", err)
	}
	if err := atomicfile.Write(p, "."+h.Hex+".*", mustJSON(e)); err != nil {
		return fmt.Errorf("scrape cache: %w", err)
	}
	c.maybePrune(time.Now())
	return nil
}

func mustJSON(v any) []byte {
	data, err := json.Marshal(v)
	if err != nil {
		panic(err) // only plain structs of strings are marshalled
	}
	return data
}

// noCache is used with --no-cache.
type noCache struct{}

func (noCache) Get(v1.Hash) (Entry, bool) { return Entry{}, false }
func (noCache) Put(Entry) error           { return nil }

// MemoryCache keeps the entries of Inner it has read or written in
// memory, for a process that scrapes the same repository again and again
// (upgraph service): an entry never goes stale, so each digest is read
// from Inner at most once per process. Safe for concurrent use.
type MemoryCache struct {
	Inner   Cache
	entries sync.Map // digest string → Entry
}

func (c *MemoryCache) Get(h v1.Hash) (Entry, bool) {
	if e, ok := c.entries.Load(h.String()); ok {
		return e.(Entry), true
	}
	e, ok := c.Inner.Get(h)
	if ok {
		c.entries.Store(h.String(), e)
	}
	return e, ok
}

func (c *MemoryCache) Put(e Entry) error {
	if err := c.Inner.Put(e); err != nil {
		return err
	}
	c.entries.Store(e.Digest, e)
	return nil
}

package scrape

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/upgraph/upgraph/internal/atomicfile"
	"github.com/upgraph/upgraph/internal/cacheprune"
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
	data, mod, err := cacheprune.ReadEntry(p, maxEntryBytes)
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
	cacheprune.Used(p, mod, time.Now(), refreshAfter)
	return e, true
}

// maxEntryBytes bounds an entry read back: one release's metadata, from a
// document a scrape reads at most maxMetadataSize of, encoded again as
// JSON (escaping can make a byte six). A larger file is a miss.
const maxEntryBytes = 8 * maxMetadataSize

// Touch marks the entry of h used now, as Get does, for a cache in front
// of c that answers from memory.
func (c DirCache) Touch(h v1.Hash) { touch(c.path(h), time.Now()) }

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
// from Inner at most once per process while it is used. Entries no Get or
// Put used for memoryRetention are dropped (a sweep at most every
// sweepEvery), so that memory follows the digests tagged now, not every
// digest the process ever saw; an entry read from memory is touched in
// Inner at most daily (when Inner has a Touch method, as DirCache does),
// so that pruning Inner does not take what the process still uses. Safe
// for concurrent use.
type MemoryCache struct {
	Inner   Cache
	entries sync.Map // digest string → *memoryEntry

	mu    sync.Mutex
	swept time.Time
}

// Bounds of a MemoryCache.
const (
	memoryRetention = 7 * 24 * time.Hour
	sweepEvery      = time.Hour
	touchEvery      = 24 * time.Hour
)

type memoryEntry struct {
	e       Entry
	used    atomic.Int64 // unix nanoseconds of the last Get or Put
	touched atomic.Int64 // unix nanoseconds Inner was last told of a use
}

// toucher is a Cache that can be told an entry is still used.
type toucher interface{ Touch(h v1.Hash) }

func (c *MemoryCache) Get(h v1.Hash) (Entry, bool) {
	now := time.Now()
	c.maybeSweep(now)
	if v, ok := c.entries.Load(h.String()); ok {
		me := v.(*memoryEntry)
		me.used.Store(now.UnixNano())
		if t, ok := c.Inner.(toucher); ok && now.UnixNano()-me.touched.Load() > int64(touchEvery) {
			me.touched.Store(now.UnixNano())
			t.Touch(h)
		}
		return me.e, true
	}
	e, ok := c.Inner.Get(h)
	if ok {
		c.store(e, now)
	}
	return e, ok
}

func (c *MemoryCache) Put(e Entry) error {
	if err := c.Inner.Put(e); err != nil {
		return err
	}
	c.store(e, time.Now())
	return nil
}

func (c *MemoryCache) store(e Entry, now time.Time) {
	me := &memoryEntry{e: e}
	me.used.Store(now.UnixNano())
	me.touched.Store(now.UnixNano())
	c.entries.Store(e.Digest, me)
}

// maybeSweep drops the entries unused for memoryRetention, at most once
// per sweepEvery.
func (c *MemoryCache) maybeSweep(now time.Time) {
	c.mu.Lock()
	if now.Sub(c.swept) < sweepEvery {
		c.mu.Unlock()
		return
	}
	c.swept = now
	c.mu.Unlock()
	c.sweep(now)
}

func (c *MemoryCache) sweep(now time.Time) {
	c.entries.Range(func(k, v any) bool {
		if now.UnixNano()-v.(*memoryEntry).used.Load() > int64(memoryRetention) {
			c.entries.Delete(k)
		}
		return true
	})
}

// len counts the entries in memory, for tests.
func (c *MemoryCache) len() int {
	n := 0
	c.entries.Range(func(any, any) bool { n++; return true })
	return n
}

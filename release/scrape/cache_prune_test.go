package scrape

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
)

// TestDirCachePrune: writing an entry prunes, at most hourly, the entries
// no run has read for Retention, then the least recently used beyond
// MaxBytes, and temporary files of killed runs; reading an entry keeps it;
// nothing else in the directory is removed, symbolic links included.
func TestDirCachePrune(t *testing.T) {
	dir := t.TempDir()
	c := DirCache{Dir: dir, Retention: 30 * 24 * time.Hour}
	now := time.Now()
	digest := func(i int) v1.Hash { return v1.Hash{Algorithm: "sha256", Hex: fmt.Sprintf("%064x", i)} }
	put := func(i int, age time.Duration) string {
		t.Helper()
		if err := c.Put(Entry{Digest: digest(i).String(), Reason: "not a release"}); err != nil {
			t.Fatal(err)
		}
		p := c.path(digest(i))
		setAge(t, p, now, age)
		return p
	}
	alg := filepath.Join(dir, cacheFormat, "sha256")
	stale, used, fresh := put(1, 40*24*time.Hour), put(2, 40*24*time.Hour), put(3, time.Minute)
	oldTemp, youngTemp := filepath.Join(alg, "."+digest(4).Hex+".123"), filepath.Join(alg, "."+digest(5).Hex+".456")
	outside := filepath.Join(t.TempDir(), "precious.json")
	others := []string{filepath.Join(alg, "README"), filepath.Join(dir, "mine.json"), outside}
	for _, p := range append([]string{oldTemp, youngTemp}, others...) {
		writeFile(t, p)
	}
	setAge(t, oldTemp, now, 2*time.Hour)
	setAge(t, outside, now, 400*24*time.Hour)
	link := filepath.Join(alg, digest(6).Hex+".json")
	if err := os.Symlink(outside, link); err != nil {
		t.Fatal(err)
	}
	if _, ok := c.Get(digest(2)); !ok {
		t.Fatal("entry 2 not read")
	}
	// The marker is an hour old: the next write prunes.
	setAge(t, filepath.Join(dir, cacheFormat, pruneMarker), now, 61*time.Minute)
	put(7, 0)
	wantFiles(t, map[string]bool{stale: false, oldTemp: false, used: true, fresh: true, youngTemp: true, link: true,
		others[0]: true, others[1]: true, others[2]: true})

	// Within the hour, nothing more is pruned.
	setAge(t, fresh, now, 40*24*time.Hour)
	put(8, 0)
	wantFiles(t, map[string]bool{fresh: true})

	// Over MaxBytes, the least recently used go first.
	c = DirCache{Dir: t.TempDir()}
	var paths []string
	for i, age := range []time.Duration{3 * time.Hour, time.Hour, 2 * time.Hour} {
		paths = append(paths, put(20+i, age))
	}
	st, err := os.Stat(paths[0])
	if err != nil {
		t.Fatal(err)
	}
	c.MaxBytes = 2 * st.Size()
	if n := c.prune(now); n != 1 {
		t.Errorf("pruned %d files over MaxBytes, want 1", n)
	}
	wantFiles(t, map[string]bool{paths[0]: false, paths[1]: true, paths[2]: true})
}

func writeFile(t *testing.T, p string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
}

func setAge(t *testing.T, p string, now time.Time, age time.Duration) {
	t.Helper()
	if err := os.Chtimes(p, now.Add(-age), now.Add(-age)); err != nil {
		t.Fatal(err)
	}
}

// wantFiles checks which of the files exist (a symbolic link itself).
func wantFiles(t *testing.T, want map[string]bool) {
	t.Helper()
	for _, p := range slices.Sorted(maps.Keys(want)) {
		_, err := os.Lstat(p)
		if exists := err == nil; exists != want[p] {
			t.Errorf("%s exists: %v, want %v", p, exists, want[p])
		}
	}
}

// TestMemoryCacheBounded: entries no Get or Put used for memoryRetention
// are dropped from memory (still on disk), and an entry answered from
// memory is touched on disk daily, so that pruning the disk cache keeps
// what a long-running process uses.
func TestMemoryCacheBounded(t *testing.T) {
	disk := DirCache{Dir: t.TempDir()}
	c := &MemoryCache{Inner: disk}
	now := time.Now()
	h := func(i int) v1.Hash { return v1.Hash{Algorithm: "sha256", Hex: fmt.Sprintf("%064x", i)} }
	for i := range 3 {
		if err := c.Put(Entry{Digest: h(i).String(), Reason: "not a release"}); err != nil {
			t.Fatal(err)
		}
	}
	entry := func(i int) *memoryEntry {
		v, ok := c.entries.Load(h(i).String())
		if !ok {
			t.Fatalf("entry %d not in memory", i)
		}
		return v.(*memoryEntry)
	}
	entry(0).used.Store(now.Add(-8 * 24 * time.Hour).UnixNano())
	entry(1).used.Store(now.Add(-6 * 24 * time.Hour).UnixNano())
	entry(2).touched.Store(now.Add(-25 * time.Hour).UnixNano())
	setAge(t, disk.path(h(2)), now, 40*24*time.Hour)
	c.swept = now.Add(-2 * time.Hour)
	if _, ok := c.Get(h(2)); !ok {
		t.Fatal("entry 2 not found")
	}
	if n := c.len(); n != 2 {
		t.Errorf("%d entries in memory after a sweep, want 2 (entry 0 unused for 8 days dropped)", n)
	}
	if _, ok := c.entries.Load(h(0).String()); ok {
		t.Error("entry 0, unused for 8 days, still in memory")
	}
	if st, err := os.Stat(disk.path(h(2))); err != nil || now.Sub(st.ModTime()) > time.Hour {
		t.Errorf("entry 2 answered from memory not touched on disk: %v, %v", st.ModTime(), err)
	}
	// Dropped from memory, not from disk: read again from there.
	if _, ok := c.Get(h(0)); !ok || c.len() != 3 {
		t.Errorf("entry 0 not read back from disk: %v, %d in memory", ok, c.len())
	}
}

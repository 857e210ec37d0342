package declcfg

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/upgraph/upgraph/internal/cputime"
)

// hexName is a well-formed entry name starting with prefix.
func hexName(prefix string, n int) string {
	h := sha256.Sum256([]byte{byte(n)})
	return prefix + hex.EncodeToString(h[:])[len(prefix):]
}

// cacheTestFile is a file planted in a cache directory, age before now.
type cacheTestFile struct {
	path string // relative to the cache's Dir
	age  time.Duration
	size int
	// symlink, if set, makes path a symbolic link to a file of that age
	// outside the cache.
	symlink bool
}

// TestFileCachePrune: prune removes stale entries, then the least
// recently used beyond MaxBytes, and old temporary files; nothing else.
func TestFileCachePrune(t *testing.T) {
	const day = 24 * time.Hour
	e1, e2, e3 := "decoded-v1/ab/"+hexName("ab", 1), "decoded-v1/ab/"+hexName("ab", 2), "decoded-v1/0f/"+hexName("0f", 3)
	tests := []struct {
		name      string
		retention time.Duration
		maxBytes  int64
		files     []cacheTestFile
		removed   []string
		want      pruned
	}{
		{
			name:    "entries not used within the retention are removed, recently used kept",
			files:   []cacheTestFile{{e1, 8 * day, 10, false}, {e2, 6 * day, 10, false}, {e3, time.Minute, 10, false}},
			removed: []string{e1},
			want:    pruned{Stale: 1, Bytes: 10},
		},
		{
			name:      "a shorter retention",
			retention: time.Hour,
			files:     []cacheTestFile{{e1, 2 * time.Hour, 10, false}, {e2, 59 * time.Minute, 10, false}},
			removed:   []string{e1},
			want:      pruned{Stale: 1, Bytes: 10},
		},
		{
			name:     "beyond the size cap the least recently used are removed first",
			maxBytes: 250,
			files:    []cacheTestFile{{e1, 3 * time.Hour, 100, false}, {e2, time.Hour, 100, false}, {e3, 2 * time.Hour, 100, false}},
			removed:  []string{e1},
			want:     pruned{OverSize: 1, Bytes: 100},
		},
		{
			name:     "stale entries count before the cap",
			maxBytes: 150,
			files:    []cacheTestFile{{e1, 9 * day, 100, false}, {e2, time.Hour, 100, false}, {e3, 2 * time.Hour, 100, false}},
			removed:  []string{e1, e3},
			want:     pruned{Stale: 1, OverSize: 1, Bytes: 200},
		},
		{
			name:     "under the cap nothing recent goes",
			maxBytes: 300,
			files:    []cacheTestFile{{e1, 3 * time.Hour, 100, false}, {e2, time.Hour, 100, false}, {e3, 2 * time.Hour, 100, false}},
		},
		{
			name: "the entries of another format age out too",
			files: []cacheTestFile{
				{"decoded-v0/ab/" + hexName("ab", 1), 8 * day, 10, false},
				{"decoded-v0/ab/" + hexName("ab", 2), day, 10, false},
			},
			removed: []string{"decoded-v0/ab/" + hexName("ab", 1)},
			want:    pruned{Stale: 1, Bytes: 10},
		},
		{
			name: "temporary files of killed runs are removed when old",
			files: []cacheTestFile{
				{"decoded-v1/ab/.tmp-123", 2 * time.Hour, 10, false},
				{"decoded-v1/ab/.tmp-456", time.Minute, 10, false},
			},
			removed: []string{"decoded-v1/ab/.tmp-123"},
			want:    pruned{Temporary: 1},
		},
		{
			name:     "foreign files are never touched, however old or large",
			maxBytes: 1,
			files: []cacheTestFile{
				{"decoded-v1/ab/notes.txt", 30 * day, 100, false},
				{"decoded-v1/ab/" + hexName("cd", 1), 30 * day, 100, false},                  // not its shard
				{"decoded-v1/ab/" + strings.ToUpper(hexName("ab", 1)), 30 * day, 100, false}, // not lower-case
				{"decoded-v1/ab/" + hexName("ab", 1) + ".bak", 30 * day, 100, false},
				{"decoded-v1/ab/.tmp-12x", 30 * day, 100, false},
				{"decoded-v1/ab/.tmp-", 30 * day, 100, false},
				{"decoded-v1/zz/" + hexName("zz", 1), 30 * day, 100, false},   // not a shard
				{"decoded-v1/abc/" + hexName("abc", 1), 30 * day, 100, false}, // not a shard
				{"decoded-v1/" + hexName("", 1), 30 * day, 100, false},        // not in a shard
				{"decoded-v1/.last-pruned", 30 * day, 0, false},
				{"decoded-vx/ab/" + hexName("ab", 1), 30 * day, 100, false}, // not a format
				{"decoded/ab/" + hexName("ab", 1), 30 * day, 100, false},
				{"v1/sha256/" + hexName("", 1) + "/entry.json", 30 * day, 100, false}, // catalog/source's images
				{"ab/" + hexName("ab", 1), 30 * day, 100, false},
				{"decoded-v1/ab/" + hexName("ab", 2), 30 * day, 100, true}, // a symbolic link
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir, outside := t.TempDir(), t.TempDir()
			now := time.Date(2026, 11, 28, 17, 0, 0, 0, time.UTC)
			for i, f := range tt.files {
				p := filepath.Join(dir, filepath.FromSlash(f.path))
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				target := p
				if f.symlink {
					target = filepath.Join(outside, hexName("", i))
					if err := os.Symlink(target, p); err != nil {
						t.Fatal(err)
					}
				}
				if err := os.WriteFile(target, make([]byte, f.size), 0o644); err != nil {
					t.Fatal(err)
				}
				if err := os.Chtimes(target, now, now.Add(-f.age)); err != nil {
					t.Fatal(err)
				}
			}
			c := &FileCache{Dir: dir, Retention: tt.retention, MaxBytes: tt.maxBytes}
			got := c.prune(now)
			if got != tt.want {
				t.Errorf("pruned %+v, want %+v", got, tt.want)
			}
			var removed []string
			for _, f := range tt.files {
				if _, err := os.Lstat(filepath.Join(dir, filepath.FromSlash(f.path))); os.IsNotExist(err) {
					removed = append(removed, f.path)
				} else if err != nil {
					t.Fatal(err)
				}
			}
			slices.Sort(removed)
			want := slices.Sorted(slices.Values(tt.removed))
			if !reflect.DeepEqual(removed, want) {
				t.Errorf("removed %q, want %q", removed, want)
			}
			if entries, _ := os.ReadDir(outside); len(entries) != len(slices.DeleteFunc(slices.Clone(tt.files), func(f cacheTestFile) bool { return !f.symlink })) {
				t.Errorf("a symbolic link's target was removed")
			}
		})
	}
}

// TestFileCachePruneRaces: what another load does between pruning's
// listing and its removals: an entry removed meanwhile is no error, one
// used meanwhile (its time set again) is kept, and a load whose entry
// pruning removed decodes the file again, to the same blobs, and writes
// the entry back.
func TestFileCachePruneRaces(t *testing.T) {
	data := []byte("schema: olm.package\nname: p\ndefaultChannel: stable\n")
	fsys := fstest.MapFS{"p/catalog.yaml": {Data: data}}
	want, err := LoadFS(context.Background(), fsys)
	if err != nil {
		t.Fatal(err)
	}
	c := &FileCache{Dir: t.TempDir()}
	if _, err := LoadWith(context.Background(), fsys, ".", Options{Cache: c}); err != nil {
		t.Fatal(err)
	}
	entry := c.path(sha256.Sum256(data))
	other := filepath.Join(filepath.Dir(entry), hexName(filepath.Base(filepath.Dir(entry)), 9))
	if err := os.WriteFile(other, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	old := now.Add(-30 * 24 * time.Hour)
	for _, p := range []string{entry, other} {
		if err := os.Chtimes(p, old, old); err != nil {
			t.Fatal(err)
		}
	}

	entries, _ := listCacheFiles(c.Dir)
	if len(entries) != 2 {
		t.Fatalf("listed %d entries, want 2", len(entries))
	}
	// Between the listing and the removals: one entry goes, the other is
	// used by a load.
	if err := os.Remove(other); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(entry, now, now); err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if removeUnchanged(e) {
			t.Errorf("%s removed", e.Path)
		}
	}
	if _, err := os.Stat(entry); err != nil {
		t.Fatalf("the entry used meanwhile: %v", err)
	}

	// A load whose entry is gone when it reads it: a miss.
	if err := os.Remove(entry); err != nil {
		t.Fatal(err)
	}
	got, err := LoadWith(context.Background(), fsys, ".", Options{Cache: c})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("the load after the entry's removal differs from one without a cache")
	}
	if _, err := os.Stat(entry); err != nil {
		t.Errorf("the entry was not written again: %v", err)
	}
}

// TestFileCacheRefresh: reading an entry sets its time when it is more
// than refreshAfter old, and only then.
func TestFileCacheRefresh(t *testing.T) {
	tests := []struct {
		name      string
		age       time.Duration
		refreshed bool
	}{
		{"used a week ago", 7 * 24 * time.Hour, true},
		{"used two hours ago", 2 * time.Hour, true},
		{"used ten minutes ago", 10 * time.Minute, false},
		{"a time far in the future", -48 * time.Hour, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := &FileCache{Dir: t.TempDir()}
			sum := sha256.Sum256([]byte(tt.name))
			c.put(sum, fileResult{metas: []Meta{{Schema: "s", Blob: []byte(`{"schema":"s"}`)}}, offs: []int{0}})
			p := c.path(sum)
			was := time.Now().Add(-tt.age).Truncate(time.Second)
			if err := os.Chtimes(p, was, was); err != nil {
				t.Fatal(err)
			}
			before := time.Now()
			if _, ok := c.get("f", sum); !ok {
				t.Fatal("a miss")
			}
			st, err := os.Stat(p)
			if err != nil {
				t.Fatal(err)
			}
			if refreshed := !st.ModTime().Equal(was); refreshed != tt.refreshed {
				t.Errorf("time %v (was %v), refreshed %v, want %v", st.ModTime(), was, refreshed, tt.refreshed)
			}
			if tt.refreshed && st.ModTime().Before(before.Add(-time.Second)) {
				t.Errorf("time %v, not the read's (%v)", st.ModTime(), before)
			}
		})
	}
}

// TestFileCacheMaybePrune: a load prunes the cache, then no load does
// for pruneEvery, whatever the FileCache (process) it goes through.
func TestFileCacheMaybePrune(t *testing.T) {
	dir := t.TempDir()
	now := time.Date(2026, 11, 28, 17, 0, 0, 0, time.UTC)
	stale := func(n int) string {
		p := filepath.Join(dir, decodedFormat, "ab", hexName("ab", n))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
		old := now.Add(-30 * 24 * time.Hour)
		if err := os.Chtimes(p, old, old); err != nil {
			t.Fatal(err)
		}
		return p
	}
	gone := func(p string) bool {
		_, err := os.Stat(p)
		return os.IsNotExist(err)
	}
	steps := []struct {
		name   string
		at     time.Duration
		pruned bool
	}{
		{"the first load", 0, true},
		{"another load of the same hour", 59 * time.Minute, false},
		{"a load an hour later", 61 * time.Minute, true},
		{"a marker in the future (clock set back)", -time.Hour, true},
	}
	for i, s := range steps {
		p := stale(i)
		(&FileCache{Dir: dir}).maybePrune(now.Add(s.at))
		if gone(p) != s.pruned {
			t.Errorf("%s: pruned %v, want %v", s.name, gone(p), s.pruned)
		}
		os.Remove(p)
	}

	// Through a load, without a marker.
	if err := os.Remove(filepath.Join(dir, decodedFormat, pruneMarker)); err != nil {
		t.Fatal(err)
	}
	p := stale(99)
	if _, err := LoadWith(context.Background(), fstest.MapFS{"a.json": {Data: []byte(`{"schema":"olm.package","name":"a"}`)}}, ".", Options{Cache: &FileCache{Dir: dir}}); err != nil {
		t.Fatal(err)
	}
	if !gone(p) {
		t.Error("a load did not prune")
	}
}

// BenchmarkFileCachePrune: pruning a cache of 10,000 entries, all kept
// (the listing every pruning pays).
func BenchmarkFileCachePrune(b *testing.B) {
	dir := b.TempDir()
	for i := range 10000 {
		h := sha256.Sum256([]byte{byte(i), byte(i >> 8)})
		name := hex.EncodeToString(h[:])
		p := filepath.Join(dir, decodedFormat, name[:2], name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	c := &FileCache{Dir: dir}
	now := time.Now()
	start := cputime.Process()
	for b.Loop() {
		if n := c.prune(now); n != (pruned{}) {
			b.Fatalf("pruned %+v", n)
		}
	}
	b.ReportMetric(float64((cputime.Process()-start).Microseconds())/1000/float64(b.N), "cpu-ms/op")
}

// TestFileCacheMaybePruneNoCache: a cache directory that does not exist
// is not made, for the marker or anything else (a refused run, or a load
// of an empty catalog, leaves nothing behind).
func TestFileCacheMaybePruneNoCache(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "catalogs")
	c := &FileCache{Dir: dir}
	c.maybePrune(time.Date(2026, 11, 28, 17, 0, 0, 0, time.UTC))
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("pruning a missing cache made %s (%v)", dir, err)
	}
}

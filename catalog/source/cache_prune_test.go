package source

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"

	"github.com/upgraph/upgraph/catalog/declcfg"
)

// hexOf is the hex of a well-formed sha256 digest, one per n.
func hexOf(n int) string {
	h := sha256.Sum256([]byte{byte(n)})
	return hex.EncodeToString(h[:])
}

// Kinds of what a test plants in an image cache.
const (
	plantEntry  = iota // an entry: configs/ and entry.json naming its digest
	plantDir           // a directory with a file (a temporary directory, a broken entry)
	plantFile          // a regular file
	plantLink          // a symbolic link to a directory outside the cache
	plantWrong         // an entry whose entry.json names another digest
	plantLinked        // an entry whose configs/ holds a link to a directory outside the cache
)

// planted is something planted in a cache's Dir, age before now.
type planted struct {
	path  string // relative to Dir, e.g. v1/sha256/<hex>
	kind  int
	age   time.Duration // entry.json's for an entry, else the path's own
	bytes int64         // recorded in entry.json
}

// plant makes p under dir, with the times of now-p.age, and returns the
// directory a link points to (outside dir, holding a file).
func plant(t *testing.T, dir string, now time.Time, p planted) string {
	t.Helper()
	full := filepath.Join(dir, filepath.FromSlash(p.path))
	if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
		t.Fatal(err)
	}
	when := now.Add(-p.age)
	var target string
	switch p.kind {
	case plantEntry, plantWrong, plantLinked:
		if err := os.MkdirAll(filepath.Join(full, configsDir, "a"), 0o755); err != nil {
			t.Fatal(err)
		}
		if p.kind == plantLinked {
			target = t.TempDir()
			if err := os.WriteFile(filepath.Join(target, entryFile), []byte("precious"), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(target, filepath.Join(full, configsDir, "b")); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.WriteFile(filepath.Join(full, configsDir, "a", "catalog.json"), []byte("{}\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		digest := filepath.Base(filepath.Dir(full)) + ":" + filepath.Base(full)
		if p.kind == plantWrong {
			digest = "sha256:" + hexOf(250)
		}
		data, _ := json.Marshal(cacheEntry{Digest: digest, ConfigsDir: "/configs", Files: 1, Bytes: p.bytes})
		if err := os.WriteFile(filepath.Join(full, entryFile), data, 0o644); err != nil {
			t.Fatal(err)
		}
		// The directory is far older than entry.json: pruning goes by
		// entry.json's time.
		if err := os.Chtimes(full, time.Time{}, now.Add(-365*24*time.Hour)); err != nil {
			t.Fatal(err)
		}
		full = filepath.Join(full, entryFile)
	case plantDir:
		if err := os.MkdirAll(filepath.Join(full, configsDir), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(full, configsDir, "x.json"), []byte("{}\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	case plantFile:
		if err := os.WriteFile(full, []byte("not the cache's"), 0o644); err != nil {
			t.Fatal(err)
		}
	case plantLink:
		target = t.TempDir()
		if err := os.WriteFile(filepath.Join(target, entryFile), []byte(`{"digest":"sha256:`+hexOf(251)+`","bytes":1}`), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(target, full); err != nil {
			t.Fatal(err)
		}
		return target
	}
	if err := os.Chtimes(full, time.Time{}, when); err != nil {
		t.Fatal(err)
	}
	return target
}

// TestCachePrune: prune removes stale entries, then the least recently
// used beyond MaxBytes, keeps those a run used in the last two hours
// (and the calling load's) whatever the budget, removes old temporary
// directories and broken entries, removes links as links, and never
// touches anything else.
func TestCachePrune(t *testing.T) {
	const day = 24 * time.Hour
	e := func(n int) string { return "v1/sha256/" + hexOf(n) }
	tmp := func(n int, suffix string) string { return "v1/sha256/." + hexOf(n) + ".tmp-" + suffix }
	tests := []struct {
		name      string
		retention time.Duration
		maxBytes  int64
		keep      string
		plant     []planted
		removed   []string
		want      pruned
		log       string // in the log, if set
	}{
		{
			name:    "entries not used within the retention are removed, recently used kept",
			plant:   []planted{{e(1), plantEntry, 8 * day, 10}, {e(2), plantEntry, 6 * day, 10}, {e(3), plantEntry, time.Minute, 10}},
			removed: []string{e(1)},
			want:    pruned{Stale: 1, Bytes: 10},
			log:     "catalog cache pruned",
		},
		{
			name:      "a shorter retention",
			retention: 3 * time.Hour,
			plant:     []planted{{e(1), plantEntry, 4 * time.Hour, 10}, {e(2), plantEntry, 150 * time.Minute, 10}},
			removed:   []string{e(1)},
			want:      pruned{Stale: 1, Bytes: 10},
		},
		{
			name:      "a retention shorter than two hours keeps what runs used in the last two",
			retention: time.Minute,
			plant:     []planted{{e(1), plantEntry, 3 * time.Hour, 10}, {e(2), plantEntry, 90 * time.Minute, 10}},
			removed:   []string{e(1)},
			want:      pruned{Stale: 1, Bytes: 10},
		},
		{
			name:     "beyond the budget the least recently used go first",
			maxBytes: 250,
			plant:    []planted{{e(1), plantEntry, 5 * time.Hour, 100}, {e(2), plantEntry, 3 * time.Hour, 100}, {e(3), plantEntry, 4 * time.Hour, 100}},
			removed:  []string{e(1)},
			want:     pruned{OverBudget: 1, Bytes: 100},
		},
		{
			name:     "the budget takes as many as it needs, oldest first",
			maxBytes: 150,
			plant:    []planted{{e(1), plantEntry, 5 * time.Hour, 100}, {e(2), plantEntry, 3 * time.Hour, 100}, {e(3), plantEntry, 4 * time.Hour, 100}, {e(4), plantEntry, 6 * time.Hour, 20}},
			removed:  []string{e(4), e(1), e(3)},
			want:     pruned{OverBudget: 3, Bytes: 220},
		},
		{
			name:     "stale entries count before the budget",
			maxBytes: 150,
			plant:    []planted{{e(1), plantEntry, 9 * day, 100}, {e(2), plantEntry, 3 * time.Hour, 100}, {e(3), plantEntry, 4 * time.Hour, 100}},
			removed:  []string{e(1), e(3)},
			want:     pruned{Stale: 1, OverBudget: 1, Bytes: 200},
		},
		{
			name:     "under the budget nothing recent goes",
			maxBytes: 300,
			plant:    []planted{{e(1), plantEntry, 5 * time.Hour, 100}, {e(2), plantEntry, 3 * time.Hour, 100}, {e(3), plantEntry, 4 * time.Hour, 100}},
		},
		{
			name:     "entries used in the last two hours and the load's own are kept over the budget, and the log says so",
			maxBytes: 100,
			keep:     hexOf(4),
			plant: []planted{
				{e(1), plantEntry, 5 * time.Hour, 100},
				{e(2), plantEntry, 30 * time.Minute, 100},
				{e(3), plantEntry, 119 * time.Minute, 100},
				{e(4), plantEntry, 10 * time.Hour, 100}, // the load's: oldest, yet kept
			},
			removed: []string{e(1)},
			want:    pruned{OverBudget: 1, Bytes: 100, InUse: 3, InUseBytes: 300},
			log:     "over its budget",
		},
		{
			name:    "the load's own entry is kept past the retention",
			keep:    hexOf(1),
			plant:   []planted{{e(1), plantEntry, 30 * day, 10}, {e(2), plantEntry, 30 * day, 10}},
			removed: []string{e(2)},
			want:    pruned{Stale: 1, Bytes: 10},
		},
		{
			name:     "an entry with a time in the future is in use",
			maxBytes: 1,
			plant:    []planted{{e(1), plantEntry, -3 * time.Hour, 10}},
			want:     pruned{InUse: 1, InUseBytes: 10},
			log:      "over its budget",
		},
		{
			name: "temporary directories of killed runs, and entries a killed pruning renamed, are removed when old",
			plant: []planted{
				{tmp(1, "123"), plantDir, 25 * time.Hour, 0},
				{tmp(2, "456"), plantDir, 23 * time.Hour, 0}, // an extraction may still be under way
				{tmp(3, "pruned-77-1"), plantDir, 30 * day, 0},
			},
			removed: []string{tmp(1, "123"), tmp(3, "pruned-77-1")},
			want:    pruned{Temporary: 2},
		},
		{
			name: "an entry without a readable entry.json naming its digest is removed when old",
			plant: []planted{
				{e(1), plantDir, 25 * time.Hour, 0},
				{e(2), plantDir, time.Hour, 0},
				{e(3), plantWrong, 25 * time.Hour, 0},
			},
			removed: []string{e(1), e(3)},
			want:    pruned{Broken: 2},
		},
		{
			name: "symbolic links where directories belong are removed as links, their targets untouched",
			plant: []planted{
				{e(1), plantLink, 0, 0},
				{tmp(2, "9"), plantLink, 0, 0},
				{"v1/sha512", plantLink, 0, 0},
				{e(3), plantLinked, 30 * day, 10}, // removed, the link inside as a link
			},
			removed: []string{e(1), tmp(2, "9"), "v1/sha512", e(3)},
			want:    pruned{Links: 3, Stale: 1, Bytes: 10},
			log:     "removed a symbolic link where a directory belongs (not followed)\" path=",
		},
		{
			name:     "foreign files are never touched, however old or large",
			maxBytes: 1,
			plant: []planted{
				{"v1/notes.txt", plantFile, 30 * day, 0},
				{"v1/.last-pruned.tmp-1", plantFile, 30 * day, 0},
				{"v1/sha256/README", plantFile, 30 * day, 0},
				{"v1/sha256/" + hexOf(5), plantFile, 30 * day, 0},                   // a file, not an entry
				{"v1/sha256/" + strings.ToUpper(hexOf(6)), plantEntry, 30 * day, 9}, // not lower-case
				{"v1/sha256/" + hexOf(7) + ".bak", plantEntry, 30 * day, 9},
				{"v1/sha256/.tmp-12", plantDir, 30 * day, 0},
				{"v1/sha256/." + hexOf(8) + ".tmp-", plantDir, 30 * day, 0},
				{"v1/sha256/." + hexOf(8) + ".bak-1", plantDir, 30 * day, 0},
				{"v1/SHA256/" + hexOf(9), plantEntry, 30 * day, 9}, // not an algorithm's directory
				{"v1/sha256/x/" + hexOf(10), plantEntry, 30 * day, 9},
				{"v1/" + hexOf(11), plantEntry, 30 * day, 9},
				{"v0/sha256/" + hexOf(12), plantEntry, 30 * day, 9}, // not this format
				{"decoded-v1/ab/" + hexOf(13), plantFile, 30 * day, 0},
				{"sha256/" + hexOf(14), plantEntry, 30 * day, 9},
				{"v1/notes", plantLink, 0, 0}, // a link, but not where a directory of the cache belongs
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			now := time.Now()
			targets := map[string]string{}
			for _, p := range tt.plant {
				if target := plant(t, dir, now, p); target != "" {
					targets[p.path] = target
				}
			}
			var log bytes.Buffer
			c := cache{Dir: dir, Retention: tt.retention, MaxBytes: tt.maxBytes, Logger: slog.New(slog.NewTextHandler(&log, nil))}
			got := c.prune(now, tt.keep)
			if got != tt.want {
				t.Errorf("pruned %+v, want %+v", got, tt.want)
			}
			for _, p := range tt.plant {
				_, err := os.Lstat(filepath.Join(dir, p.path))
				if gone := os.IsNotExist(err); gone != slices.Contains(tt.removed, p.path) {
					t.Errorf("%s: removed %v, want %v (%v)", p.path, gone, !gone, err)
				}
				if target := targets[p.path]; target != "" {
					if _, err := os.Stat(filepath.Join(target, entryFile)); err != nil {
						t.Errorf("%s: the link's target lost its file: %v", p.path, err)
					}
				}
			}
			// Nothing renamed for removal stays.
			algs, _ := os.ReadDir(filepath.Join(dir, cacheFormat))
			for _, a := range algs {
				names, _ := os.ReadDir(filepath.Join(dir, cacheFormat, a.Name()))
				for _, n := range names {
					if strings.Contains(n.Name(), ".tmp-pruned-") && !slices.Contains(plantedPaths(tt.plant), "v1/"+a.Name()+"/"+n.Name()) {
						t.Errorf("%s/%s left", a.Name(), n.Name())
					}
				}
			}
			if tt.log != "" && !strings.Contains(log.String(), tt.log) {
				t.Errorf("log lacks %q:\n%s", tt.log, log.String())
			}
			if tt.log == "" && tt.want == (pruned{}) && log.Len() > 0 {
				t.Errorf("nothing pruned, yet the log says:\n%s", log.String())
			}
		})
	}
}

func plantedPaths(ps []planted) []string {
	var out []string
	for _, p := range ps {
		out = append(out, p.path)
	}
	return out
}

// TestCacheMaybePrune: the marker, shared by every run using the
// directory, lets a load prune at most once an hour; a cache without
// v1/ gets no marker; v1/ as a symbolic link is not pruned and the log
// names it; a link planted as the marker is replaced, its target not
// written.
func TestCacheMaybePrune(t *testing.T) {
	const day = 24 * time.Hour
	now := time.Now()
	stale := func(n int) planted { return planted{"v1/sha256/" + hexOf(n), plantEntry, 30 * day, 10} }
	gone := func(dir string, n int) bool {
		_, err := os.Lstat(filepath.Join(dir, "v1/sha256", hexOf(n)))
		return os.IsNotExist(err)
	}

	t.Run("at most hourly, whichever run", func(t *testing.T) {
		dir := t.TempDir()
		plant(t, dir, now, stale(1))
		cache{Dir: dir}.maybePrune(now, "")
		if !gone(dir, 1) {
			t.Fatal("the first load did not prune")
		}
		plant(t, dir, now, stale(2))
		steps := []struct {
			after time.Duration
			gone  bool
		}{{time.Minute, false}, {59 * time.Minute, false}, {61 * time.Minute, true}}
		for _, s := range steps {
			cache{Dir: dir}.maybePrune(now.Add(s.after), "") // another run, the same directory
			if gone(dir, 2) != s.gone {
				t.Errorf("%v after the first pruning: stale entry removed %v, want %v", s.after, gone(dir, 2), s.gone)
			}
		}
	})

	t.Run("no cache, no marker", func(t *testing.T) {
		dir := t.TempDir()
		cache{Dir: dir}.maybePrune(now, "")
		if _, err := os.Lstat(filepath.Join(dir, cacheFormat)); !os.IsNotExist(err) {
			t.Errorf("pruning an empty cache made %s: %v", cacheFormat, err)
		}
	})

	t.Run("v1 a symbolic link", func(t *testing.T) {
		dir, elsewhere := t.TempDir(), t.TempDir()
		plant(t, elsewhere, now, planted{"sha256/" + hexOf(1), plantEntry, 30 * day, 10})
		if err := os.Symlink(elsewhere, filepath.Join(dir, cacheFormat)); err != nil {
			t.Fatal(err)
		}
		var log bytes.Buffer
		cache{Dir: dir, Logger: slog.New(slog.NewTextHandler(&log, nil))}.maybePrune(now, "")
		if _, err := os.Stat(filepath.Join(elsewhere, "sha256", hexOf(1), entryFile)); err != nil {
			t.Errorf("an entry behind the link was removed: %v", err)
		}
		if _, err := os.Lstat(filepath.Join(elsewhere, pruneMarker)); !os.IsNotExist(err) {
			t.Errorf("a marker was written behind the link: %v", err)
		}
		if want := "path=" + filepath.Join(dir, cacheFormat); !strings.Contains(log.String(), want) || !strings.Contains(log.String(), "not pruned") {
			t.Errorf("log lacks a refusal naming %s:\n%s", want, log.String())
		}
	})

	t.Run("marker a symbolic link", func(t *testing.T) {
		dir, elsewhere := t.TempDir(), t.TempDir()
		plant(t, dir, now, stale(1))
		victim := filepath.Join(elsewhere, "precious")
		if err := os.WriteFile(victim, []byte("precious"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(victim, filepath.Join(dir, cacheFormat, pruneMarker)); err != nil {
			t.Fatal(err)
		}
		cache{Dir: dir}.maybePrune(now, "")
		if data, err := os.ReadFile(victim); err != nil || string(data) != "precious" {
			t.Errorf("the marker's link target was written: %q, %v", data, err)
		}
		if st, err := os.Lstat(filepath.Join(dir, cacheFormat, pruneMarker)); err != nil || !st.Mode().IsRegular() {
			t.Errorf("marker not a regular file: %v, %v", st, err)
		}
		if !gone(dir, 1) {
			t.Error("not pruned")
		}
	})
}

// TestCacheGetRefreshes: a get sets the time of an entry not used for
// more than an hour, not of one used within it; a get misses an entry
// pruning removed, and one that is a symbolic link, and put then makes
// a whole entry again (the link removed, its target untouched).
func TestCacheGetRefreshes(t *testing.T) {
	dir := t.TempDir()
	c := cache{Dir: dir}
	h := v1.Hash{Algorithm: "sha256", Hex: hexOf(1)}
	fill := func(dest string) (cacheEntry, error) {
		if err := os.MkdirAll(dest, 0o755); err != nil {
			return cacheEntry{}, err
		}
		err := os.WriteFile(filepath.Join(dest, "catalog.json"), []byte("{}\n"), 0o644)
		return cacheEntry{Digest: h.String(), ConfigsDir: "/configs", Files: 1, Bytes: 3}, err
	}
	if _, _, err := c.put(h, fill); err != nil {
		t.Fatal(err)
	}
	entry := filepath.Join(c.path(h), entryFile)
	for _, tt := range []struct {
		age       time.Duration
		refreshed bool
	}{{3 * time.Hour, true}, {30 * time.Minute, false}, {-3 * time.Hour, true}} {
		old := time.Now().Add(-tt.age).Truncate(time.Second)
		if err := os.Chtimes(entry, time.Time{}, old); err != nil {
			t.Fatal(err)
		}
		if _, _, ok := c.get(h); !ok {
			t.Fatal("miss")
		}
		st, err := os.Stat(entry)
		if err != nil {
			t.Fatal(err)
		}
		if refreshed := !st.ModTime().Equal(old); refreshed != tt.refreshed {
			t.Errorf("used %v ago: refreshed %v, want %v", tt.age, refreshed, tt.refreshed)
		}
	}

	if err := os.Chtimes(entry, time.Time{}, time.Now().Add(-30*24*time.Hour)); err != nil {
		t.Fatal(err)
	}
	if n := c.prune(time.Now(), ""); n.Stale != 1 {
		t.Fatalf("pruned %+v, want the entry stale", n)
	}
	if _, _, ok := c.get(h); ok {
		t.Error("a pruned entry was a hit")
	}

	elsewhere := t.TempDir()
	if _, _, err := (cache{Dir: elsewhere}).put(h, fill); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(elsewhere, cacheFormat, "sha256", hexOf(1)), c.path(h)); err != nil {
		t.Fatal(err)
	}
	if _, _, ok := c.get(h); ok {
		t.Error("an entry that is a symbolic link was a hit")
	}
	if _, _, err := c.put(h, fill); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Lstat(c.path(h)); err != nil || !st.IsDir() {
		t.Errorf("put left %v, %v; want a directory", st, err)
	}
	if _, err := os.Stat(filepath.Join(elsewhere, cacheFormat, "sha256", hexOf(1), entryFile)); err != nil {
		t.Errorf("the link's target lost its entry: %v", err)
	}
	if _, _, ok := c.get(h); !ok {
		t.Error("the entry put made is a miss")
	}
}

// TestReadCachedPrunedMeanwhile: a load whose cache entry another run's
// pruning renames away as it reads it extracts the image again and
// reads the catalog whole; a read failing on an entry still there fails
// at once, the image not extracted again.
func TestReadCachedPrunedMeanwhile(t *testing.T) {
	ctx := context.Background()
	img := catalogImage(t, "amd64", layer(t, configsAB(t)...))
	digest, err := img.Digest()
	if err != nil {
		t.Fatal(err)
	}
	c := cache{Dir: t.TempDir()}
	s := &Image{Ref: "example.com/catalog:v1"}
	load := func(dir string) (*declcfg.DeclarativeConfig, error) {
		return declcfg.LoadWith(ctx, os.DirFS(dir), ".", declcfg.Options{})
	}
	var info Info
	if _, err := s.readCached(ctx, c, img, digest, &info, load); err != nil || info.Cached {
		t.Fatalf("first read: cached %v, %v", info.Cached, err)
	}

	tests := []struct {
		name string
		// during runs as the read begins.
		during    func(t *testing.T)
		reads     int
		cached    bool
		wantError bool
	}{
		{
			name: "renamed away by a pruning",
			during: func(t *testing.T) {
				e := imageEntry{path: c.path(digest), hex: digest.Hex, timed: filepath.Join(c.path(digest), entryFile)}
				st, err := os.Lstat(e.timed)
				if err != nil {
					t.Fatal(err)
				}
				e.mod = st.ModTime()
				if !c.remove(e) {
					t.Fatal("not removed")
				}
			},
			reads: 2,
		},
		{
			name:      "a file of the catalog broken, the entry there",
			during:    func(t *testing.T) {},
			reads:     1,
			cached:    true,
			wantError: true,
		},
		{
			name:   "nothing meanwhile",
			reads:  1,
			cached: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			reads := 0
			read := func(dir string) (*declcfg.DeclarativeConfig, error) {
				reads++
				if reads == 1 && tt.during != nil {
					tt.during(t)
					if tt.wantError {
						return nil, errors.New("broken file")
					}
				}
				return load(dir)
			}
			var info Info
			cfg, err := s.readCached(ctx, c, img, digest, &info, read)
			if gotError := err != nil; gotError != tt.wantError {
				t.Fatalf("error %v, want one %v", err, tt.wantError)
			}
			if reads != tt.reads || info.Cached != tt.cached {
				t.Errorf("%d reads, cached %v; want %d, %v", reads, info.Cached, tt.reads, tt.cached)
			}
			if err == nil {
				if got := names(cfg); !slices.Equal(got, namesAB) {
					t.Errorf("blobs = %q, want %q", got, namesAB)
				}
				if info.ConfigsDir != "/configs" {
					t.Errorf("configs dir %q", info.ConfigsDir)
				}
			}
			if _, _, ok := c.get(digest); !ok {
				t.Error("no whole entry after the read")
			}
		})
	}
}

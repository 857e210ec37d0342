package declcfg

import (
	"context"
	"crypto/sha256"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"testing/fstest"
)

// TestFileCache: a load through a FileCache, cold (every file decoded
// and recorded) and warm (every file read back), gives exactly what a
// load without one gives: blobs, keys, positions, typed values, errors.
func TestFileCache(t *testing.T) {
	tests := []struct {
		name string
		fsys fs.FS
		// entries is how many files are recorded (those without errors).
		entries int
	}{
		{"JSON stream", files("p/catalog.json", `{"schema":"olm.package","name":"p","defaultChannel":"stable"}
{"schema":"olm.channel","package":"p","name":"stable","entries":[{"name":"p.v1.0.0"}]}
{"schema":"olm.bundle","package":"p","name":"p.v1.0.0","image":"quay.io/p/b@sha256:1","properties":[{"type":"olm.package","value":{"packageName":"p","version":"1.0.0"}}]}`), 1},
		{"YAML documents and another schema", files(
			"p/catalog.yaml", "---\nschema: olm.package\nname: p\ndefaultChannel: stable\n---\n# a comment\nschema: olm.channel\npackage: p\nname: stable\nentries:\n- name: p.v1.0.0\n",
			"q/other.yaml", "schema: my.schema\npackage: q\nname: other\nvalue: yes\n"), 2},
		{"JSON then YAML", files("p/mixed.json", "{\"schema\":\"olm.package\",\"name\":\"p\"}\n---\nschema: olm.package\nname: q\n"), 1},
		{"the same bytes in two files", files(
			"a/catalog.yaml", "schema: olm.package\nname: p\n",
			"b/catalog.yaml", "schema: olm.package\nname: p\n"), 1},
		{"a file with an error is not recorded", files(
			"a/catalog.yaml", "schema: olm.package\nname: p\n",
			"b/catalog.yaml", "schema: olm.package\nname: [\n"), 1},
		{"a typed decoding error", files("b/1.json", `{"schema":"olm.channel","package":"p","name":"c","entries":"no"}`), 1},
	}
	if _, err := os.Stat(sharedCatalog); err == nil {
		tests = append(tests, struct {
			name    string
			fsys    fs.FS
			entries int
		}{"the shared catalog", os.DirFS(sharedCatalog), 33})
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want, wantErr := LoadFS(context.Background(), tt.fsys)
			cache := &FileCache{Dir: t.TempDir()}
			for _, pass := range []string{"cold", "warm"} {
				got, err := LoadWith(context.Background(), tt.fsys, ".", Options{Cache: cache})
				if fmt.Sprint(err) != fmt.Sprint(wantErr) {
					t.Fatalf("%s: error %v, want %v", pass, err, wantErr)
				}
				if !reflect.DeepEqual(got, want) {
					t.Errorf("%s: the load differs from one without a cache", pass)
				}
			}
			if n := countEntries(t, cache); n != tt.entries {
				t.Errorf("%d entries, want %d", n, tt.entries)
			}
			// The warm load read them (a damaged entry is a miss, which
			// the comparison above cannot tell).
			for _, p := range entryPaths(t, cache) {
				data, err := os.ReadFile(p)
				if err != nil {
					t.Fatal(err)
				}
				if _, err := parseEntry("x", data); err != nil {
					t.Errorf("%s: %v", p, err)
				}
			}
		})
	}
}

func countEntries(t *testing.T, c *FileCache) int { return len(entryPaths(t, c)) }

// entryPaths are the entries pruning lists: every file the cache wrote,
// the pruning marker and temporary files aside.
func entryPaths(t *testing.T, c *FileCache) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(filepath.Join(c.Dir, decodedFormat), func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && d.Name() != pruneMarker {
			out = append(out, p)
		}
		return err
	})
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	entries, _ := listCacheFiles(c.Dir)
	if len(entries) != len(out) {
		t.Errorf("pruning lists %d entries of %d files", len(entries), len(out))
	}
	return out
}

// TestFileCacheReadsEntries: a file whose entry is there is not decoded
// (its blobs are the entry's), and a damaged entry is a miss: the file is
// decoded and the entry written again.
func TestFileCacheReadsEntries(t *testing.T) {
	data := []byte("schema: olm.package\nname: p\n")
	fsys := fstest.MapFS{"p/catalog.yaml": {Data: data}}
	cache := &FileCache{Dir: t.TempDir()}
	sum := sha256.Sum256(data)
	planted := fileResult{
		metas: []Meta{{Schema: "olm.package", Name: "planted", Blob: []byte(`{"name":"planted","schema":"olm.package"}`), Pos: Position{Line: 7}}},
		offs:  []int{3},
	}
	cache.put(sum, planted)
	cfg, err := LoadWith(context.Background(), fsys, ".", Options{Cache: cache})
	if err != nil {
		t.Fatal(err)
	}
	if len(cfg.Packages) != 1 || cfg.Packages[0].Name != "planted" || cfg.Metas[0].Pos != (Position{File: "p/catalog.yaml", Line: 7}) {
		t.Fatalf("the entry was not read: %+v", cfg.Metas)
	}

	entry, err := os.ReadFile(cache.path(sum))
	if err != nil {
		t.Fatal(err)
	}
	for _, damage := range []func([]byte) []byte{
		func(b []byte) []byte { b[len(b)/2] ^= 1; return b },                     // a flipped bit
		func(b []byte) []byte { return b[:len(b)-3] },                            // truncated
		func(b []byte) []byte { return append([]byte("x"), b...) },               // not an entry
		func(b []byte) []byte { return appendEntryRaw(entryMagic + "\xff\x01") }, // counts that do not add up
	} {
		if err := os.WriteFile(cache.path(sum), damage(append([]byte(nil), entry...)), 0o644); err != nil {
			t.Fatal(err)
		}
		cfg, err := LoadWith(context.Background(), fsys, ".", Options{Cache: cache})
		if err != nil {
			t.Fatal(err)
		}
		if len(cfg.Packages) != 1 || cfg.Packages[0].Name != "p" || cfg.Metas[0].Pos.Line != 1 {
			t.Errorf("a damaged entry was read: %+v", cfg.Metas)
		}
		if _, ok := cache.get("x", sum); !ok {
			t.Error("the damaged entry was not written again")
		}
	}
}

// appendEntryRaw is body with a valid checksum.
func appendEntryRaw(body string) []byte {
	b := []byte(body)
	return appendChecksum(b)
}

package generator_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	catviews "github.com/upgraph/upgraph/catalog/views"
	"github.com/upgraph/upgraph/generator"
	"github.com/upgraph/upgraph/internal/precompress"
	"github.com/upgraph/upgraph/schema"
	"github.com/upgraph/upgraph/tree/manifest"
	"github.com/upgraph/upgraph/tree/writer"
)

// TestRenderPrecompress: with Precompress every graph file has a gzip
// copy beside it, listed in index.json, holding its bytes, the same for
// identical files (one inode); index.json's counts and bytes cover the
// copies; the tree is the same bytes when generated into a new directory
// or over itself, where unchanged copies are carried over (same inode,
// not compressed again) and a copy changed in place is made again.
func TestRenderPrecompress(t *testing.T) {
	b := demoBuilt(t)
	base := t.TempDir()
	render := func(dir string) *manifest.Manifest {
		t.Helper()
		m, err := generator.Render(context.Background(), b, generator.RenderOptions{
			Store: writer.DirStore{Dir: dir}, GeneratedAt: time.Unix(0, 0), NoViewer: true, Precompress: true,
		})
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	out := filepath.Join(base, "tree")
	m := render(out)
	if m.Precompressed != "gzip" {
		t.Errorf("precompressed %q", m.Precompressed)
	}
	checkManifestFiles(t, out, m)
	var total int64
	copies := 0
	for name, f := range m.Files {
		total += f.Size
		if !strings.HasPrefix(name, "graph/") || strings.HasSuffix(name, ".gz") {
			continue
		}
		gz, ok := m.Files[name+".gz"]
		if !ok {
			t.Errorf("%s has no copy listed", name)
			continue
		}
		copies++
		plain, copyBytes := readOut(t, out, name), readOut(t, out, name+".gz")
		if manifest.SHA256(copyBytes) != gz.SHA256 {
			t.Errorf("%s.gz: digest differs from index.json", name)
		}
		zr, err := gzip.NewReader(bytes.NewReader(copyBytes))
		if err != nil {
			t.Fatalf("%s.gz: %v", name, err)
		}
		got, err := io.ReadAll(zr)
		if err != nil || !bytes.Equal(got, plain) {
			t.Errorf("%s.gz: does not decompress to %s (%v)", name, name, err)
		}
		if zr.Header.Name != "" || !zr.Header.ModTime.IsZero() || zr.Header.OS != 255 || zr.Header.Comment != precompress.Comment(name, len(plain)) {
			t.Errorf("%s.gz: header %+v", name, zr.Header)
		}
		if !bytes.Equal(copyBytes, precompress.GzipFile(name, plain)) {
			t.Errorf("%s.gz: not the deterministic copy", name)
		}
	}
	if copies != m.Counts.VersionGraphs+m.Counts.Graphs+1 {
		t.Errorf("%d copies, want one per graph file (%d) and the empty graph", copies, m.Counts.VersionGraphs+m.Counts.Graphs)
	}
	if m.Counts.Bytes != total || m.Counts.Files != len(m.Files)+1 {
		t.Errorf("counts %+v; the files listed have %d bytes, %d files", m.Counts, total, len(m.Files))
	}
	// Identical files, identical copies: one inode.
	for name := range m.Files {
		for other, f := range m.Files {
			if name < other && strings.HasSuffix(name, ".json") && strings.HasPrefix(name, "graph/") && m.Files[name] == f {
				a, _ := os.Stat(filepath.Join(out, name+".gz"))
				c, _ := os.Stat(filepath.Join(out, other+".gz"))
				if !os.SameFile(a, c) {
					t.Errorf("%s and %s are the same bytes, their copies two files", name, other)
				}
			}
		}
	}

	// Into a new directory: the same tree.
	fresh := filepath.Join(base, "fresh")
	render(fresh)
	if a, c := readTree(t, out), readTree(t, fresh); len(a) != len(c) {
		t.Fatalf("%d and %d files", len(a), len(c))
	} else {
		for name, data := range a {
			if !bytes.Equal(data, c[name]) {
				t.Errorf("%s differs between a new directory and the first run", name)
			}
		}
	}

	// Over itself: copies carried over, one changed in place made again.
	const kept, damaged = "graph/amd64/fast-4.16.json.gz", "graph/amd64/fast-4.16/4.16.0.json.gz"
	keptBefore, err := os.Stat(filepath.Join(out, kept))
	if err != nil {
		t.Fatal(err)
	}
	original := readOut(t, out, damaged)
	bad := bytes.Clone(original)
	bad[len(bad)/2] ^= 1 // header and trailer intact
	if err := os.WriteFile(filepath.Join(out, damaged), bad, 0o644); err != nil {
		t.Fatal(err)
	}
	again := render(out)
	keptAfter, err := os.Stat(filepath.Join(out, kept))
	if err != nil {
		t.Fatal(err)
	}
	if !os.SameFile(keptBefore, keptAfter) {
		t.Errorf("%s: written again, not carried over", kept)
	}
	if got := readOut(t, out, damaged); !bytes.Equal(got, original) {
		t.Errorf("%s: a copy changed in place was carried over", damaged)
	}
	if idx, idx2 := mustEncode(t, m), mustEncode(t, again); !bytes.Equal(idx, idx2) {
		t.Error("index.json differs between the first run and the run over it")
	}

	// Without Precompress, no copies.
	plainOut := filepath.Join(base, "plain")
	pm, err := generator.Render(context.Background(), b, generator.RenderOptions{
		Store: writer.DirStore{Dir: plainOut}, GeneratedAt: time.Unix(0, 0), NoViewer: true,
	})
	if err != nil {
		t.Fatal(err)
	}
	for name := range pm.Files {
		if strings.HasSuffix(name, ".gz") {
			t.Errorf("%s written without Precompress", name)
		}
	}
	if pm.Precompressed != "" {
		t.Errorf("precompressed %q without Precompress", pm.Precompressed)
	}
}

func readOut(t *testing.T, dir, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(name)))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func mustEncode(t *testing.T, m *manifest.Manifest) []byte {
	t.Helper()
	b, err := m.Encode()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestRenderCatalogCopies: a catalog file of catalogd's minimum compressed
// size and more has a gzip copy with its modification time (nginx's
// gzip_static takes Last-Modified from the copy); a smaller one has none.
func TestRenderCatalogCopies(t *testing.T) {
	cat := sharedCatalogView(t, "shared")
	out := filepath.Join(t.TempDir(), "tree")
	m, err := generator.Render(context.Background(), nil, generator.RenderOptions{
		Store: writer.DirStore{Dir: out}, GeneratedAt: time.Unix(0, 0), NoViewer: true, Precompress: true,
		Catalogs: []*catviews.Catalog{cat},
	})
	if err != nil {
		t.Fatal(err)
	}
	small, large := 0, 0
	for name, f := range m.Files {
		if !strings.HasPrefix(name, "operators/") || strings.HasSuffix(name, ".gz") {
			continue
		}
		gz, ok := m.Files[name+".gz"]
		if f.Size < precompress.CatalogMin {
			small++
			if ok {
				t.Errorf("%s: %d bytes, with a copy", name, f.Size)
			}
			continue
		}
		large++
		if !ok {
			t.Errorf("%s: %d bytes, no copy", name, f.Size)
			continue
		}
		if large%50 != 1 {
			continue
		}
		a, err1 := os.Stat(filepath.Join(out, name))
		c, err2 := os.Stat(filepath.Join(out, name+".gz"))
		if err1 != nil || err2 != nil || !a.ModTime().Equal(c.ModTime()) || c.Size() != gz.Size {
			t.Errorf("%s: copy %v %v, modification times %v and %v", name, err1, err2, a.ModTime(), c.ModTime())
		}
		matches := func(gz, data []byte) bool { return precompress.MatchesFile(name, gz, data) }
		if _, ok := m.Catalogs[0].GzipSegments[name+".gz"]; ok {
			matches = precompress.MatchesSegmented
		}
		if plain := readOut(t, out, name); !matches(readOut(t, out, name+".gz"), plain) {
			t.Errorf("%s.gz: not its copy", name)
		}
	}
	if small == 0 || large == 0 {
		t.Errorf("%d small and %d large catalog files: the test covers neither case", small, large)
	}
	checkSegmentedCopies(t, out, m)
}

// checkSegmentedCopies checks the segmented copies of a tree's catalogs:
// all.jsonl's and the large metas/schema/ files' copies are segmented,
// Go's gzip and the gzip program read each back as its file, its
// segments add up to the copy and its file, and index.json matches its
// JSON Schema.
func checkSegmentedCopies(t *testing.T, out string, m *manifest.Manifest) {
	t.Helper()
	segmented := 0
	for _, c := range m.Catalogs {
		all := catviews.Dir(c.Name) + "all.jsonl.gz"
		if m.Files[strings.TrimSuffix(all, ".gz")].Size >= 128<<10 && c.GzipSegments[all] == nil {
			t.Errorf("%s: not segmented", all)
		}
		for name, segs := range c.GzipSegments {
			segmented++
			plain, gz := readOut(t, out, strings.TrimSuffix(name, ".gz")), readOut(t, out, name)
			if !strings.HasPrefix(name, catviews.Dir(c.Name)+"all.jsonl") && !strings.HasPrefix(name, catviews.Dir(c.Name)+"metas/schema/") {
				t.Errorf("%s: segmented", name)
			}
			var raw, compressed int64
			for _, s := range segs {
				raw, compressed = raw+s[0], compressed+s[1]
			}
			if len(segs) < 2 || raw != int64(len(plain)) || compressed >= int64(len(gz)) {
				t.Errorf("%s: %d segments of %d bytes (%d compressed) for %d bytes (%d compressed)", name, len(segs), raw, compressed, len(plain), len(gz))
			}
			zr, err := gzip.NewReader(bytes.NewReader(gz))
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			zr.Multistream(false)
			got, err := io.ReadAll(zr)
			if err != nil || !bytes.Equal(got, plain) || zr.Header.Comment != precompress.SegmentedIdentity {
				t.Errorf("%s: Go's gzip reads %d bytes (%v), comment %q; want its file's %d", name, len(got), err, zr.Header.Comment, len(plain))
			}
			if gzipPath, err := exec.LookPath("gzip"); err == nil {
				cmd := exec.Command(gzipPath, "-dc", filepath.Join(out, filepath.FromSlash(name)))
				got, err := cmd.Output()
				if err != nil || !bytes.Equal(got, plain) {
					t.Errorf("%s: gzip -dc gives %d bytes (%v), want its file's %d", name, len(got), err, len(plain))
				}
			}
		}
	}
	if segmented == 0 {
		t.Error("no segmented copy")
	}
	ps, err := schema.Validate(schema.Index, readOut(t, out, manifest.FileName))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range ps {
		t.Errorf("index.json: %s", p)
	}
}

package generator_test

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/upgraph/upgraph/generator"
	"github.com/upgraph/upgraph/internal/precompress"
	"github.com/upgraph/upgraph/release/graphdata"
	gensource "github.com/upgraph/upgraph/release/source"
	"github.com/upgraph/upgraph/tree/writer"
)

// TestRenderLargeGraphCopies: a channel graph of precompress.LargeGraph
// bytes and more gets klauspost/compress's copy (its comment names it),
// the same bytes into a new directory, over itself (carried over: the
// same inode) and incrementally; smaller graphs and every per-version
// graph keep compress/gzip's.
func TestRenderLargeGraphCopies(t *testing.T) {
	e := newEdits(t, 64)
	for patch := 3; patch < 240; patch++ {
		v := fmt.Sprintf("4.16.%d", patch)
		e.addRelease(v, "amd64")
		e.channels["candidate-4.16"] = append(e.channels["candidate-4.16"], v)
	}
	rel, gd, _ := e.inputs()
	b, err := generator.Build(t.Context(), &gensource.MetadataDir{Dir: "rel", FS: rel}, gd,
		generator.BuildOptions{GraphData: graphdata.DefaultOptions()})
	if err != nil {
		t.Fatal(err)
	}
	base := fastTempDir(t)
	render := func(dir string, full bool) {
		t.Helper()
		if _, err := generator.Render(t.Context(), b, generator.RenderOptions{
			Store: writer.DirStore{Dir: dir}, GeneratedAt: time.Unix(0, 0), NoViewer: true, Precompress: true, Full: full,
		}); err != nil {
			t.Fatal(err)
		}
	}
	out := filepath.Join(base, "tree")
	render(out, true)
	files := readTree(t, out)
	large, small := 0, 0
	for name, plain := range files {
		if !strings.HasPrefix(name, "graph/") || strings.HasSuffix(name, ".gz") {
			continue
		}
		gz := files[name+".gz"]
		zr, err := gzip.NewReader(bytes.NewReader(gz))
		if err != nil {
			t.Fatalf("%s.gz: %v", name, err)
		}
		got, err := io.ReadAll(zr)
		if err != nil || !bytes.Equal(got, plain) {
			t.Errorf("%s.gz: does not decompress to %s (%v)", name, name, err)
		}
		want := "upgraph compress/gzip go"
		if len(plain) >= precompress.LargeGraph && strings.Count(name, "/") == 2 {
			want = "upgraph klauspost/compress/gzip " + precompress.KlauspostVersion + " level 6"
			large++
		} else {
			small++
		}
		if !strings.HasPrefix(zr.Header.Comment, want) || !bytes.Equal(gz, precompress.GzipFile(name, plain)) {
			t.Errorf("%s.gz of %d bytes: comment %q, want %q, or not the deterministic copy", name, len(plain), zr.Header.Comment, want)
		}
	}
	t.Logf("%d large and %d small graphs", large, small)
	if large == 0 || small == 0 {
		t.Fatalf("%d large and %d small graphs: the test covers neither case", large, small)
	}

	const channel = "graph/amd64/candidate-4.16.json.gz"
	before, err := os.Stat(filepath.Join(out, channel))
	if err != nil {
		t.Fatal(err)
	}
	render(out, true)
	if after, err := os.Stat(filepath.Join(out, channel)); err != nil || !os.SameFile(before, after) {
		t.Errorf("%s: not carried over (%v)", channel, err)
	}
	render(out, false)
	fresh := filepath.Join(base, "fresh")
	render(fresh, true)
	a, c := readTree(t, out), readTree(t, fresh)
	if len(a) != len(c) {
		t.Fatalf("%d and %d files", len(a), len(c))
	}
	for name, data := range a {
		if !bytes.Equal(data, c[name]) {
			t.Errorf("%s differs between runs over the tree and a new directory", name)
		}
	}
}

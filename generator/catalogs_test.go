package generator_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	upgraph "github.com/upgraph/upgraph"
	catviews "github.com/upgraph/upgraph/catalog/views"
	"github.com/upgraph/upgraph/catalog/views/viewstest"
	"github.com/upgraph/upgraph/generator"
	"github.com/upgraph/upgraph/release/graphdata"
	gensource "github.com/upgraph/upgraph/release/source"
	"github.com/upgraph/upgraph/schema"
	"github.com/upgraph/upgraph/tree/manifest"
	"github.com/upgraph/upgraph/tree/writer"
)

// sharedCatalog is the real FBC root of the shared catalog.
const sharedCatalog = "../../shared/catalogs/community-operators-prod-v4.21/configs"

func sharedCatalogView(t testing.TB, name string) *catviews.Catalog {
	t.Helper()
	if _, err := os.Stat(sharedCatalog); err != nil {
		t.Skipf("shared catalog not available: %v", err)
	}
	return viewstest.Load(t, name, "dir:"+sharedCatalog, false)
}

func demoBuilt(t testing.TB) *generator.Built {
	t.Helper()
	built, err := generator.Build(context.Background(), &gensource.MetadataDir{Dir: "demo", FS: upgraph.DemoReleases()},
		upgraph.DemoGraphData(), generator.BuildOptions{GraphData: graphdata.DefaultOptions()})
	if err != nil {
		t.Fatal(err)
	}
	return built
}

// readTree maps every file below dir to its content.
func readTree(t testing.TB, dir string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		out[filepath.ToSlash(rel)] = data
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// catalogKind is the schema of a catalog file, "" for others.
func catalogKind(rel string) schema.Kind {
	parts := strings.Split(rel, "/")
	if len(parts) < 3 || parts[0] != "operators" {
		return ""
	}
	switch {
	case len(parts) == 3 && parts[2] == catviews.SummaryFile:
		return schema.OperatorCatalog
	case parts[2] == "next":
		return schema.OperatorNext
	case parts[2] == "graph" && len(parts) == 4:
		return schema.OperatorPackageGraph
	case parts[2] == "graph":
		return schema.OperatorChannelGraph
	}
	return ""
}

// checkTree checks that index.json lists exactly the files of the tree
// with their digests and is valid, and that every catalog file is valid
// against its schema.
func checkTree(t *testing.T, dir string) (*manifest.Manifest, map[string][]byte) {
	t.Helper()
	files := readTree(t, dir)
	m, err := manifest.Parse(files[manifest.FileName])
	if err != nil {
		t.Fatal(err)
	}
	if ps, err := schema.Validate(schema.Index, files[manifest.FileName]); err != nil || len(ps) > 0 {
		t.Errorf("index.json: %v %v", err, ps)
	}
	if len(m.Files)+1 != len(files) || m.Counts.Files != len(files) {
		t.Errorf("index.json lists %d files (counts %d), the tree has %d besides it", len(m.Files), m.Counts.Files, len(files)-1)
	}
	var size int64
	for name, f := range m.Files {
		data, ok := files[name]
		sum := sha256.Sum256(data)
		if !ok || hex.EncodeToString(sum[:]) != f.SHA256 || int64(len(data)) != f.Size {
			t.Errorf("%s: not in the tree as index.json lists it", name)
		}
		size += f.Size
		if k := catalogKind(name); k != "" {
			if ps, err := schema.Validate(k, data); err != nil || len(ps) > 0 {
				t.Errorf("%s (%s): %v %v", name, k, err, ps)
			}
		}
	}
	if size != m.Counts.Bytes {
		t.Errorf("counts.bytes %d, files %d", m.Counts.Bytes, size)
	}
	return m, files
}

func render(t *testing.T, b *generator.Built, dir string, cats ...*catviews.Catalog) *manifest.Manifest {
	t.Helper()
	m, err := generator.Render(context.Background(), b, generator.RenderOptions{
		Store: writer.DirStore{Dir: dir}, GeneratedAt: time.Unix(1700000000, 0), Catalogs: cats,
		Check: func(m *manifest.Manifest) error { return manifest.CheckNotEmpty(m) }})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestRenderCatalogs: a catalog alone, releases alone and both, into trees
// that index.json describes exactly; the release files are the same with
// or without catalogs, and a tree without catalogs has none of their
// schemas or index.json members.
func TestRenderCatalogs(t *testing.T) {
	base := t.TempDir()
	cat := sharedCatalogView(t, "community")
	built := demoBuilt(t)

	alone := filepath.Join(base, "alone")
	m := render(t, nil, alone, cat)
	_, aloneFiles := checkTree(t, alone)
	if len(m.Catalogs) != 1 || len(m.Graphs) != 0 || m.Inputs.Releases.Kind != "" {
		t.Fatalf("catalogs %+v, graphs %d, releases %+v", m.Catalogs, len(m.Graphs), m.Inputs.Releases)
	}
	c := m.Catalogs[0]
	if c.Name != "community" || c.Path != "operators/community/catalog.json" || c.Kind != "dir" || c.Source != "dir:"+sharedCatalog ||
		c.Counts.Packages != 33 || c.Counts.Channels != 78 || c.Counts.Bundles != 745 || len(c.Packages) != 33 || c.ContentDigest != cat.ContentDigest() {
		t.Errorf("catalog entry %+v", c)
	}
	n := 0
	for name := range m.Files {
		if strings.HasPrefix(name, "operators/community/") {
			n++
		}
	}
	if n != c.Counts.Files || n < 985 {
		t.Errorf("%d catalog files, counted %d", n, c.Counts.Files)
	}
	for _, name := range []string{"schema/operator-catalog.schema.json", "schema/operator-next.schema.json", "index.html"} {
		if _, ok := aloneFiles[name]; !ok {
			t.Errorf("%s missing", name)
		}
	}

	releases := filepath.Join(base, "releases")
	render(t, built, releases)
	_, relFiles := checkTree(t, releases)
	if bytes.Contains(relFiles[manifest.FileName], []byte(`"catalogs"`)) {
		t.Error("index.json of releases alone has a catalogs member")
	}
	for name := range relFiles {
		if strings.HasPrefix(name, "schema/operator-") || strings.HasPrefix(name, "operators/") {
			t.Errorf("tree of releases alone has %s", name)
		}
	}

	both := filepath.Join(base, "both")
	mb := render(t, built, both, cat)
	_, bothFiles := checkTree(t, both)
	for name, data := range relFiles {
		if name == manifest.FileName || name == "schema/index.schema.json" || strings.HasPrefix(name, "viewer/") {
			continue
		}
		if !bytes.Equal(bothFiles[name], data) {
			t.Errorf("%s differs with a catalog beside the releases", name)
		}
	}
	for name, data := range aloneFiles {
		if strings.HasPrefix(name, "operators/") && !bytes.Equal(bothFiles[name], data) {
			t.Errorf("%s differs with releases beside the catalog", name)
		}
	}
	if len(mb.Graphs) == 0 || len(mb.Catalogs) != 1 || mb.Counts.Releases == 0 {
		t.Errorf("both: %d graphs, %d catalogs", len(mb.Graphs), len(mb.Catalogs))
	}

	// Deterministic: again, into another directory and over the first.
	again := filepath.Join(base, "again")
	render(t, built, again, cat)
	render(t, built, both, sharedCatalogView(t, "community"))
	for _, dir := range []string{again, both} {
		if got := readTree(t, dir); !maps.EqualFunc(got, bothFiles, bytes.Equal) {
			t.Errorf("%s: a second generation differs", dir)
		}
	}
}

// TestRenderCatalogNames: two catalogs with one name are refused, as is a
// render of nothing.
func TestRenderCatalogNames(t *testing.T) {
	cat := sharedCatalogView(t, "community")
	dir := filepath.Join(t.TempDir(), "out")
	_, err := generator.Render(context.Background(), nil, generator.RenderOptions{Store: writer.DirStore{Dir: dir}, Catalogs: []*catviews.Catalog{cat, cat}})
	if err == nil || !strings.Contains(err.Error(), "given twice") {
		t.Errorf("duplicate names: %v", err)
	}
	if _, err := generator.Render(context.Background(), nil, generator.RenderOptions{Store: writer.DirStore{Dir: dir}}); err == nil {
		t.Error("nothing to render: no error")
	}
	if _, err := os.Stat(dir); err == nil {
		t.Error("a refused render wrote its output")
	}
}

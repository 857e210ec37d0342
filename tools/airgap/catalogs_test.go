package airgap

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	upgraph "github.com/upgraph/upgraph"
	"github.com/upgraph/upgraph/catalog/source"
	catviews "github.com/upgraph/upgraph/catalog/views"
	"github.com/upgraph/upgraph/catalog/views/viewstest"
	"github.com/upgraph/upgraph/generator"
	"github.com/upgraph/upgraph/release/graphdata"
	"github.com/upgraph/upgraph/release/mirror"
	gensource "github.com/upgraph/upgraph/release/source"
	"github.com/upgraph/upgraph/schema"
	"github.com/upgraph/upgraph/tree"
	"github.com/upgraph/upgraph/tree/writer"
)

// sharedCatalog is the real FBC root of the shared catalog.
const sharedCatalog = "../../../shared/catalogs/community-operators-prod-v4.21/configs"

// catalogTrees are two source trees generated once per test binary: the
// demo releases with the shared catalog as "community", and the catalog
// alone.
var catalogTrees = sync.OnceValues(func() ([2]string, error) {
	var out [2]string
	dir, err := os.MkdirTemp("", "upgraph-airgap-catalog-")
	if err != nil {
		return out, err
	}
	src, err := source.Parse("dir:"+sharedCatalog, source.Options{})
	if err != nil {
		return out, err
	}
	cfg, info, err := src.Load(context.Background())
	if err != nil {
		return out, err
	}
	cat, err := catviews.New("community", src.String(), info, cfg, false)
	if err != nil {
		return out, err
	}
	b, err := generator.Build(context.Background(), &gensource.MetadataDir{Dir: "demo", FS: upgraph.DemoReleases()},
		upgraph.DemoGraphData(), generator.BuildOptions{GraphData: graphdata.DefaultOptions()})
	if err != nil {
		return out, err
	}
	for i, built := range []*generator.Built{b, nil} {
		out[i] = filepath.Join(dir, []string{"both", "alone"}[i])
		_, err := generator.Render(context.Background(), built, generator.RenderOptions{
			Store: writer.DirStore{Dir: out[i]}, GeneratedAt: generatedAt, Catalogs: []*catviews.Catalog{cat}, NoViewer: true})
		if err != nil {
			return out, err
		}
	}
	return out, nil
})

func sharedTrees(t *testing.T) (both, alone string) {
	t.Helper()
	if _, err := os.Stat(sharedCatalog); err != nil {
		t.Skipf("shared catalog not available: %v", err)
	}
	trees, err := catalogTrees()
	if err != nil {
		t.Fatal(err)
	}
	return trees[0], trees[1]
}

// bundleBlob is what the tests read of an olm.bundle blob.
type bundleBlob struct {
	Schema        string `json:"schema"`
	Package       string `json:"package"`
	Name          string `json:"name"`
	Image         string `json:"image"`
	RelatedImages []struct {
		Image string `json:"image"`
	} `json:"relatedImages"`
}

// blobs reads a catalog's all.jsonl: every blob's schema, package and
// name, and the images of its bundles.
func blobs(t *testing.T, treeDir, catalog string) (lines []string, bundles []bundleBlob) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(treeDir, "operators", catalog, "all.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		var b bundleBlob
		if err := json.Unmarshal(sc.Bytes(), &b); err != nil {
			t.Fatal(err)
		}
		lines = append(lines, b.Schema+" "+b.Package+" "+b.Name)
		if b.Schema == "olm.bundle" {
			bundles = append(bundles, b)
		}
	}
	return lines, bundles
}

// registryRules mirrors every registry host the catalog's images and the
// demo's payloads name under registry.local:5000.
func registryRules(t *testing.T, bundles []bundleBlob) []mirror.PayloadMirror {
	hosts := map[string]bool{"quay.io": true}
	for _, b := range bundles {
		for _, img := range append([]string{b.Image}, relatedOf(b)...) {
			if img != "" {
				hosts[strings.SplitN(img, "/", 2)[0]] = true
			}
		}
	}
	var out []mirror.PayloadMirror
	for _, h := range sortedKeys(hosts) {
		out = append(out, mirror.PayloadMirror{Source: h, Mirror: "registry.local:5000/" + strings.ReplaceAll(h, ":", "-")})
	}
	return out
}

func relatedOf(b bundleBlob) []string {
	var out []string
	for _, r := range b.RelatedImages {
		out = append(out, r.Image)
	}
	return out
}

func catalogSummary(t *testing.T, treeDir string) *catviews.Summary {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(treeDir, "operators", "community", "catalog.json"))
	if err != nil {
		t.Fatal(err)
	}
	var s catviews.Summary
	if err := json.Unmarshal(data, &s); err != nil {
		t.Fatal(err)
	}
	return &s
}

// TestMirrorCatalogs mirrors a tree with releases and the shared catalog:
// every bundle and related image rewritten, counts kept, the source
// recorded as mirrored, deterministic, and the output verifies.
func TestMirrorCatalogs(t *testing.T) {
	both, _ := sharedTrees(t)
	work := t.TempDir()
	srcLines, srcBundles := blobs(t, both, "community")
	rules := registryRules(t, srcBundles)

	out := filepath.Join(work, "tree")
	res, err := Mirror(t.Context(), Options{From: both, Out: out, Payloads: rules})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := tree.Verify(t.Context(), out, tree.Options{}); err != nil {
		t.Fatalf("verify: %v", err)
	}
	gotLines, gotBundles := blobs(t, out, "community")
	if !slices.Equal(srcLines, gotLines) {
		t.Errorf("the mirror's blobs differ from the source's (%d vs %d)", len(gotLines), len(srcLines))
	}
	images := 0
	for i, b := range gotBundles {
		want := srcBundles[i]
		if b.Image != "" || want.Image != "" {
			images++
			if !strings.HasPrefix(b.Image, "registry.local:5000/") || !strings.HasSuffix(want.Image, strings.SplitN(b.Image, "/", 3)[2]) {
				t.Errorf("bundle %s: image %q (source %q)", b.Name, b.Image, want.Image)
			}
		}
		if len(b.RelatedImages) != len(want.RelatedImages) {
			t.Errorf("bundle %s: %d related images, source %d", b.Name, len(b.RelatedImages), len(want.RelatedImages))
			continue
		}
		for j, r := range b.RelatedImages {
			images++
			if !strings.HasPrefix(r.Image, "registry.local:5000/") {
				t.Errorf("bundle %s: related image %q not rewritten", b.Name, r.Image)
			}
			if d := mirror.PayloadDigest(want.RelatedImages[j].Image); d != "" && mirror.PayloadDigest(r.Image) != d {
				t.Errorf("bundle %s: related image %q lost its digest (source %q)", b.Name, r.Image, want.RelatedImages[j].Image)
			}
		}
	}
	if len(res.Catalogs) != 1 || res.Catalogs[0].Images != images || len(res.Catalogs[0].Unmatched) != 0 {
		t.Errorf("result %+v, want %d images rewritten, none unmatched", res.Catalogs, images)
	}
	if res.Rewrite.Rewritten == 0 {
		t.Error("no release payload rewritten")
	}
	for file, kind := range map[string]schema.Kind{"index.json": schema.Index, "operators/community/catalog.json": schema.OperatorCatalog} {
		data, err := os.ReadFile(filepath.Join(out, file))
		if err != nil {
			t.Fatal(err)
		}
		if ps, err := schema.Validate(kind, data); err != nil || len(ps) > 0 {
			t.Errorf("%s: %v %v", file, err, ps)
		}
	}
	srcSum, gotSum := catalogSummary(t, both), catalogSummary(t, out)
	if srcSum.Counts != gotSum.Counts {
		t.Errorf("counts %+v, source %+v", gotSum.Counts, srcSum.Counts)
	}
	if gotSum.Source.Kind != srcSum.Source.Kind || gotSum.Source.Reference != MirrorPrefix+srcSum.Source.Reference {
		t.Errorf("catalog.json source %+v, want the source's %+v marked %q", gotSum.Source, srcSum.Source, MirrorPrefix)
	}
	srcM, gotM := manifestOf(t, both), manifestOf(t, out)
	if len(gotM.Catalogs) != 1 || gotM.Catalogs[0].Source != MirrorPrefix+srcM.Catalogs[0].Source ||
		gotM.Catalogs[0].Kind != srcM.Catalogs[0].Kind || gotM.Catalogs[0].Counts != srcM.Catalogs[0].Counts ||
		!slices.Equal(gotM.Catalogs[0].Packages, srcM.Catalogs[0].Packages) {
		t.Errorf("index.json catalogs %+v, source %+v", gotM.Catalogs, srcM.Catalogs)
	}
	if len(gotM.Graphs) != len(srcM.Graphs) {
		t.Errorf("%d release graphs, source %d", len(gotM.Graphs), len(srcM.Graphs))
	}

	// Deterministic: twice, and the mirror of the mirror (already
	// rewritten, already marked) are the same bundle.
	bundleOf := func(name, from string) []byte {
		t.Helper()
		file := filepath.Join(work, name)
		if _, err := Mirror(t.Context(), Options{From: from, Bundle: file, Payloads: rules}); err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		return data
	}
	a, b, c := bundleOf("a.tar.gz", both), bundleOf("b.tar.gz", both), bundleOf("c.tar.gz", out)
	if !bytes.Equal(a, b) || !bytes.Equal(a, c) {
		t.Errorf("mirrors differ: %d, %d and %d (of the mirror) bytes", len(a), len(b), len(c))
	}
}

// TestMirrorCatalogUnchanged: without a payload mirror, every catalog
// file but catalog.json is the source's, byte for byte.
func TestMirrorCatalogUnchanged(t *testing.T) {
	_, alone := sharedTrees(t)
	out := filepath.Join(t.TempDir(), "tree")
	if _, err := Mirror(t.Context(), Options{From: alone, Out: out}); err != nil {
		t.Fatal(err)
	}
	src, got := manifestOf(t, alone), manifestOf(t, out)
	if len(got.Graphs) != 0 || len(got.Catalogs) != 1 {
		t.Fatalf("%d graphs, %d catalogs", len(got.Graphs), len(got.Catalogs))
	}
	for name, f := range src.Files {
		if name == "index.json" || name == src.Catalogs[0].Path {
			continue
		}
		if got.Files[name] != f {
			t.Errorf("%s: %+v, source %+v", name, got.Files[name], f)
		}
	}
	if len(got.Files) != len(src.Files) {
		t.Errorf("%d files, source %d", len(got.Files), len(src.Files))
	}
}

// TestMirrorCatalogPackages keeps two packages of the shared catalog.
func TestMirrorCatalogPackages(t *testing.T) {
	both, _ := sharedTrees(t)
	pkgs := []string{"slurm-operator", "kube-green"}
	out := filepath.Join(t.TempDir(), "tree")
	if _, err := Mirror(t.Context(), Options{From: both, Out: out, Catalogs: []string{"community"}, Packages: pkgs}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := tree.Verify(t.Context(), out, tree.Options{}); err != nil {
		t.Fatalf("verify: %v", err)
	}
	srcLines, _ := blobs(t, both, "community")
	var want []string
	for _, l := range srcLines {
		f := strings.Fields(l + " ")
		pkg := ""
		if len(f) > 1 {
			pkg = f[1]
		}
		if f[0] == "olm.package" && len(f) > 1 {
			pkg = f[len(f)-1]
		}
		if slices.Contains(pkgs, pkg) {
			want = append(want, l)
		}
	}
	got, _ := blobs(t, out, "community")
	if !slices.Equal(got, want) || len(got) == 0 {
		t.Errorf("blobs:\n%v\nwant:\n%v", got, want)
	}
	m := manifestOf(t, out)
	if len(m.Catalogs) != 1 || !slices.Equal(m.Catalogs[0].Packages, []string{"kube-green", "slurm-operator"}) {
		t.Errorf("catalogs %+v", m.Catalogs)
	}
	srcSum, sum := catalogSummary(t, both), catalogSummary(t, out)
	bundles := 0
	for _, p := range srcSum.Packages {
		if slices.Contains(pkgs, p.Name) {
			bundles += p.Bundles
		}
	}
	if sum.Counts.Packages != 2 || sum.Counts.Bundles != bundles {
		t.Errorf("counts %+v, want 2 packages, %d bundles", sum.Counts, bundles)
	}

	for _, bad := range []Options{
		{Catalogs: []string{"missing"}},
		{Packages: []string{"no-such-package"}},
		{Catalogs: []string{"Bad_Name"}},
	} {
		bad.From, bad.Out = both, filepath.Join(t.TempDir(), "x")
		if _, err := Mirror(t.Context(), bad); err == nil {
			t.Errorf("%+v: no error", bad)
		} else if _, statErr := os.Stat(bad.Out); statErr == nil {
			t.Errorf("%+v: wrote %s", bad, bad.Out)
		}
	}
	// A releases-only tree has no catalog to select.
	if _, err := Mirror(t.Context(), Options{From: demoTree(t), Out: filepath.Join(t.TempDir(), "y"), Packages: pkgs}); err == nil {
		t.Error("--package on a tree without catalogs: no error")
	}
}

// TestCatalogPackageShare: what a client fetches for one package's blobs
// (metas/package/P.jsonl, catalogd's ?package=P) is a small share of the
// whole catalog (all.jsonl): the median over the shared catalog's
// packages is at most 1 %, in the generated tree and in its mirror
// (docs/operators.md gives the figures).
func TestCatalogPackageShare(t *testing.T) {
	_, alone := sharedTrees(t)
	out := filepath.Join(t.TempDir(), "tree")
	if _, err := Mirror(t.Context(), Options{From: alone, Out: out, Payloads: []mirror.PayloadMirror{{Source: "quay.io", Mirror: "registry.local:5000/quay"}}}); err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{alone, out} {
		cat := filepath.Join(dir, "operators", "community")
		all, err := os.Stat(filepath.Join(cat, "all.jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		files, err := filepath.Glob(filepath.Join(cat, "metas", "package", "*.jsonl"))
		if err != nil || len(files) != 33 {
			t.Fatalf("%d package files (%v), want 33", len(files), err)
		}
		var sizes []int64
		for _, f := range files {
			fi, err := os.Stat(f)
			if err != nil {
				t.Fatal(err)
			}
			sizes = append(sizes, fi.Size())
		}
		slices.Sort(sizes)
		median := sizes[len(sizes)/2]
		share := float64(median) / float64(all.Size())
		t.Logf("%s: all.jsonl %d bytes; package files median %d (%.2f %%), max %d (%.1f %%)", dir, all.Size(), median,
			100*share, sizes[len(sizes)-1], 100*float64(sizes[len(sizes)-1])/float64(all.Size()))
		if share > 0.01 {
			t.Errorf("%s: the median package file is %.2f %% of all.jsonl, want at most 1 %%", dir, 100*share)
		}
	}
}

// TestMirrorCatalogSkipped: the packages a source left out for their
// errors (generate --catalog-valid-only) stay listed in the mirror.
func TestMirrorCatalogSkipped(t *testing.T) {
	work := t.TempDir()
	fbc := `{"schema":"olm.package","name":"good","defaultChannel":"stable"}
{"schema":"olm.channel","package":"good","name":"stable","entries":[{"name":"good.v1.0.0"}]}
{"schema":"olm.bundle","package":"good","name":"good.v1.0.0","image":"quay.io/example/good-bundle@sha256:` + strings.Repeat("a", 64) + `","properties":[{"type":"olm.package","value":{"packageName":"good","version":"1.0.0"}}],"relatedImages":[{"name":"op","image":"quay.io/example/good@sha256:` + strings.Repeat("b", 64) + `"}]}
{"schema":"olm.package","name":"bad","defaultChannel":"missing"}
{"schema":"olm.channel","package":"bad","name":"stable","entries":[{"name":"bad.v1.0.0"}]}
{"schema":"olm.bundle","package":"bad","name":"bad.v1.0.0","image":"quay.io/example/bad-bundle:1","properties":[{"type":"olm.package","value":{"packageName":"bad","version":"1.0.0"}}]}
`
	file := filepath.Join(work, "catalog.json")
	if err := os.WriteFile(file, []byte(fbc), 0o644); err != nil {
		t.Fatal(err)
	}
	cat := viewstest.Load(t, "small", "file:"+file, true)
	if len(cat.Skipped) != 1 {
		t.Fatalf("skipped %+v, want bad", cat.Skipped)
	}
	in := filepath.Join(work, "in")
	if _, err := generator.Render(t.Context(), nil, generator.RenderOptions{Store: writer.DirStore{Dir: in}, GeneratedAt: generatedAt,
		Catalogs: []*catviews.Catalog{cat}, NoViewer: true}); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(work, "out")
	res, err := Mirror(t.Context(), Options{From: in, Out: out, Payloads: []mirror.PayloadMirror{{Source: "quay.io/example", Mirror: "registry.local:5000/ex"}}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Catalogs) != 1 || res.Catalogs[0].Images != 2 || res.Catalogs[0].Packages != 1 {
		t.Errorf("result %+v", res.Catalogs)
	}
	read := func(dir string) *catviews.Summary {
		data, err := os.ReadFile(filepath.Join(dir, "operators", "small", "catalog.json"))
		if err != nil {
			t.Fatal(err)
		}
		var s catviews.Summary
		if err := json.Unmarshal(data, &s); err != nil {
			t.Fatal(err)
		}
		return &s
	}
	a, b := read(in), read(out)
	ja, _ := json.Marshal(a.Skipped)
	jb, _ := json.Marshal(b.Skipped)
	if !bytes.Equal(ja, jb) || b.Counts.SkippedPackages != 1 {
		t.Errorf("skipped %s, source %s", jb, ja)
	}
	if m := manifestOf(t, out); len(m.Catalogs) != 1 || m.Catalogs[0].Counts.SkippedPackages != 1 || m.Catalogs[0].Source != MirrorPrefix+"file:"+file {
		t.Errorf("index.json catalogs %+v", m.Catalogs)
	}
	all, err := os.ReadFile(filepath.Join(out, "operators", "small", "all.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(all), `"image":"registry.local:5000/ex/good-bundle@sha256:`) ||
		!strings.Contains(string(all), `"image":"registry.local:5000/ex/good@sha256:`) || strings.Contains(string(all), "quay.io") {
		t.Errorf("all.jsonl:\n%s", all)
	}
}

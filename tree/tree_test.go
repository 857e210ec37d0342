package tree_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/upgraph/upgraph/internal/bundletest"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/remote"

	upgraph "github.com/upgraph/upgraph"
	"github.com/upgraph/upgraph/generator"
	rt "github.com/upgraph/upgraph/internal/registrytest"
	"github.com/upgraph/upgraph/internal/s3test"
	"github.com/upgraph/upgraph/release/graphdata"
	"github.com/upgraph/upgraph/release/source"
	"github.com/upgraph/upgraph/site/publish"
	"github.com/upgraph/upgraph/tree"
	"github.com/upgraph/upgraph/tree/bundle"
	"github.com/upgraph/upgraph/tree/manifest"
	"github.com/upgraph/upgraph/tree/ocitree"
	"github.com/upgraph/upgraph/tree/s3tree"
	"github.com/upgraph/upgraph/tree/writer"
)

// generatedAt is fixed so that every copy of the tree is the same bytes.
var generatedAt = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// demo4160amd64 is the demo's 4.16.0 amd64 payload digest, given two
// signatures in the test tree so that signature files (whose names hold
// a "=") are among the files read from every location.
const demo4160amd64 = "c5e6fcac0d4fa91794b846d0f3f87600dab240f6490f0865684206954fee6761"

// victim is the file the tamper tests change.
const victim = "graph/amd64/fast-4.16.json"

// refName is the annotation naming an image in an OCI layout (its tag).
const refName = "org.opencontainers.image.ref.name"

var demoOnce = sync.OnceValues(func() (string, error) {
	dir, err := os.MkdirTemp("", "upgraph-tree-test-")
	if err != nil {
		return "", err
	}
	out := filepath.Join(dir, "demo")
	b, err := generator.Build(context.Background(), &source.MetadataDir{Dir: "demo", FS: upgraph.DemoReleases()},
		upgraph.DemoGraphData(), generator.BuildOptions{GraphData: graphdata.DefaultOptions()})
	if err != nil {
		return "", err
	}
	b.Signatures = map[string][][]byte{"sha256:" + demo4160amd64: {[]byte("sig one\x00\xff"), []byte("sig two")}}
	_, err = generator.Render(context.Background(), b, generator.RenderOptions{Store: writer.DirStore{Dir: out}, GeneratedAt: generatedAt})
	return out, err
})

// demoTree is the demo tree, generated once per test binary; tests must
// not modify it.
func demoTree(t *testing.T) string {
	t.Helper()
	dir, err := demoOnce()
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestMain(m *testing.M) {
	code := m.Run()
	if dir, err := demoOnce(); err == nil {
		os.RemoveAll(filepath.Dir(dir))
	}
	os.Exit(code)
}

// place is one location kind holding the demo tree, and a copy of it with
// victim's bytes changed (its size kept) and index.json left as it was.
type place struct {
	name string
	kind tree.Kind
	// locs are the location strings of the good tree there; tampered is
	// the changed copy's.
	locs     []string
	tampered string
	// local: Open gives a tree.Local (the files are on this machine,
	// extracted if need be).
	local bool
	// eager: Open reads every file (a bundle or an image is verified
	// whole as it is extracted), so a changed file fails Open rather
	// than ReadFile.
	eager bool
}

// fixture is the demo tree put in every kind of location, on a real S3
// server and a real registry started for the test.
type fixture struct {
	dir    string
	index  []byte
	m      *manifest.Manifest
	places []place
	// opts reach the S3 server.
	opts tree.Options
	s3   *s3test.Server
	reg  *rt.Registry
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	ctx := t.Context()
	work := t.TempDir()
	f := &fixture{dir: demoTree(t), s3: s3test.Start(t), reg: rt.Start(t)}
	var err error
	if f.index, err = os.ReadFile(filepath.Join(f.dir, manifest.FileName)); err != nil {
		t.Fatal(err)
	}
	if f.m, err = manifest.Parse(f.index); err != nil {
		t.Fatal(err)
	}
	if _, ok := f.m.Files[victim]; !ok {
		t.Fatalf("the demo tree has no %s", victim)
	}
	f.opts = tree.Options{S3: s3tree.ClientOptions{
		Endpoint: f.s3.URL, PathStyle: true, Credentials: f.s3.Credentials(), MaxBackoff: 5 * time.Millisecond,
	}}

	// The changed copy, as files and as a bundle (without a checksum
	// file: the content check alone must catch it).
	badDir := filepath.Join(work, "tampered")
	bundletest.CopyTree(t, f.dir, badDir)
	good := readFile(t, f.dir, victim)
	bad := slices.Clone(good)
	bad[len(bad)/2] ^= 0x20
	if err := os.WriteFile(filepath.Join(badDir, victim), bad, 0o644); err != nil {
		t.Fatal(err)
	}
	goodBundle := filepath.Join(work, "tree.tar.gz")
	if _, err := bundle.Write(ctx, f.dir, goodBundle); err != nil {
		t.Fatal(err)
	}
	badBundle := filepath.Join(work, "tampered.tar.gz")
	bundletest.Tamper(t, goodBundle, badBundle, victim, func([]byte) []byte { return bad })

	// http: a static server, the tree under a path.
	serve := func(dir string) string {
		srv := httptest.NewServer(http.StripPrefix("/trees/demo", http.FileServer(http.Dir(dir))))
		t.Cleanup(srv.Close)
		return srv.URL + "/trees/demo"
	}
	web := serve(f.dir)

	// s3: published by upgraph publish; the changed file replaced behind
	// its back.
	bucket := f.s3.NewBucket(t)
	publishTo := func(prefix string) string {
		_, err := publish.Publish(ctx, publish.Options{Dir: f.dir, Client: f.s3.Client(), Bucket: bucket, Prefix: prefix})
		if err != nil {
			t.Fatal(err)
		}
		return "s3://" + bucket + "/" + prefix
	}
	s3Good, s3Bad := publishTo("upgraph/v1"), publishTo("tampered")
	f.s3.Put(t, bucket, "tampered/"+victim, bad)

	// oci: pushed by ocitree.Push; the changed copy is an image built the
	// same way around the changed bundle, with the original index.json
	// and its digest in the annotations.
	pushed, err := ocitree.Push(ctx, f.dir, "oci://"+f.reg.Host+"/upgraph/tree:v1", ocitree.Options{})
	if err != nil {
		t.Fatal(err)
	}
	badImg, err := ocitree.Image(badBundle, f.m, f.index)
	if err != nil {
		t.Fatal(err)
	}
	badRef, err := name.ParseReference(f.reg.Host + "/upgraph/tampered:v1")
	if err != nil {
		t.Fatal(err)
	}
	if err := remote.Write(badRef, badImg); err != nil {
		t.Fatal(err)
	}

	// oci-layout: the pushed image, and the changed one, each written
	// into a layout as mirroring tools do.
	img, err := remote.Image(pushed.Ref)
	if err != nil {
		t.Fatal(err)
	}
	layoutDir := writeLayout(t, filepath.Join(work, "layout"), map[string]v1.Image{"v1": img})
	badLayout := writeLayout(t, filepath.Join(work, "tampered-layout"), map[string]v1.Image{"v1": badImg})

	f.places = []place{
		{name: "directory", kind: tree.KindDir, locs: []string{f.dir}, tampered: badDir, local: true},
		{name: "bundle", kind: tree.KindBundle, locs: []string{goodBundle}, tampered: badBundle, local: true, eager: true},
		{name: "http", kind: tree.KindHTTP, locs: []string{web, web + "/"}, tampered: serve(badDir)},
		{name: "s3", kind: tree.KindS3, locs: []string{s3Good, s3Good + "/"}, tampered: s3Bad},
		{
			name: "oci", kind: tree.KindOCI, local: true, eager: true,
			locs:     []string{"oci://" + f.reg.Host + "/upgraph/tree:v1", "oci://" + pushed.Ref.String()},
			tampered: "oci://" + badRef.String(),
		},
		{
			name: "oci-layout", kind: tree.KindOCILayout, local: true, eager: true,
			locs: []string{
				tree.LayoutScheme + layoutDir + ":v1",
				tree.LayoutScheme + layoutDir + "@" + pushed.Digest.String(),
				tree.LayoutScheme + layoutDir,
			},
			tampered: tree.LayoutScheme + badLayout + ":v1",
		},
		{name: "oci-layout (bare directory)", kind: tree.KindOCILayout, locs: []string{layoutDir}, tampered: badLayout, local: true, eager: true},
	}
	return f
}

// TestOpenEverywhere opens the same tree in every kind of location:
// index.json and every file it lists are the same bytes everywhere, and
// Close removes whatever Open extracted.
func TestOpenEverywhere(t *testing.T) {
	f := newFixture(t)
	names := slices.Sorted(maps.Keys(f.m.Files))
	want := map[string][]byte{}
	for _, n := range names {
		want[n] = readFile(t, f.dir, n)
	}
	if !slices.ContainsFunc(names, func(n string) bool { return strings.Contains(n, "=") }) {
		t.Fatal("no signature file in the demo tree: names with a '=' are not read anywhere")
	}
	for _, p := range f.places {
		for _, loc := range p.locs {
			t.Run(p.name+"/"+loc, func(t *testing.T) {
				l, err := tree.ParseLocation(loc)
				if err != nil {
					t.Fatal(err)
				}
				if l.Kind != p.kind {
					t.Errorf("kind %v, want %v", l.Kind, p.kind)
				}
				opts := f.opts
				opts.TempDir = t.TempDir()
				tr, err := tree.Open(t.Context(), loc, opts)
				if err != nil {
					t.Fatal(err)
				}
				closed := false
				defer func() {
					if !closed {
						tr.Close()
					}
				}()
				if tr.String() != loc {
					t.Errorf("String() = %q, want the location", tr.String())
				}
				if !bytes.Equal(tr.Index(), f.index) {
					t.Errorf("index.json differs (%d bytes, want %d)", len(tr.Index()), len(f.index))
				}
				if !reflect.DeepEqual(tr.Manifest(), f.m) {
					t.Error("Manifest() is not index.json parsed")
				}
				if _, local := tr.(tree.Local); local != p.local {
					t.Errorf("a tree.Local: %v, want %v", local, p.local)
				}
				for _, n := range names {
					got, err := tr.ReadFile(t.Context(), n)
					if err != nil {
						t.Errorf("ReadFile(%s): %v", n, err)
					} else if !bytes.Equal(got, want[n]) {
						t.Errorf("ReadFile(%s): %d bytes differ from the tree's %d", n, len(got), len(want[n]))
					}
				}
				// Only what index.json lists is read.
				for _, n := range []string{"graph/amd64/none.json", manifest.FileName, "../" + victim} {
					if _, err := tr.ReadFile(t.Context(), n); err == nil || !strings.Contains(err.Error(), n+" is not listed in index.json") {
						t.Errorf("ReadFile(%s): %v, want an error saying it is not listed", n, err)
					}
				}
				closed = true
				if err := tr.Close(); err != nil {
					t.Error(err)
				}
				if left, _ := os.ReadDir(opts.TempDir); len(left) > 0 {
					t.Errorf("Close left %v in the temporary directory", left)
				}
			})
		}
	}
}

// TestOpenTampered: in every kind of location, a copy of the tree with
// one file's bytes changed (index.json unchanged) fails naming the file:
// at Open where Open reads everything (bundles, images), else at
// ReadFile of that file, the other files still reading.
func TestOpenTampered(t *testing.T) {
	f := newFixture(t)
	other := manifest.GraphPath("arm64", "stable-4.16")
	for _, p := range f.places {
		t.Run(p.name, func(t *testing.T) {
			opts := f.opts
			opts.TempDir = t.TempDir()
			tr, err := tree.Open(t.Context(), p.tampered, opts)
			if p.eager {
				if err == nil {
					tr.Close()
					t.Fatal("Open accepted the changed tree")
				}
				wantProblem(t, err, victim, "does not match its sha256")
				if left, _ := os.ReadDir(opts.TempDir); len(left) > 0 {
					t.Errorf("the refused Open left %v behind", left)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer tr.Close()
			if _, err := tr.ReadFile(t.Context(), other); err != nil {
				t.Errorf("ReadFile(%s), unchanged: %v", other, err)
			}
			data, err := tr.ReadFile(t.Context(), victim)
			if err == nil || !strings.Contains(err.Error(), victim+" does not match its sha256 in index.json") {
				t.Errorf("ReadFile(%s): %v, want an error naming it", victim, err)
			}
			if data != nil {
				t.Errorf("ReadFile(%s) returned %d bytes with its error", victim, len(data))
			}
		})
	}
}

// TestVerifyLocations: tree.Verify passes the tree in every kind of
// location with index.json's counts, and gives a *bundle.Error naming
// the changed file for the changed copy.
func TestVerifyLocations(t *testing.T) {
	f := newFixture(t)
	for _, p := range f.places {
		t.Run(p.name, func(t *testing.T) {
			opts := f.opts
			opts.TempDir = t.TempDir()
			loc, sum, err := tree.Verify(t.Context(), p.locs[0], opts)
			if err != nil {
				t.Fatal(err)
			}
			if loc.Kind != p.kind || sum == nil || sum.Manifest == nil {
				t.Fatalf("kind %v, summary %+v", loc.Kind, sum)
			}
			if sum.Manifest.Counts != f.m.Counts || len(sum.Manifest.Files) != len(f.m.Files) {
				t.Errorf("counts %+v (%d files), want %+v", sum.Manifest.Counts, len(sum.Manifest.Files), f.m.Counts)
			}

			_, sum, err = tree.Verify(t.Context(), p.tampered, opts)
			if sum != nil {
				t.Errorf("a summary for the changed tree: %+v", sum)
			}
			be := wantProblem(t, err, victim, "does not match its sha256")
			if be != nil && (p.kind == tree.KindHTTP || p.kind == tree.KindS3) && be.Path != p.tampered {
				t.Errorf("error about %q, want the location %q", be.Path, p.tampered)
			}
			if left, _ := os.ReadDir(opts.TempDir); len(left) > 0 {
				t.Errorf("Verify left %v behind", left)
			}
		})
	}
}

// TestOpenRefused: what is not a tree is refused, saying why.
func TestOpenRefused(t *testing.T) {
	notFound := httptest.NewServer(http.NotFoundHandler())
	defer notFound.Close()
	forbidden := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "AccessDenied", http.StatusForbidden)
	}))
	defer forbidden.Close()
	notJSON := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "<html>")
	}))
	defer notJSON.Close()
	empty := t.TempDir()
	notBundle := filepath.Join(t.TempDir(), "x.tar.gz")
	if err := os.WriteFile(notBundle, []byte("not gzip"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		loc     string
		noIndex bool
		want    string
	}{
		{loc: notFound.URL + "/tree", noIndex: true, want: notFound.URL + "/tree: no index.json there"},
		{loc: forbidden.URL, noIndex: true, want: "no index.json there"},
		{loc: notJSON.URL, want: notJSON.URL + ": index.json:"},
		{loc: notFound.URL + "/api/upgrades_info/v1/graph", want: "is a graph endpoint, not a tree"},
		{loc: empty, want: filepath.Join(empty, manifest.FileName)},
		{loc: notBundle, want: "x.tar.gz"},
	} {
		t.Run(tc.loc, func(t *testing.T) {
			tr, err := tree.Open(t.Context(), tc.loc, tree.Options{})
			if err == nil {
				tr.Close()
				t.Fatal("opened")
			}
			if !strings.Contains(err.Error(), tc.want) || errors.Is(err, tree.ErrNoIndex) != tc.noIndex {
				t.Errorf("%v (ErrNoIndex: %v), want an error containing %q (ErrNoIndex: %v)", err, errors.Is(err, tree.ErrNoIndex), tc.want, tc.noIndex)
			}
		})
	}
}

// TestOpenLayout: a bare OCI layout directory (or oci-layout:DIR) is read
// when it holds exactly one upgraph tree, whatever else it holds, and a
// tag or digest picks one among several. Layouts written as mirroring
// tools write them carry the tag alone on the index's descriptors, so a
// tree is told by its image manifest.
func TestOpenLayout(t *testing.T) {
	work := t.TempDir()
	v1Img, v1Index := treeImage(t, demoTree(t), filepath.Join(work, "v1.tar.gz"))
	noViewer := filepath.Join(work, "no-viewer")
	b, err := generator.Build(t.Context(), &source.MetadataDir{Dir: "demo", FS: upgraph.DemoReleases()},
		upgraph.DemoGraphData(), generator.BuildOptions{GraphData: graphdata.DefaultOptions()})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := generator.Render(t.Context(), b, generator.RenderOptions{Store: writer.DirStore{Dir: noViewer}, GeneratedAt: generatedAt, NoViewer: true}); err != nil {
		t.Fatal(err)
	}
	v2Img, v2Index := treeImage(t, noViewer, filepath.Join(work, "v2.tar.gz"))
	if bytes.Equal(v1Index, v2Index) {
		t.Fatal("the two trees are the same")
	}
	v2Digest, err := v2Img.Digest()
	if err != nil {
		t.Fatal(err)
	}
	other := empty.Image // not a tree
	treeAndOther := writeLayout(t, filepath.Join(work, "tree-and-other"), map[string]v1.Image{"v1": v1Img, "other": other})
	twoTrees := writeLayout(t, filepath.Join(work, "two-trees"), map[string]v1.Image{"v1": v1Img, "v2": v2Img})
	onlyOther := writeLayout(t, filepath.Join(work, "only-other"), map[string]v1.Image{"other": other})
	emptyLayout := writeLayout(t, filepath.Join(work, "empty"), nil)
	for _, tc := range []struct {
		loc   string
		index []byte // the tree read, or nil
		err   string
	}{
		{loc: treeAndOther, index: v1Index},
		{loc: tree.LayoutScheme + treeAndOther, index: v1Index},
		{loc: tree.LayoutScheme + treeAndOther + ":v1", index: v1Index},
		{loc: tree.LayoutScheme + treeAndOther + ":other", err: "not an upgraph tree"},
		{loc: tree.LayoutScheme + treeAndOther + ":v9", err: `the layout has no image "v9"`},
		{loc: twoTrees, err: "holds 2 images; name one"},
		{loc: tree.LayoutScheme + twoTrees + ":v2", index: v2Index},
		{loc: tree.LayoutScheme + twoTrees + "@" + v2Digest.String(), index: v2Index},
		{loc: onlyOther, err: "not an upgraph tree"},
		{loc: emptyLayout, err: "the layout holds no upgraph tree"},
	} {
		t.Run(tc.loc, func(t *testing.T) {
			tr, err := tree.Open(t.Context(), tc.loc, tree.Options{TempDir: t.TempDir()})
			if tc.err != "" {
				if err == nil {
					tr.Close()
				}
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Errorf("error %v, want one containing %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer tr.Close()
			if !bytes.Equal(tr.Index(), tc.index) {
				t.Error("another tree was read")
			}
		})
	}
}

// treeImage is the image ocitree.Push makes of the tree in dir, its
// bundle written to file, and the tree's index.json.
func treeImage(t *testing.T, dir, file string) (v1.Image, []byte) {
	t.Helper()
	if _, err := bundle.Write(t.Context(), dir, file); err != nil {
		t.Fatal(err)
	}
	index := readFile(t, dir, manifest.FileName)
	m, err := manifest.Parse(index)
	if err != nil {
		t.Fatal(err)
	}
	img, err := ocitree.Image(file, m, index)
	if err != nil {
		t.Fatal(err)
	}
	return img, index
}

// TestParseLocation checks each syntax, that errors name the value, and
// that a URL with a query is refused for a tree but kept for a graph
// endpoint.
func TestParseLocation(t *testing.T) {
	work := t.TempDir()
	dir := filepath.Join(work, "tree")
	file := filepath.Join(work, "tree.tar.gz")
	// A layout in a directory whose name holds a colon: the tag is what
	// follows the last colon after the last slash.
	lay := filepath.Join(work, "a:b", "layout")
	for _, d := range []string{dir, lay} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := layout.Write(lay, empty.Index); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	digest := "sha256:" + strings.Repeat("ab", 32)
	tests := []struct {
		in   string
		want tree.Location // Raw is in; URL is checked as a string
		url  string
		err  string // part of the error; the error must also name the value
	}{
		{in: dir, want: tree.Location{Kind: tree.KindDir, Path: dir}},
		{in: file, want: tree.Location{Kind: tree.KindBundle, Path: file}},
		{in: lay, want: tree.Location{Kind: tree.KindOCILayout, Path: lay}},
		{in: "oci-layout:" + lay, want: tree.Location{Kind: tree.KindOCILayout, Path: lay}},
		{in: "oci-layout:" + lay + ":v1", want: tree.Location{Kind: tree.KindOCILayout, Path: lay, Ref: "v1"}},
		{in: "oci-layout:" + lay + "@" + digest, want: tree.Location{Kind: tree.KindOCILayout, Path: lay, Ref: "@" + digest}},
		{in: "http://example.com", want: tree.Location{Kind: tree.KindHTTP}, url: "http://example.com"},
		{in: "https://example.com/trees/v1/", want: tree.Location{Kind: tree.KindHTTP}, url: "https://example.com/trees/v1/"},
		{in: "https://example.com/graphs", want: tree.Location{Kind: tree.KindHTTP}, url: "https://example.com/graphs"},
		{in: "https://api.openshift.com/api/upgrades_info/graph", want: tree.Location{Kind: tree.KindEndpoint}, url: "https://api.openshift.com/api/upgrades_info/graph"},
		{in: "http://localhost:8080/graph/", want: tree.Location{Kind: tree.KindEndpoint}, url: "http://localhost:8080/graph/"},
		{in: "https://example.com/graph?channel=stable-4.16", want: tree.Location{Kind: tree.KindEndpoint}, url: "https://example.com/graph?channel=stable-4.16"},
		{in: "s3://bucket", want: tree.Location{Kind: tree.KindS3, Bucket: "bucket"}},
		{in: "s3://bucket/upgraph/v1/", want: tree.Location{Kind: tree.KindS3, Bucket: "bucket", Prefix: "upgraph/v1"}},
		{in: "oci://registry.local:5000/upgraph/tree:v1", want: tree.Location{Kind: tree.KindOCI, Ref: "oci://registry.local:5000/upgraph/tree:v1"}},
		{in: "oci://registry.local/upgraph/tree@" + digest, want: tree.Location{Kind: tree.KindOCI, Ref: "oci://registry.local/upgraph/tree@" + digest}},

		{in: "", err: "empty location"},
		{in: filepath.Join(work, "missing"), err: "no such file"},
		{in: os.DevNull, err: "neither a directory nor a file"},
		{in: "oci-layout:", err: "want oci-layout:DIR"},
		{in: "oci-layout:" + dir + ":v1", err: "not an OCI image layout"},
		{in: "oci-layout:" + filepath.Join(work, "missing"), err: "not an OCI image layout"},
		{in: "https://example.com/tree?x=1", err: "no query or fragment"},
		{in: "https://example.com/tree#top", err: "no query or fragment"},
		{in: "http:///tree", err: "want http(s)://HOST/PATH"},
		{in: "s3:///prefix", err: "want s3://BUCKET"},
		{in: "s3://bucket/p?versionId=1", err: "want s3://BUCKET"},
		{in: "oci://registry.local/upgraph/tree", err: "want oci://REGISTRY/REPOSITORY:TAG"},
		{in: "oci://registry.local/Upgraph/tree:v1", err: "want oci://REGISTRY/REPOSITORY:TAG"},
		{in: "ftp://example.com/tree", err: "unknown scheme ftp://"},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			l, err := tree.ParseLocation(tc.in)
			if tc.err != "" {
				// The missing layout is named by its oci-layout file.
				if err == nil || !strings.Contains(err.Error(), tc.err) || !strings.Contains(err.Error(), strings.TrimPrefix(strings.TrimSuffix(tc.in, ":v1"), tree.LayoutScheme)) {
					t.Errorf("error %v, want one containing %q and naming %q", err, tc.err, tc.in)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got := l
			got.URL = nil
			want := tc.want
			want.Raw = tc.in
			if !reflect.DeepEqual(got, want) {
				t.Errorf("got %+v, want %+v", got, want)
			}
			if u := l.URL; (u == nil) != (tc.url == "") || (u != nil && u.String() != tc.url) {
				t.Errorf("URL %v, want %q", u, tc.url)
			}
			if l.Kind.String() == "" {
				t.Errorf("kind %d has no name", l.Kind)
			}
		})
	}
}

// wantProblem checks that err is a *bundle.Error whose only problem is
// file, with a reason containing reason, and that its message names file.
func wantProblem(t *testing.T, err error, file, reason string) *bundle.Error {
	t.Helper()
	var be *bundle.Error
	if !errors.As(err, &be) {
		t.Errorf("error %v (%T), want a *bundle.Error naming %s", err, err, file)
		return nil
	}
	if len(be.Problems) != 1 || be.Problems[0].File != file || !strings.Contains(be.Problems[0].Reason, reason) {
		t.Errorf("problems %+v, want only %s: ...%s...", be.Problems, file, reason)
	}
	if !strings.Contains(err.Error(), file) {
		t.Errorf("error %q does not name %s", err, file)
	}
	return be
}

func readFile(t *testing.T, dir, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(name)))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// writeLayout writes images into a new OCI image layout at dir, each
// listed under its tag, and returns dir.
func writeLayout(t *testing.T, dir string, tagged map[string]v1.Image) string {
	t.Helper()
	p, err := layout.Write(dir, empty.Index)
	if err != nil {
		t.Fatal(err)
	}
	for tag, img := range tagged {
		if err := p.AppendImage(img, layout.WithAnnotations(map[string]string{refName: tag})); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

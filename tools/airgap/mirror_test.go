package airgap

import (
	"archive/tar"
	"bytes"
	"errors"
	"io/fs"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/upgraph/upgraph/internal/bundletest"

	"github.com/upgraph/upgraph/generator"
	"github.com/upgraph/upgraph/release/graphdata"
	"github.com/upgraph/upgraph/release/mirror"
	"github.com/upgraph/upgraph/site"
	"github.com/upgraph/upgraph/tree/bundle"
	"github.com/upgraph/upgraph/tree/manifest"
	"github.com/upgraph/upgraph/tree/writer"
)

// TestMirrorDeterministic mirrors the same source in several ways that
// must not change a byte of the bundle: twice, with other worker counts,
// from a static web server, and from a mirror without payload rewrite.
func TestMirrorDeterministic(t *testing.T) {
	work := t.TempDir()
	src := demoTree(t)
	bundle := func(name string, opts Options) []byte {
		t.Helper()
		opts.Bundle = filepath.Join(work, name)
		if _, err := Mirror(t.Context(), opts); err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(opts.Bundle)
		if err != nil {
			t.Fatal(err)
		}
		return data
	}
	first := bundle("a.tar.gz", Options{From: src, Payloads: rewrite})
	static := httptest.NewServer(http.FileServer(http.Dir(src)))
	defer static.Close()
	for name, opts := range map[string]Options{
		"again.tar.gz":   {From: src, Payloads: rewrite},
		"workers.tar.gz": {From: src, Payloads: rewrite, Workers: 1},
		"http.tar.gz":    {From: static.URL + "/", Payloads: rewrite},
		// Payloads already point at the mirror: nothing left to rewrite.
		"remirror.tar.gz": {From: filepath.Join(work, "a.tar.gz")},
	} {
		if got := bundle(name, opts); !bytes.Equal(got, first) {
			t.Errorf("%s differs from a.tar.gz (%d vs %d bytes)", name, len(got), len(first))
		}
	}

	// Without a rewrite the mirror serves the source's files, to the byte.
	out := filepath.Join(work, "tree")
	if _, err := Mirror(t.Context(), Options{From: src, Out: out}); err != nil {
		t.Fatal(err)
	}
	want, got := manifestOf(t, src), manifestOf(t, out)
	if !maps.Equal(want.Files, got.Files) || want.GeneratedAt != got.GeneratedAt || want.Inputs.GraphData != got.Inputs.GraphData {
		t.Errorf("an unchanged mirror's index.json lists other files or inputs")
	}
	if got.Inputs.Releases.Kind != "mirror" {
		t.Errorf("releases kind %q, want mirror", got.Inputs.Releases.Kind)
	}
}

// TestMirrorSelection checks that channels and arches limit the output,
// index.json and the signatures carried along.
func TestMirrorSelection(t *testing.T) {
	tests := []struct {
		name               string
		channels           string
		arches             []string
		wantChannels       []string
		wantArches         []string
		wantSignatures     int
		wantVersionsAmd64  int // per-version graphs of amd64
		wantVersionsArm64  int
		wantNoFilesUnder   []string
		wantSignatureFiles bool
	}{{
		name:         "everything",
		wantChannels: []string{"candidate-4.15", "candidate-4.16", "fast-4.15", "fast-4.16", "stable-4.15", "stable-4.16"},
		wantArches:   []string{"amd64", "arm64"}, wantSignatures: 2,
	}, {
		name: "stable channels", channels: "^stable-",
		wantChannels: []string{"stable-4.15", "stable-4.16"}, wantArches: []string{"amd64", "arm64"},
		wantSignatures:   2,
		wantNoFilesUnder: []string{"graph/amd64/fast-4.16", "graph/arm64/candidate-4.16", "graph/amd64/fast-4.15", "graph/arm64/candidate-4.15"},
	}, {
		name: "arm64 only", arches: []string{"arm64"},
		wantChannels: []string{"candidate-4.15", "candidate-4.16", "fast-4.15", "fast-4.16", "stable-4.15", "stable-4.16"}, wantArches: []string{"arm64"},
		wantNoFilesUnder: []string{"graph/amd64", "signatures"},
	}, {
		name: "one graph", channels: "^fast-4\\.16$", arches: []string{"amd64", "amd64"},
		wantChannels: []string{"fast-4.16"}, wantArches: []string{"amd64"}, wantSignatures: 2,
		wantNoFilesUnder: []string{"graph/arm64", "graph/amd64/stable-4.16"},
	}, {
		name: "4.15 only: 4.16.0 and its signatures are not kept", channels: "4\\.15",
		wantChannels: []string{"candidate-4.15", "fast-4.15", "stable-4.15"}, wantArches: []string{"amd64", "arm64"},
		wantNoFilesUnder: []string{"signatures"},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			out := filepath.Join(t.TempDir(), "out")
			opts := Options{From: demoTree(t), Out: out, Arches: tc.arches, Payloads: rewrite}
			if tc.channels != "" {
				opts.Channels = regexp.MustCompile(tc.channels)
			}
			res, err := Mirror(t.Context(), opts)
			if err != nil {
				t.Fatal(err)
			}
			m := manifestOf(t, out)
			if !reflect.DeepEqual(m, res.Manifest) {
				t.Error("Mirror's manifest is not the index.json written")
			}
			if !slices.Equal(m.Channels, tc.wantChannels) || !slices.Equal(m.Arches, tc.wantArches) {
				t.Errorf("index.json: channels %v arches %v, want %v %v", m.Channels, m.Arches, tc.wantChannels, tc.wantArches)
			}
			if len(m.Graphs) != len(tc.wantChannels)*len(tc.wantArches) {
				t.Errorf("%d graphs, want %d", len(m.Graphs), len(tc.wantChannels)*len(tc.wantArches))
			}
			if m.Counts.Signatures != tc.wantSignatures {
				t.Errorf("%d signatures carried, want %d", m.Counts.Signatures, tc.wantSignatures)
			}
			for name := range m.Files {
				for _, dir := range tc.wantNoFilesUnder {
					if strings.HasPrefix(name, dir+"/") {
						t.Errorf("%s is in the output", name)
					}
				}
			}
			if _, err := bundle.Verify(t.Context(), out, bundle.Limits{}); err != nil {
				t.Error(err)
			}
		})
	}
}

// TestMirrorRejected checks that bad options fail with a message saying
// what is wrong, before anything is written.
func TestMirrorRejected(t *testing.T) {
	work := t.TempDir()
	src := demoTree(t)
	out := filepath.Join(work, "out")
	tests := []struct {
		name string
		opts Options
		want string
	}{
		{"no output", Options{From: src}, "exactly one output"},
		{"two outputs", Options{From: src, Out: out, Bundle: out + ".tar.gz"}, "exactly one output"},
		{"no such channel", Options{From: src, Out: out, Channels: regexp.MustCompile("^eus-")}, "no channel matches ^eus-"},
		{"no such arch", Options{From: src, Out: out, Arches: []string{"s390x"}}, `no arch "s390x"`},
		{"s3 without a bucket", Options{From: "s3:///prefix", Out: out}, "want s3://BUCKET"},
		{"no such directory", Options{From: filepath.Join(work, "none"), Out: out}, "no such file"},
		{"same payload source twice", Options{From: src, Out: out, Payloads: []mirror.PayloadMirror{
			{Source: "quay.io/a", Mirror: "r/a"}, {Source: "quay.io/a", Mirror: "r/b"}}}, "given twice"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Mirror(t.Context(), tc.opts)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one containing %q", err, tc.want)
			}
			if _, err := os.Stat(out); err == nil {
				t.Error("output written anyway")
			}
		})
	}
}

// TestMirrorEndpoint mirrors a graph endpoint without index.json (like an
// upstream policy-engine: upgraph serve with the viewer answers
// index.json, so it is hidden here): the graphs come from its graph API
// for the channels named.
func TestMirrorEndpoint(t *testing.T) {
	src := demoTree(t)
	gen, err := site.Load(src, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer gen.Close()
	h := site.NewHandler(site.Options{})
	h.SetGeneration(gen)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/index.json" {
			http.NotFound(w, r)
			return
		}
		h.ServeHTTP(w, r)
	}))
	defer srv.Close()
	want := manifestOf(t, src)
	at := time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC)

	for _, from := range []string{srv.URL, srv.URL + "/graph"} {
		out := filepath.Join(t.TempDir(), "out")
		if _, err := Mirror(t.Context(), Options{From: from, Out: out}); err == nil || !strings.Contains(err.Error(), "name them") {
			t.Fatalf("%s without channels: %v, want an error asking for them", from, err)
		}
		_, err := Mirror(t.Context(), Options{From: from, Out: out, EndpointChannels: want.Channels, GeneratedAt: at})
		if err != nil {
			t.Fatal(err)
		}
		got := manifestOf(t, out)
		// Signatures are not listed by a graph endpoint, so not mirrored.
		for name, f := range want.Files {
			if strings.HasPrefix(name, "graph/") && got.Files[name] != f {
				t.Errorf("%s: %s differs from the source", from, name)
			}
		}
		if !slices.Equal(got.Arches, want.Arches) || got.GeneratedAt != "2027-01-01T00:00:00Z" || got.Inputs.Releases.Kind != "cincinnati" {
			t.Errorf("%s: arches %v, generatedAt %s, kind %s", from, got.Arches, got.GeneratedAt, got.Inputs.Releases.Kind)
		}
	}
}

func manifestOf(t *testing.T, dir string) *manifest.Manifest {
	t.Helper()
	m, err := manifest.Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestMirrorViewer checks that a mirror keeps the source tree's choice of
// the static viewer (upgraph generate --no-viewer) unless told otherwise:
// the files of a mirror of the demo tree generated with and without the
// viewer, by default, with Viewer false (--no-viewer) and true (--viewer),
// are those of the demo tree generated as the mirror should be.
func TestMirrorViewer(t *testing.T) {
	work := t.TempDir()
	withDir := demoTree(t)
	withoutDir := filepath.Join(work, "no-viewer")
	b, err := generator.Build(t.Context(), testSources()[0].releases, testSources()[0].graphData, generator.BuildOptions{GraphData: graphdata.DefaultOptions()})
	if err != nil {
		t.Fatal(err)
	}
	b.Signatures = map[string][][]byte{"sha256:" + demo4160amd64: {[]byte("sig one\x00\xff"), []byte("sig two")}}
	if _, err := generator.Render(t.Context(), b, generator.RenderOptions{Store: writer.DirStore{Dir: withoutDir}, GeneratedAt: generatedAt, NoViewer: true}); err != nil {
		t.Fatal(err)
	}
	with, without := fileList(t, withDir), fileList(t, withoutDir)
	if !slices.Contains(with, "index.html") || !slices.ContainsFunc(with, isViewerFile) || slices.ContainsFunc(without, isViewerFile) {
		t.Fatalf("source trees: with the viewer %v, without %v", with, without)
	}
	yes, no := true, false
	for _, tc := range []struct {
		name   string
		from   string
		viewer *bool
		want   []string
	}{
		{"with viewer, default", withDir, nil, with},
		{"without viewer, default", withoutDir, nil, without},
		{"with viewer, --no-viewer", withDir, &no, without},
		{"without viewer, --viewer", withoutDir, &yes, with},
		{"with viewer, --viewer", withDir, &yes, with},
		{"without viewer, --no-viewer", withoutDir, &no, without},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out")
			res, err := Mirror(t.Context(), Options{From: tc.from, Out: out, Viewer: tc.viewer})
			if err != nil {
				t.Fatal(err)
			}
			if got := fileList(t, out); !slices.Equal(got, tc.want) {
				t.Errorf("files on disk:\n got %v\nwant %v", got, tc.want)
			}
			listed := append(slices.Collect(maps.Keys(res.Manifest.Files)), manifest.FileName)
			if slices.Sort(listed); !slices.Equal(listed, tc.want) {
				t.Errorf("index.json lists %v (and itself), want %v", listed, tc.want)
			}
			// A bundle carries the same files.
			bundlePath := filepath.Join(t.TempDir(), "b.tar.gz")
			if _, err := Mirror(t.Context(), Options{From: tc.from, Bundle: bundlePath, Viewer: tc.viewer}); err != nil {
				t.Fatal(err)
			}
			if got := bundleFiles(t, bundlePath); !slices.Equal(got, tc.want) {
				t.Errorf("bundle files:\n got %v\nwant %v", got, tc.want)
			}
		})
	}
}

func isViewerFile(name string) bool {
	return name == "index.html" || strings.HasPrefix(name, "viewer/")
}

// fileList lists the regular files under dir, slash-separated and sorted.
func fileList(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		out = append(out, filepath.ToSlash(rel))
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(out)
	return out
}

// bundleFiles lists the regular files of a bundle, as fileList does.
func bundleFiles(t *testing.T, path string) []string {
	t.Helper()
	var out []string
	for _, e := range bundletest.ReadEntries(t, path) {
		if e.Header.Typeflag == tar.TypeReg || e.Header.Typeflag == tar.TypeLink { // identical files are links
			out = append(out, strings.TrimPrefix(e.Header.Name, "./"))
		}
	}
	slices.Sort(out)
	return out
}

// TestMirrorOutputTree: a tree output is the tree of the bundle on a
// first run, on one replacing it and on one over its spare; a run
// refused by the shrink guard (Check) or by its source leaves the tree as
// it was, its spare (the same directory) and no lock or staging beside
// it.
func TestMirrorOutputTree(t *testing.T) {
	base := t.TempDir()
	src, out := demoTree(t), filepath.Join(base, "out")
	ref := filepath.Join(t.TempDir(), "ref.tar.gz")
	if _, err := Mirror(t.Context(), Options{From: src, Bundle: ref, Payloads: rewrite}); err != nil {
		t.Fatal(err)
	}
	want := bundleFiles(t, ref)
	var first map[string][]byte
	for run := range 3 {
		if _, err := Mirror(t.Context(), Options{From: src, Out: out, Payloads: rewrite}); err != nil {
			t.Fatalf("run %d: %v", run, err)
		}
		if got := fileList(t, out); !slices.Equal(got, want) {
			t.Fatalf("run %d: files %v, want the bundle's %v", run, got, want)
		}
		if _, err := bundle.Verify(t.Context(), out, bundle.Limits{}); err != nil {
			t.Fatalf("run %d: %v", run, err)
		}
		if got := treeBytes(t, out); first == nil {
			first = got
		} else if !maps.EqualFunc(got, first, bytes.Equal) {
			t.Fatalf("run %d: the tree differs from the first run's", run)
		}
	}
	spare, err := os.Stat(writer.SpareName(out))
	if err != nil {
		t.Fatal(err)
	}
	refused := errors.New("refused by the guard")
	for name, tc := range map[string]struct {
		opts Options
		want string
	}{
		"guard":  {Options{From: src, Out: out, Payloads: rewrite, Check: func(*manifest.Manifest) error { return refused }}, refused.Error()},
		"source": {Options{From: filepath.Join(base, "none"), Out: out}, "no such file"},
	} {
		if _, err := Mirror(t.Context(), tc.opts); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Fatalf("%s: error %v, want one containing %q", name, err, tc.want)
		}
		if !maps.EqualFunc(treeBytes(t, out), first, bytes.Equal) {
			t.Errorf("%s: the tree changed", name)
		}
		if st, err := os.Stat(writer.SpareName(out)); err != nil || !os.SameFile(st, spare) {
			t.Errorf("%s: the spare is not the one kept before (%v)", name, err)
		}
		entries, err := os.ReadDir(base)
		if err != nil {
			t.Fatal(err)
		}
		var beside []string
		for _, e := range entries {
			beside = append(beside, e.Name())
		}
		if want := []string{".out.upgraph-spare", "out"}; !slices.Equal(beside, want) {
			t.Errorf("%s: %v beside the tree, want %v", name, beside, want)
		}
	}
	// The lock was released.
	if _, err := Mirror(t.Context(), Options{From: src, Out: out, Payloads: rewrite}); err != nil {
		t.Fatal(err)
	}
}

// treeBytes is every regular file under dir by slash-separated name.
func treeBytes(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	for _, name := range fileList(t, dir) {
		data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(name)))
		if err != nil {
			t.Fatal(err)
		}
		out[name] = data
	}
	return out
}

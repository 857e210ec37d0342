package diff

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/upgraph/upgraph/release/mirror"
	"github.com/upgraph/upgraph/site"
)

// TestDiffIdentical: a tree against itself, and against a second generation
// of the same inputs (another generatedAt), has no differences.
func TestDiffIdentical(t *testing.T) {
	rel, gd := demoInputs(t)
	dir := buildTree(t, rel, gd)
	for _, other := range []string{dir, buildTree(t, rel, gd)} {
		r := compare(t, open(t, dir), open(t, other), Options{})
		if !r.Empty() || r.Compared != 12 { // 6 channels × 2 arches
			t.Fatalf("Empty %v, Compared %d, want true, 12: %+v", r.Empty(), r.Compared, r)
		}
		if got := render(t, r, Text); got != "" {
			t.Errorf("text output %q, want none", got)
		}
		if got := render(t, r, Markdown); !strings.Contains(got, "No differences in 12 channel × arch graphs.") {
			t.Errorf("markdown output:\n%s", got)
		}
		if got := render(t, r, JSON); !strings.Contains(got, `"graphs": []`) {
			t.Errorf("json output:\n%s", got)
		}
	}
}

// serveTree serves a tree with the real site handler, as `upgraph serve`
// does, on 127.0.0.1.
func serveTree(t *testing.T, dir string) string {
	t.Helper()
	gen, err := site.Load(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { gen.Close() })
	h := site.NewHandler(site.Options{})
	h.SetGeneration(gen)
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv.URL
}

// TestDiffHTTP diffs a directory against the same tree served over HTTP, both
// by `upgraph serve` (a policy-engine: no index.json) and by a static
// file server (index.json and all), under every URL form a user may give.
func TestDiffHTTP(t *testing.T) {
	rel, gd := demoInputs(t)
	dir := buildTree(t, rel, gd)
	served := serveTree(t, dir)
	static := httptest.NewServer(http.FileServer(http.Dir(dir)))
	t.Cleanup(static.Close)
	for _, tc := range []struct {
		url  string
		tree bool
	}{
		{served, false},
		{served + "/", false},
		{served + "/api/upgrades_info", false},
		{served + "/api/upgrades_info/v1/graph", false},
		{served + "/graph?id=ignored", false},
		{static.URL, true},
	} {
		t.Run(tc.url, func(t *testing.T) {
			s := open(t, tc.url)
			if s.IsTree() != tc.tree {
				t.Errorf("read as a tree: %v, want %v", s.IsTree(), tc.tree)
			}
			for _, sides := range [][2]*Source{{open(t, dir), s}, {s, open(t, dir)}} {
				r := compare(t, sides[0], sides[1], Options{})
				if !r.Empty() || r.Compared != 12 {
					t.Errorf("%s vs %s: Empty %v, Compared %d, want true, 12:\n%s", sides[0], sides[1], r.Empty(), r.Compared, render(t, r, Text))
				}
			}
		})
	}
}

// TestDiffHTTPVariants: a directory against a changed tree served by `upgraph
// serve` shows what the two directories show, a removed channel included
// although the endpoint answers it with an empty graph.
func TestDiffHTTPVariants(t *testing.T) {
	rel, gd := demoInputs(t)
	old := buildTree(t, rel, gd)
	for _, v := range variants() {
		t.Run(v.name, func(t *testing.T) {
			rel, gd := demoInputs(t)
			v.edit(rel, gd)
			dir := buildTree(t, rel, gd)
			want := compare(t, open(t, old), open(t, dir), Options{})
			got := compare(t, open(t, old), open(t, serveTree(t, dir)), Options{})
			got.New = want.New
			if g, w := render(t, got, JSON), render(t, want, JSON); g != w {
				t.Errorf("over HTTP:\n%s\nbetween directories:\n%s", g, w)
			}
		})
	}
}

// TestDiffEndpoints: two endpoints cannot list their channels, so they are
// named; arches default to OpenShift's, of which the demo serves two.
func TestDiffEndpoints(t *testing.T) {
	rel, gd := demoInputs(t)
	a, b := open(t, serveTree(t, buildTree(t, rel, gd))), open(t, serveTree(t, buildTree(t, rel, gd)))
	if _, err := Compare(t.Context(), a, b, Options{}); err == nil || !errors.Is(err, ErrNoChannels) {
		t.Errorf("no channels: err %v", err)
	}
	r := compare(t, a, b, Options{Channels: []string{"fast-4.16", "stable-4.15", "no-such-4.0"}})
	if !r.Empty() || r.Compared != 4 {
		t.Errorf("Empty %v, Compared %d, want true, 4", r.Empty(), r.Compared)
	}
}

// TestDiffSelection: Channels and Arches restrict the comparison; against two
// trees a name neither has is an error rather than "no differences".
func TestDiffSelection(t *testing.T) {
	rel, gd := demoInputs(t)
	old := open(t, buildTree(t, rel, gd))
	delete(gd, "channels/stable-4.16.yaml")
	new := open(t, buildTree(t, rel, gd))
	for _, tc := range []struct {
		name     string
		opts     Options
		compared int
		graphs   int
		err      string
	}{
		{"all", Options{}, 12, 12, ""},
		{"one channel", Options{Channels: []string{"stable-4.16"}}, 2, 2, ""},
		{"one arch", Options{Arches: []string{"arm64"}}, 6, 6, ""},
		{"unchanged pair", Options{Channels: []string{"stable-4.15"}, Arches: []string{"amd64"}}, 1, 1, ""},
		{"unknown channel", Options{Channels: []string{"stable-4.17"}}, 0, 0, `channel "stable-4.17" is in neither`},
		{"unknown arch", Options{Arches: []string{"s390x"}}, 0, 0, `arch "s390x" is in neither`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := Compare(t.Context(), old, new, tc.opts)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if r.Compared != tc.compared || len(r.Graphs) != tc.graphs {
				t.Errorf("Compared %d, %d graphs differ; want %d, %d", r.Compared, len(r.Graphs), tc.compared, tc.graphs)
			}
		})
	}
}

func TestDiffOpenErrors(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct{ spec, err string }{
		{dir + "/missing", "no such file"},
		{dir, "index.json"},
		{"s3:///prefix", "want s3://BUCKET"},
		{"ftp://host/tree", "unknown scheme ftp://: want DIR"},
	} {
		if _, err := mirror.OpenSource(t.Context(), tc.spec, mirror.SourceOptions{}); err == nil || !strings.Contains(err.Error(), tc.err) {
			t.Errorf("OpenSource(%q): err %v, want %q", tc.spec, err, tc.err)
		}
	}
	// A URL with neither an index.json nor a graph endpoint fails when
	// read, saying what was tried.
	srv := httptest.NewServer(http.NotFoundHandler())
	t.Cleanup(srv.Close)
	rel, gd := demoInputs(t)
	_, err := Compare(t.Context(), open(t, buildTree(t, rel, gd)), open(t, srv.URL+"/typo"), Options{})
	if want := "/typo has no index.json, so it was read as a graph endpoint"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("err %v, want %q", err, want)
	}
}

// TestDiffBrokenTree: a graph file that does not match index.json fails the
// diff instead of showing up as differences.
func TestDiffBrokenTree(t *testing.T) {
	rel, gd := demoInputs(t)
	dir := buildTree(t, rel, gd)
	broken := copyDir(t, dir)
	writeFile(t, broken+"/graph/amd64/fast-4.16.json", `{"version":1,"nodes":[],"edges":[],"conditionalEdges":[]}`)
	_, err := Compare(t.Context(), open(t, dir), open(t, broken), Options{})
	if err == nil || !strings.Contains(err.Error(), "graph/amd64/fast-4.16.json") {
		t.Errorf("err %v, want one naming the file", err)
	}
}

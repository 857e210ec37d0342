package mirror

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/upgraph/upgraph/generator"
	"github.com/upgraph/upgraph/internal/cputime"
	"github.com/upgraph/upgraph/tree"
	"github.com/upgraph/upgraph/tree/manifest"
)

// TestFromTree reads a generated tree back, from its directory and over
// HTTP, and renders the union: the tree comes back, to the byte.
func TestFromTree(t *testing.T) {
	in := testInputs()[0]
	base := t.TempDir()
	origDir := filepath.Join(base, "orig")
	orig := generate(t, in, origDir)
	srv := httptest.NewServer(http.FileServer(http.Dir(origDir)))
	defer srv.Close()
	dir := openTree(t, origDir)
	web := openTree(t, srv.URL)
	for name, src := range map[string]tree.Tree{"dir": dir, "http": web} {
		tr, err := FromTree(t.Context(), src, TreeOptions{})
		if err != nil {
			t.Fatal(err)
		}
		out := filepath.Join(base, name)
		m := render(t, generator.Applied(tr.Graph, tr.Channels, "mirror", nil), out, tr.Arches)
		for file, f := range orig.Files {
			if m.Files[file] != f {
				t.Errorf("%s: %s differs from the tree read", name, file)
			}
		}
		if len(m.Files) != len(orig.Files) {
			t.Errorf("%s: %d files, want %d", name, len(m.Files), len(orig.Files))
		}
	}

	tr, err := FromTree(t.Context(), dir, TreeOptions{Channels: regexp.MustCompile("^stable-"), Arches: []string{"arm64"}})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(tr.Channels, []string{"stable-4.15", "stable-4.16"}) || !slices.Equal(tr.Arches, []string{"arm64"}) || slices.Contains(tr.Graph.Arches(), "amd64") {
		t.Errorf("selection: channels %v arches %v, graph arches %v", tr.Channels, tr.Arches, tr.Graph.Arches())
	}

	// A host without index.json is told from one that fails, and a file
	// index.json does not list is not fetched.
	if _, err := tree.Open(t.Context(), srv.URL+"/no/such", tree.Options{}); !errors.Is(err, tree.ErrNoIndex) {
		t.Errorf("missing index.json over HTTP: %v, want tree.ErrNoIndex", err)
	}
	if _, err := web.ReadFile(t.Context(), "no/such.json"); err == nil || !strings.Contains(err.Error(), "no/such.json is not listed in index.json") {
		t.Errorf("unlisted file over HTTP: %v, want an error saying it is not listed", err)
	}
}

// openTree opens the tree at location, closed when the test ends.
func openTree(t *testing.T, location string) tree.Tree {
	t.Helper()
	tr, err := tree.Open(t.Context(), location, tree.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tr.Close() })
	return tr
}

// TestFromTreeRejected checks that FromTree does not build on a file that
// is not the one index.json describes, and names it.
func TestFromTreeRejected(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "tree")
	generate(t, testInputs()[0], dir)
	channel := filepath.Join(dir, "graph", "amd64", "fast-4.16.json")
	data, err := os.ReadFile(channel)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(channel); err != nil { // break the hard links
		t.Fatal(err)
	}
	data[len(data)-2] ^= 1
	if err := os.WriteFile(channel, data, 0o644); err != nil {
		t.Fatal(err)
	}
	src := openTree(t, dir)
	for _, tc := range []struct {
		opts TreeOptions
		want string
	}{
		{TreeOptions{}, "graph/amd64/fast-4.16.json does not match its sha256 in index.json"},
		{TreeOptions{Arches: []string{"s390x"}}, `the tree has no arch "s390x"`},
		{TreeOptions{Channels: regexp.MustCompile("eus")}, "no channel matches eus"},
	} {
		_, err := FromTree(t.Context(), src, tc.opts)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("FromTree(%+v): %v, want an error containing %q", tc.opts, err, tc.want)
		}
	}
}

func TestMergeRejected(t *testing.T) {
	body := []byte(`{"version":1,"nodes":[],"edges":[],"conditionalEdges":[]}`)
	for _, tc := range []struct {
		a    Answer
		want string
	}{
		{Answer{Channel: "Stable", Arch: "amd64", Source: "f.json", Body: body}, `f.json: channel "Stable"`},
		{Answer{Channel: "stable-4.16", Arch: "x86_64", Source: "f.json", Body: body}, `f.json: arch "x86_64"`},
		{Answer{Channel: "stable-4.16", Arch: "amd64", Source: "f.json", Body: []byte(`{"nodes":[],"edges":[]}`)}, `f.json: not a policy-engine graph`},
	} {
		if err := newUnion(slog.New(slog.DiscardHandler)).addAnswer(tc.a); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("addAnswer(%s): %v, want an error containing %q", tc.a.Source, err, tc.want)
		}
	}
}

// manifestOnly is a tree of which only index.json can be read.
type manifestOnly struct{ m *manifest.Manifest }

func (t manifestOnly) Manifest() *manifest.Manifest { return t.m }
func (t manifestOnly) Index() []byte                { return nil }
func (t manifestOnly) String() string               { return "index-only" }
func (t manifestOnly) Close() error                 { return nil }
func (t manifestOnly) ReadFile(_ context.Context, name string) ([]byte, error) {
	return nil, fmt.Errorf("%s: %w", name, fs.ErrNotExist)
}
func (t manifestOnly) ReadMetadata(_ context.Context, name string) ([]byte, error) {
	return nil, fmt.Errorf("%s: %w", name, fs.ErrNotExist)
}

// TestFromTreeLinear: picking the selected graphs of an index.json costs
// time linear in it. Before, each graph's channel was looked for in the
// list of channels: 50,000 channels and graphs took 2.5 billion string
// comparisons before the first file was read.
func TestFromTreeLinear(t *testing.T) {
	const n = 50000
	m := &manifest.Manifest{Arches: []string{"amd64"}}
	for i := range n {
		c := fmt.Sprintf("stable-4.%d", i)
		m.Channels = append(m.Channels, c)
		m.Graphs = append(m.Graphs, manifest.Graph{Channel: c, Arch: "amd64", Path: manifest.GraphPath("amd64", c)})
	}
	cpu := cputime.Process()
	_, err := FromTree(t.Context(), manifestOnly{m}, TreeOptions{Workers: 1})
	used := cputime.Process() - cpu
	t.Logf("%v of CPU", used)
	if err == nil || !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), "graph/amd64/stable-4.0.json") {
		t.Errorf("FromTree: %v, want the first graph missing", err)
	}
	if limit := time.Second; used > limit {
		t.Errorf("%v of CPU, more than %v: quadratic in the graphs?", used, limit)
	}
}

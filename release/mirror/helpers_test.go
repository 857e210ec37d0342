package mirror

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"maps"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	upgraph "github.com/upgraph/upgraph"
	"github.com/upgraph/upgraph/generator"
	"github.com/upgraph/upgraph/release/graphdata"
	"github.com/upgraph/upgraph/release/source"
	"github.com/upgraph/upgraph/site"
	"github.com/upgraph/upgraph/tree/manifest"
	"github.com/upgraph/upgraph/tree/writer"
)

// fixtures are the upstream conformance fixtures, beside the repository
// as CI checks it out.
const fixtures = "../../../shared/conformance"

// generatedAt is fixed so that trees can be compared byte for byte.
var generatedAt = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// inputs are the real inputs a tree is generated from.
type inputs struct {
	name      string
	releases  source.Source
	graphData fs.FS
	gdOpts    graphdata.Options
}

func testInputs() []inputs {
	in := []inputs{{
		name:      "demo",
		releases:  &source.MetadataDir{Dir: "demo", FS: upgraph.DemoReleases()},
		graphData: upgraph.DemoGraphData(),
		gdOpts:    graphdata.DefaultOptions(),
	}}
	// The largest fixture: four arches, abstract releases, "-s390x"
	// pre-releases and conditional edges, one of them to a single arch.
	// The two older ones add nothing the mirror would see differently.
	for _, f := range []string{"20211124.083150"} {
		dir := filepath.Join(fixtures, f)
		in = append(in, inputs{
			name:      f,
			releases:  &source.GraphFile{Path: filepath.Join(dir, "graph-gb-raw.json")},
			graphData: os.DirFS(filepath.Join(dir, "cincinnati-graph-data")),
			// Upstream skips the fixtures' unparsable files; so must we.
			gdOpts: graphdata.UpstreamOptions(),
		})
	}
	return in
}

// generate writes the tree upgraph generates from in.
func generate(t *testing.T, in inputs, out string) *manifest.Manifest {
	t.Helper()
	b, err := generator.Build(t.Context(), in.releases, in.graphData, generator.BuildOptions{GraphData: in.gdOpts})
	if err != nil {
		t.Fatal(err)
	}
	return render(t, b, out, nil)
}

func render(t *testing.T, b *generator.Built, out string, arches []string) *manifest.Manifest {
	t.Helper()
	m, err := generator.Render(t.Context(), b, generator.RenderOptions{Store: writer.DirStore{Dir: out}, GeneratedAt: generatedAt, Arches: arches})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// serve serves the tree at dir with upgraph's own handler on 127.0.0.1
// and returns the graph endpoint's URL.
func serve(t *testing.T, dir string) string {
	t.Helper()
	gen, err := site.Load(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	h := site.NewHandler(site.Options{})
	h.SetGeneration(gen)
	srv := httptest.NewServer(site.CORS(h))
	t.Cleanup(func() {
		srv.Close()
		gen.Close()
	})
	return srv.URL + "/api/upgrades_info/v1/graph"
}

// mirror fetches every channel × arch of m from endpoint and renders the
// union into out, the way the cincinnati: release source does.
func mirror(t *testing.T, endpoint string, m *manifest.Manifest, out string) *manifest.Manifest {
	t.Helper()
	start := time.Now()
	g, err := Fetch(t.Context(), Options{URL: endpoint, Channels: m.Channels, Arches: m.Arches})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("fetched %d graphs in %v", len(m.Channels)*len(m.Arches), time.Since(start))
	return render(t, generator.Applied(g, m.Channels, "cincinnati", nil), out, m.Arches)
}

// canonical is a served graph file made order-insensitive.
type canonical struct {
	Nodes map[string]string // version → payload and metadata
	Edges []string          // "from -> to", sorted
	// Conditional maps "from -> to" to its risks; Groups are the entries,
	// each as its sorted edges and its risks, sorted.
	Conditional map[string]string
	Groups      []string
}

func canonicalize(t *testing.T, name string, data []byte) canonical {
	t.Helper()
	var w struct {
		Version int `json:"version"`
		Nodes   []struct {
			Version  string            `json:"version"`
			Payload  string            `json:"payload"`
			Metadata map[string]string `json:"metadata"`
		} `json:"nodes"`
		Edges            [][2]int `json:"edges"`
		ConditionalEdges []struct {
			Edges []struct{ From, To string } `json:"edges"`
			Risks json.RawMessage             `json:"risks"`
		} `json:"conditionalEdges"`
	}
	if err := json.Unmarshal(data, &w); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	c := canonical{Nodes: map[string]string{}, Conditional: map[string]string{}}
	for _, n := range w.Nodes {
		md, _ := json.Marshal(n.Metadata) // keys sorted
		c.Nodes[n.Version] = n.Payload + " " + string(md)
	}
	for _, e := range w.Edges {
		c.Edges = append(c.Edges, w.Nodes[e[0]].Version+" -> "+w.Nodes[e[1]].Version)
	}
	slices.Sort(c.Edges)
	for _, ce := range w.ConditionalEdges {
		var risks bytes.Buffer
		json.Compact(&risks, ce.Risks)
		var edges []string
		for _, e := range ce.Edges {
			k := e.From + " -> " + e.To
			edges = append(edges, k)
			c.Conditional[k] += risks.String()
		}
		slices.Sort(edges)
		c.Groups = append(c.Groups, strings.Join(edges, ", ")+" "+risks.String())
	}
	slices.Sort(c.Groups)
	return c
}

// sameGraphs checks that two trees serve the same graphs, file by file,
// order-insensitively.
func sameGraphs(t *testing.T, wantDir string, want *manifest.Manifest, gotDir string, got *manifest.Manifest) {
	t.Helper()
	if !slices.Equal(want.Channels, got.Channels) || !slices.Equal(want.Arches, got.Arches) {
		t.Fatalf("channels %v arches %v, want %v %v", got.Channels, got.Arches, want.Channels, want.Arches)
	}
	if w, g := graphList(want), graphList(got); !reflect.DeepEqual(w, g) {
		t.Errorf("index.json graphs differ:\n got  %v\n want %v", g, w)
	}
	if w, g := slices.Sorted(maps.Keys(want.Files)), slices.Sorted(maps.Keys(got.Files)); !slices.Equal(w, g) {
		t.Fatalf("file sets differ: %d files, want %d", len(g), len(w))
	}
	channelGraphs := map[string]bool{}
	for _, g := range want.Graphs {
		channelGraphs[g.Path] = true
	}
	identical := 0
	for name, f := range want.Files {
		// Equal bytes are equal graphs; channel graphs are compared anyway,
		// so that the comparison itself is known to work.
		if got.Files[name].SHA256 == f.SHA256 {
			identical++
			if !channelGraphs[name] {
				continue
			}
		}
		wc := canonicalize(t, name, readFile(t, wantDir, name))
		gc := canonicalize(t, name, readFile(t, gotDir, name))
		if !reflect.DeepEqual(wc, gc) {
			t.Errorf("%s differs:\n got  %+v\n want %+v", name, gc, wc)
		}
	}
	t.Logf("%d files compared, %d of them byte-identical", len(want.Files), identical)
}

// graphList is index.json's graphs, versions as sets.
func graphList(m *manifest.Manifest) []string {
	var out []string
	for _, g := range m.Graphs {
		vs := slices.Sorted(slices.Values(g.Versions))
		out = append(out, fmt.Sprintf("%s %s %s n=%d e=%d c=%d %v", g.Channel, g.Arch, g.Path, g.Nodes, g.Edges, g.ConditionalEdges, vs))
	}
	slices.Sort(out)
	return out
}

func readFile(t *testing.T, dir, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(name)))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// treeFiles reads every regular file of a tree, by slash path.
func treeFiles(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	files := map[string][]byte{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		files[filepath.ToSlash(rel)], err = os.ReadFile(p)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

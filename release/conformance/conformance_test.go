// Package conformance runs upstream's compare_quay_result_fixture procedure
// (shared/conformance/README.md) against the annotate and edges stages.
package conformance

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/upgraph/upgraph/release/annotate"
	"github.com/upgraph/upgraph/release/edges"
	"github.com/upgraph/upgraph/release/graph"
	"github.com/upgraph/upgraph/release/graphdata"
)

const fixtures = "../../../shared/conformance"

var cases = []struct {
	name      string
	edges     int
	edgesHash string
}{
	{"20200220.104838", 466, "3370ec07a9637aa11182a2b322e0333ce04998aa279b6009b54616667166f98d"},
	{"20200319.204124", 559, "788f75dc454521a91bad2c1732dd0a48188d9884f90df34f288834ea82aacdb8"},
	{"20211124.083150", 17395, "7f5dea7759d6bcbf44b630b6896da36e1d316ab39c94f9eb059f803936738fa5"},
}

func load(t *testing.T, path string) *graph.Graph {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	g, err := graph.Decode(path, data)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func TestFixtures(t *testing.T) {
	for _, tc := range cases {
		for _, quirks := range []bool{true, false} {
			name := tc.name + map[bool]string{true: "/upstream-quirks", false: "/default"}[quirks]
			t.Run(name, func(t *testing.T) {
				dir := filepath.Join(fixtures, tc.name)
				gdOpts := graphdata.UpstreamOptions()
				if !quirks {
					gdOpts = graphdata.DefaultOptions()
				}
				gd, err := graphdata.Load(os.DirFS(filepath.Join(dir, "cincinnati-graph-data")), gdOpts)
				if err != nil {
					t.Fatal(err)
				}
				actual := load(t, filepath.Join(dir, "graph-gb-raw.json"))
				annotate.Apply(actual, gd, annotate.Options{UpstreamQuirks: quirks})
				if _, err := edges.Apply(actual, edges.Options{}); err != nil {
					t.Fatal(err)
				}
				expected := load(t, filepath.Join(dir, "graph-gb-with-quay-metadata.json"))
				if _, err := edges.Apply(expected, edges.Options{}); err != nil {
					t.Fatal(err)
				}
				for _, g := range []*graph.Graph{actual, expected} {
					for _, n := range g.Nodes() {
						delete(n.Metadata, graph.KeyRemoveRegex)
						delete(n.Metadata, graph.KeyPreviousRemove)
					}
				}
				compareNodes(t, actual, expected)
				ae, ee := edgeLines(actual), edgeLines(expected)
				if !slices.Equal(ae, ee) {
					t.Errorf("edge sets differ: %d actual, %d expected; first differences: %v", len(ae), len(ee), firstDiff(ae, ee))
				}
				if len(ae) != tc.edges {
					t.Errorf("edges after processing = %d, want %d", len(ae), tc.edges)
				}
				sum := sha256.Sum256([]byte(strings.Join(ae, "\n")))
				if got := hex.EncodeToString(sum[:]); got != tc.edgesHash {
					t.Errorf("edge hash = %s, want %s", got, tc.edgesHash)
				}
			})
		}
	}
}

func compareNodes(t *testing.T, actual, expected *graph.Graph) {
	t.Helper()
	if actual.Len() != expected.Len() {
		t.Fatalf("node count %d, want %d", actual.Len(), expected.Len())
	}
	bad := 0
	for _, n := range expected.Nodes() {
		i, ok := actual.Lookup(n.Version)
		if !ok {
			t.Errorf("missing node %s", n.Version)
			continue
		}
		a := actual.Node(i)
		if a.Abstract != n.Abstract || a.Payload != n.Payload || !reflect.DeepEqual(a.Metadata, n.Metadata) {
			if bad++; bad <= 5 {
				t.Errorf("node %s differs:\n actual   %v %q %v\n expected %v %q %v", n.Version, a.Abstract, a.Payload, a.Metadata, n.Abstract, n.Payload, n.Metadata)
			}
		}
	}
	if bad > 5 {
		t.Errorf("... %d nodes differ in all", bad)
	}
}

func edgeLines(g *graph.Graph) []string {
	var lines []string
	for _, e := range g.Edges() {
		lines = append(lines, g.Node(e[0]).Version+" -> "+g.Node(e[1]).Version)
	}
	slices.Sort(lines)
	return lines
}

func firstDiff(a, b []string) []string {
	inB := map[string]bool{}
	for _, s := range b {
		inB[s] = true
	}
	inA := map[string]bool{}
	var out []string
	for _, s := range a {
		inA[s] = true
		if !inB[s] && len(out) < 5 {
			out = append(out, "+"+s)
		}
	}
	for _, s := range b {
		if !inA[s] && len(out) < 10 {
			out = append(out, "-"+s)
		}
	}
	return out
}

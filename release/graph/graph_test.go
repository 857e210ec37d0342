package graph

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/upgraph/upgraph/tree/version"
)

// edgeSet lists g's edges as sorted "from -> to" lines.
func edgeSet(g *Graph) []string {
	var out []string
	for _, e := range g.Edges() {
		out = append(out, g.Node(e[0]).Version+" -> "+g.Node(e[1]).Version)
	}
	slices.Sort(out)
	return out
}

func vs(ss ...string) []version.Version {
	var out []version.Version
	for _, s := range ss {
		out = append(out, version.MustParse(s))
	}
	return out
}

func rel(v, payload, origin string, previous, next []string) Release {
	return Release{
		Version:  version.MustParse(v),
		Payload:  payload,
		Metadata: map[string]string{KeyManifestRef: "sha256:" + payload, KeyArch: version.MustParse(v).Build()},
		Previous: vs(previous...),
		Next:     vs(next...),
		Origin:   origin,
	}
}

func TestAssemble(t *testing.T) {
	for _, tc := range []struct {
		name     string
		releases []Release
		nodes    []string // all versions, sorted; abstract ones prefixed with "~"
		edges    []string
	}{
		{
			name: "missing previous gives one abstract node",
			releases: []Release{
				rel("1.0.0+amd64", "a", "a.json", []string{"0.9.0"}, nil),
			},
			nodes: []string{"~0.9.0+amd64", "1.0.0+amd64"},
			edges: []string{"0.9.0+amd64 -> 1.0.0+amd64"},
		},
		{
			name: "edges never cross architectures",
			releases: []Release{
				rel("1.0.0+amd64", "a1", "a1", nil, nil),
				rel("1.0.0+arm64", "r1", "r1", nil, nil),
				rel("1.1.0+amd64", "a2", "a2", []string{"1.0.0"}, nil),
				rel("1.1.0+arm64", "r2", "r2", []string{"1.0.0+amd64"}, []string{"1.2.0"}),
			},
			nodes: []string{"1.0.0+amd64", "1.0.0+arm64", "1.1.0+amd64", "1.1.0+arm64", "~1.2.0+arm64"},
			edges: []string{"1.0.0+amd64 -> 1.1.0+amd64", "1.0.0+arm64 -> 1.1.0+arm64", "1.1.0+arm64 -> 1.2.0+arm64"},
		},
		{
			name: "duplicate previous and next entries tolerated",
			releases: []Release{
				rel("1.0.0+amd64", "a", "a", nil, []string{"2.0.0", "2.0.0"}),
				rel("2.0.0+amd64", "b", "b", []string{"1.0.0", "1.0.0"}, nil),
			},
			nodes: []string{"1.0.0+amd64", "2.0.0+amd64"},
			edges: []string{"1.0.0+amd64 -> 2.0.0+amd64"},
		},
		{
			name: "two identical releases are one node",
			releases: []Release{
				rel("1.0.0+amd64", "a", "tag-1", nil, nil),
				rel("1.0.0+amd64", "a", "tag-2", nil, nil),
				rel("1.1.0+amd64", "b", "tag-3", []string{"1.0.0"}, nil),
			},
			nodes: []string{"1.0.0+amd64", "1.1.0+amd64"},
			edges: []string{"1.0.0+amd64 -> 1.1.0+amd64"},
		},
		{
			name: "legacy s390x pre-release keeps its pre-release",
			releases: []Release{
				rel("4.2.10-s390x+s390x", "s", "s", []string{"4.2.9-s390x"}, nil),
			},
			nodes: []string{"~4.2.9-s390x+s390x", "4.2.10-s390x+s390x"},
			edges: []string{"4.2.9-s390x+s390x -> 4.2.10-s390x+s390x"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g, err := Assemble(tc.releases)
			if err != nil {
				t.Fatal(err)
			}
			var nodes []string
			for _, i := range g.SortedOrder() {
				n := g.Node(i)
				if n.Abstract {
					nodes = append(nodes, "~"+n.Version)
				} else {
					nodes = append(nodes, n.Version)
				}
			}
			if !slices.Equal(nodes, tc.nodes) {
				t.Errorf("nodes = %v, want %v", nodes, tc.nodes)
			}
			if got := edgeSet(g); !slices.Equal(got, tc.edges) {
				t.Errorf("edges = %v, want %v", got, tc.edges)
			}
			if len(g.Conditional) != 0 || len(g.Declarations) != 0 {
				t.Errorf("conditional = %v, declarations = %v, want none", g.Conditional, g.Declarations)
			}
		})
	}
}

func TestAssembleCopiesMetadata(t *testing.T) {
	r := rel("1.0.0+amd64", "a", "a", nil, nil)
	g, err := Assemble([]Release{r})
	if err != nil {
		t.Fatal(err)
	}
	g.Node(0).Metadata["x"] = "y"
	if _, ok := r.Metadata["x"]; ok {
		t.Error("Assemble shares the release's metadata map with the graph node")
	}
}

func TestAssembleErrors(t *testing.T) {
	for _, tc := range []struct {
		name     string
		releases []Release
		want     []string
	}{
		{
			name: "same version, different payload",
			releases: []Release{
				rel("1.0.0+amd64", "aaa", "releases/one.json", nil, nil),
				rel("1.0.0+amd64", "bbb", "releases/two.json", nil, nil),
			},
			want: []string{"1.0.0+amd64", "releases/one.json", "releases/two.json", "aaa", "bbb"},
		},
		{
			name: "same version and payload, different manifestref",
			releases: []Release{
				rel("1.0.0+amd64", "aaa", "releases/one.json", nil, nil),
				func() Release {
					r := rel("1.0.0+amd64", "aaa", "releases/two.json", nil, nil)
					r.Metadata[KeyManifestRef] = "sha256:other"
					return r
				}(),
			},
			want: []string{"1.0.0+amd64", "releases/one.json", "releases/two.json"},
		},
		{
			name: "cycle through previous and next",
			releases: []Release{
				rel("0.0.1+amd64", "a", "tags/0.0.1", nil, nil),
				rel("0.0.2+amd64", "b", "tags/0.0.2", []string{"0.0.1"}, []string{"0.0.1"}),
			},
			want: []string{"cycle", "0.0.1+amd64 (tags/0.0.1)", "0.0.2+amd64 (tags/0.0.2)"},
		},
		{
			name: "cycle through an abstract node",
			releases: []Release{
				rel("2.0.0+amd64", "b", "two", []string{"1.0.0"}, []string{"1.0.0"}),
			},
			want: []string{"cycle", "2.0.0+amd64 (two)", "1.0.0+amd64 (abstract)"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Assemble(tc.releases)
			if err == nil {
				t.Fatalf("Assemble succeeded, want an error containing %q", tc.want)
			}
			for _, s := range tc.want {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("error %q does not contain %q", err, s)
				}
			}
		})
	}
}

func TestAddNodeAndEdges(t *testing.T) {
	g := New()
	if _, err := g.AddNode(&Node{Version: ""}); err == nil {
		t.Error("AddNode with an empty version succeeded")
	}
	a, _ := g.AddNode(&Node{Version: "1.0.0"})
	b, _ := g.AddNode(&Node{Version: "2.0.0", Abstract: true})
	if _, err := g.AddNode(&Node{Version: "1.0.0"}); err == nil || !strings.Contains(err.Error(), "1.0.0") {
		t.Errorf("duplicate AddNode error = %v, want one naming 1.0.0", err)
	}
	if g.Node(a).Metadata == nil {
		t.Error("concrete node without metadata was not given an empty map")
	}
	if !g.AddEdge(a, b) || g.AddEdge(a, b) {
		t.Error("AddEdge should report true for a new edge and false for an existing one")
	}
	if g.EdgeCount() != 1 || !g.HasEdge(a, b) || g.HasEdge(b, a) {
		t.Errorf("after AddEdge: count %d, has(a,b) %v, has(b,a) %v", g.EdgeCount(), g.HasEdge(a, b), g.HasEdge(b, a))
	}
	if !slices.Equal(g.Parents(b), []int{a}) || !slices.Equal(g.Children(a), []int{b}) {
		t.Errorf("Parents/Children = %v/%v", g.Parents(b), g.Children(a))
	}
	if g.RemoveEdge(b, a) || !g.RemoveEdge(a, b) || g.RemoveEdge(a, b) {
		t.Error("RemoveEdge should report whether an edge was removed")
	}
	if g.EdgeCount() != 0 || len(g.Edges()) != 0 {
		t.Errorf("after RemoveEdge: count %d, edges %v", g.EdgeCount(), g.Edges())
	}
	if sv, ok := g.Node(a).SemVer(); !ok || sv.String() != "1.0.0" {
		t.Errorf("SemVer() = %v, %v", sv, ok)
	}
	n := &Node{Version: "not-semver"}
	g.AddNode(n)
	if _, ok := n.SemVer(); ok {
		t.Error("SemVer() ok for a non-SemVer version")
	}
}

func TestArchesAndSplitList(t *testing.T) {
	g := New()
	g.AddNode(&Node{Version: "1.0.0+amd64", Metadata: map[string]string{KeyArch: "amd64"}})
	g.AddNode(&Node{Version: "1.0.0+multi", Metadata: map[string]string{KeyArch: " s390x , arm64,"}})
	g.AddNode(&Node{Version: "1.0.0+x"})
	g.AddNode(&Node{Version: "0.9.0+ppc64le", Abstract: true})
	if got, want := g.Arches(), []string{"amd64", "arm64", "s390x"}; !slices.Equal(got, want) {
		t.Errorf("Arches = %v, want %v", got, want)
	}
	if got, want := SplitList(" a, b ,,c "), []string{"a", "b", "", "c"}; !slices.Equal(got, want) {
		t.Errorf("SplitList = %q, want %q", got, want)
	}
}

func TestCheckAcyclic(t *testing.T) {
	for _, tc := range []struct {
		name  string
		n     int
		edges [][2]int
		cycle []string // nil: acyclic; otherwise the versions in the error
	}{
		{"empty", 0, nil, nil},
		{"diamond", 4, [][2]int{{0, 1}, {0, 2}, {1, 3}, {2, 3}}, nil},
		{"self-loop", 2, [][2]int{{0, 1}, {1, 1}}, []string{"1.0.0 -> 1.0.0"}},
		{"triangle", 4, [][2]int{{0, 1}, {1, 2}, {2, 3}, {3, 1}}, []string{"1.0.0", "2.0.0", "3.0.0"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := New()
			for i := 0; i < tc.n; i++ {
				g.AddNode(&Node{Version: fmt.Sprintf("%d.0.0", i)})
			}
			for _, e := range tc.edges {
				g.AddEdge(e[0], e[1])
			}
			err := g.CheckAcyclic()
			if tc.cycle == nil {
				if err != nil {
					t.Fatalf("CheckAcyclic = %v, want nil", err)
				}
				return
			}
			var ce *CycleError
			if !errors.As(err, &ce) {
				t.Fatalf("CheckAcyclic = %v, want *CycleError", err)
			}
			for _, s := range tc.cycle {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("error %q does not name %q", err, s)
				}
			}
			if strings.Contains(err.Error(), "0.0.0") {
				t.Errorf("error %q names 0.0.0, which is not on the cycle", err)
			}
		})
	}
}

// TestCheckAcyclicLongChain guards against recursion: a 100k-release chain
// must be checked without growing the goroutine stack per node.
func TestCheckAcyclicLongChain(t *testing.T) {
	const n = 100_000
	g := New()
	for i := 0; i < n; i++ {
		if _, err := g.AddNode(&Node{Version: fmt.Sprintf("1.0.%d", i), Abstract: true}); err != nil {
			t.Fatal(err)
		}
	}
	for i := 0; i+1 < n; i++ {
		g.AddEdge(i, i+1)
	}
	if err := g.CheckAcyclic(); err != nil {
		t.Fatalf("CheckAcyclic on a chain = %v", err)
	}
	g.AddEdge(n-1, 0)
	var ce *CycleError
	if err := g.CheckAcyclic(); !errors.As(err, &ce) {
		t.Fatalf("CheckAcyclic on a ring = %v, want *CycleError", err)
	}
	if len(ce.Versions) != n+1 || ce.Versions[0] != ce.Versions[n] {
		t.Errorf("ring cycle has %d versions (first %q, last %q), want %d closed", len(ce.Versions), ce.Versions[0], ce.Versions[len(ce.Versions)-1], n+1)
	}
}

// TestRemoveEdgesInto: removing a batch of sources' edges into a node
// leaves the graph RemoveEdge one by one leaves, and counts the edges.
func TestRemoveEdgesInto(t *testing.T) {
	build := func() *Graph {
		g := New()
		for i := range 8 {
			g.AddNode(&Node{Version: fmt.Sprintf("1.%d.0", i)})
		}
		for from := range 7 {
			for to := from + 1; to < 8; to++ {
				if (from+to)%3 != 0 {
					g.AddEdge(from, to)
				}
			}
		}
		return g
	}
	for _, tc := range []struct {
		to      int
		sources []int
	}{
		{7, nil}, {7, []int{0, 1, 2, 3, 4, 5, 6}}, {7, []int{1, 3, 3, 6}}, {7, []int{0, 2, 5}},
		{5, []int{0, 1, 2, 3, 4, 6, 7}}, {0, []int{1, 2}}, {4, []int{0, 3}},
	} {
		want, got := build(), build()
		removed := 0
		for _, from := range tc.sources {
			if want.RemoveEdge(from, tc.to) {
				removed++
			}
		}
		if n := got.RemoveEdgesInto([]int{tc.to}, [][]int{tc.sources}); n != removed {
			t.Errorf("RemoveEdgesInto(%d, %v) = %d, want %d", tc.to, tc.sources, n, removed)
		}
		if got.EdgeCount() != want.EdgeCount() || !slices.Equal(got.Edges(), want.Edges()) {
			t.Errorf("RemoveEdgesInto(%d, %v): edges %v, want %v", tc.to, tc.sources, got.Edges(), want.Edges())
		}
		sameLists(t, got, want)
	}
	// Several targets at once.
	want, got := build(), build()
	targets, sources := []int{3, 5, 7}, [][]int{{0, 1, 2}, {0, 1, 2, 3}, {1, 2, 6}}
	for k, to := range targets {
		for _, from := range sources[k] {
			want.RemoveEdge(from, to)
		}
	}
	got.RemoveEdgesInto(targets, sources)
	if got.EdgeCount() != want.EdgeCount() || !slices.Equal(got.Edges(), want.Edges()) {
		t.Errorf("RemoveEdgesInto(%v, %v): edges %v, want %v", targets, sources, got.Edges(), want.Edges())
	}
	sameLists(t, got, want)
}

func sameLists(t *testing.T, got, want *Graph) {
	t.Helper()
	for i := range want.Len() {
		if !slices.Equal(got.Parents(i), want.Parents(i)) || !slices.Equal(got.Children(i), want.Children(i)) {
			t.Errorf("node %d parents %v children %v, want %v %v", i, got.Parents(i), got.Children(i), want.Parents(i), want.Children(i))
		}
	}
}

// TestAssembleMatchesOneByOne compares Assemble and AssembleOwned, which
// resolve versions on every core, with adding nodes and edges one by one
// in release order, on random release sets of several hundred releases
// (more than one worker's run): the same nodes in the same order
// (abstract ones where first named), the same sorted edge lists.
func TestAssembleMatchesOneByOne(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for round := range 20 {
		var releases []Release
		for n := range 150 + rng.IntN(150) {
			for _, arch := range []string{"amd64", "arm64", "s390x"}[:1+rng.IntN(3)] {
				var prev, next []string
				for range rng.IntN(12) {
					// Lower versions, some never released (abstract).
					prev = append(prev, fmt.Sprintf("1.%d.%d", rng.IntN(n+1), rng.IntN(2)*7))
				}
				if rng.IntN(10) == 0 {
					next = append(next, fmt.Sprintf("2.%d.0", rng.IntN(5)))
				}
				v := fmt.Sprintf("1.%d.0+%s", n+1, arch)
				releases = append(releases, rel(v, v, v, prev, next))
			}
		}
		want := New()
		for _, r := range releases {
			want.AddNode(&Node{Version: r.Version.String(), Payload: r.Payload, Metadata: r.Metadata})
		}
		for _, r := range releases {
			self, _ := want.Lookup(r.Version.String())
			for _, p := range r.Previous {
				want.AddEdge(want.ensure(p.StringWithBuild(r.Version.Build())), self)
			}
			for _, n := range r.Next {
				want.AddEdge(self, want.ensure(n.StringWithBuild(r.Version.Build())))
			}
		}
		for _, assemble := range []func([]Release) (*Graph, error){Assemble, AssembleOwned} {
			g, err := assemble(releases)
			if err != nil {
				t.Fatal(err)
			}
			if g.Len() != want.Len() || g.EdgeCount() != want.EdgeCount() {
				t.Fatalf("round %d: %d nodes, %d edges; want %d, %d", round, g.Len(), g.EdgeCount(), want.Len(), want.EdgeCount())
			}
			for i := range g.Len() {
				if g.Node(i).Version != want.Node(i).Version || g.Node(i).Abstract != want.Node(i).Abstract {
					t.Fatalf("round %d: node %d is %s (abstract %v), want %s", round, i, g.Node(i).Version, g.Node(i).Abstract, want.Node(i).Version)
				}
				if !slices.Equal(g.ChildrenView(i), want.ChildrenView(i)) || !slices.Equal(g.ParentsView(i), want.ParentsView(i)) {
					t.Fatalf("round %d: node %s: children %v, parents %v; want %v, %v", round, g.Node(i).Version,
						g.ChildrenView(i), g.ParentsView(i), want.ChildrenView(i), want.ParentsView(i))
				}
			}
		}
	}
}

func TestAssembleOwnedTakesMetadata(t *testing.T) {
	r := rel("1.0.0+amd64", "a", "a", nil, nil)
	g, err := AssembleOwned([]Release{r})
	if err != nil {
		t.Fatal(err)
	}
	g.Node(0).Metadata["x"] = "y"
	if r.Metadata["x"] != "y" {
		t.Error("AssembleOwned copied the release's metadata map")
	}
}

// TestSortedOrderKept: the order SortedOrder keeps follows added nodes,
// and what a caller does to its copy does not change the next answer.
func TestSortedOrderKept(t *testing.T) {
	g := New()
	for _, v := range []string{"2.0.0", "1.0.0"} {
		g.AddNode(&Node{Version: v})
	}
	first := g.SortedOrder()
	if !slices.Equal(first, []int{1, 0}) {
		t.Fatalf("SortedOrder = %v, want [1 0]", first)
	}
	first[0] = 7
	if got := g.SortedOrder(); !slices.Equal(got, []int{1, 0}) {
		t.Errorf("SortedOrder after the caller changed its copy = %v, want [1 0]", got)
	}
	g.AddNode(&Node{Version: "1.5.0"})
	if got := g.SortedOrder(); !slices.Equal(got, []int{1, 2, 0}) {
		t.Errorf("SortedOrder after adding 1.5.0 = %v, want [1 2 0]", got)
	}
}

// TestCheckAcyclicAfterAddEdge: a graph found acyclic is checked again
// once an edge is added; removing edges keeps it acyclic.
func TestCheckAcyclicAfterAddEdge(t *testing.T) {
	g := New()
	for _, v := range []string{"1.0.0", "2.0.0", "3.0.0"} {
		g.AddNode(&Node{Version: v})
	}
	g.AddEdge(0, 1)
	g.AddEdge(1, 2)
	if err := g.CheckAcyclic(); err != nil {
		t.Fatal(err)
	}
	g.RemoveEdge(1, 2)
	if err := g.CheckAcyclic(); err != nil {
		t.Fatalf("after a removal: %v", err)
	}
	g.AddEdge(1, 0)
	var ce *CycleError
	if err := g.CheckAcyclic(); !errors.As(err, &ce) {
		t.Fatalf("after adding 2.0.0 -> 1.0.0: CheckAcyclic = %v, want a cycle", err)
	}
}

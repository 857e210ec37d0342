package edges

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/upgraph/upgraph/release/graph"
)

// node describes a test node: version, optional metadata, abstract flag.
type node struct {
	v        string
	md       map[string]string
	abstract bool
}

// build returns a graph of the given nodes (payload image:<version>) and
// edges, given as index pairs.
func build(t *testing.T, nodes []node, edges [][2]int) *graph.Graph {
	t.Helper()
	g := graph.New()
	for _, n := range nodes {
		gn := &graph.Node{Version: n.v, Abstract: n.abstract}
		if !n.abstract {
			gn.Payload = "image:" + n.v
			gn.Metadata = map[string]string{}
			for k, v := range n.md {
				gn.Metadata[k] = v
			}
		}
		if _, err := g.AddNode(gn); err != nil {
			t.Fatal(err)
		}
	}
	for _, e := range edges {
		g.AddEdge(e[0], e[1])
	}
	return g
}

// plain returns the numbered test nodes 0.0.0, 1.0.0, … with metadata md[i].
func plain(n int, md map[int]map[string]string) []node {
	out := make([]node, n)
	for i := range out {
		out[i] = node{v: fmt.Sprintf("%d.0.0", i), md: md[i]}
	}
	return out
}

// edgeLines lists g's edges as sorted "from -> to" lines.
func edgeLines(g *graph.Graph) []string {
	out := []string{}
	for _, e := range g.Edges() {
		out = append(out, g.Node(e[0]).Version+" -> "+g.Node(e[1]).Version)
	}
	slices.Sort(out)
	return out
}

// pairs turns index pairs over the plain test nodes into sorted edge lines.
func pairs(ps ...[2]int) []string {
	out := []string{}
	for _, p := range ps {
		out = append(out, fmt.Sprintf("%d.0.0 -> %d.0.0", p[0], p[1]))
	}
	slices.Sort(out)
	return out
}

// TestUpstreamTable mirrors the edge-add-remove unit tests of spec §10.2,
// with an arbitrary key prefix.
func TestUpstreamTable(t *testing.T) {
	const p = "test_prefix"
	const (
		prevAdd = p + ".previous.add"
		nextAdd = p + ".next.add"
		prevRm  = p + ".previous.remove"
		nextRm  = p + ".next.remove"
	)
	type md = map[int]map[string]string
	for _, tc := range []struct {
		name     string
		n        int
		md       md
		in, want [][2]int
		warnings int
	}{
		{"previous.remove", 3, md{2: {prevRm: "0.0.0, 1.0.0"}},
			[][2]int{{0, 1}, {0, 2}, {1, 2}}, [][2]int{{0, 1}}, 0},
		{"previous.remove *", 4, md{2: {prevRm: "*"}},
			[][2]int{{0, 1}, {0, 2}, {1, 2}, {2, 3}}, [][2]int{{0, 1}, {2, 3}}, 0},
		{"previous.remove * with spaces", 3, md{2: {prevRm: " * "}},
			[][2]int{{0, 1}, {0, 2}, {1, 2}}, [][2]int{{0, 1}}, 0},
		{"next.remove", 3, md{0: {nextRm: "1.0.0, 2.0.0"}, 1: {nextRm: "2.0.0"}},
			[][2]int{{0, 1}, {0, 2}, {1, 2}}, nil, 0},
		{"previous.add", 3, md{2: {prevAdd: "0.0.0, 1.0.0"}},
			[][2]int{{0, 1}}, [][2]int{{0, 1}, {0, 2}, {1, 2}}, 0},
		{"next.add", 4, md{0: {nextAdd: "3.0.0 , 2.0.0"}},
			[][2]int{{0, 1}, {1, 2}, {2, 3}}, [][2]int{{0, 1}, {1, 2}, {2, 3}, {0, 2}, {0, 3}}, 0},
		{"contradicting inter-node", 3, md{
			0: {nextAdd: "1.0.0"},
			1: {prevRm: "0.0.0", nextRm: "2.0.0"},
			2: {prevAdd: "1.0.0"},
		}, [][2]int{{0, 1}, {1, 2}}, nil, 0},
		{"contradicting intra-node", 3, md{
			0: {nextAdd: "1.0.0", nextRm: "1.0.0"},
			2: {prevRm: "1.0.0", prevAdd: "1.0.0"},
		}, nil, nil, 0},
		{"contradicting mixed", 4, md{
			0: {nextAdd: "1.0.0", nextRm: "1.0.0"},
			1: {prevAdd: "0.0.0", nextAdd: "2.0.0", nextRm: "2.0.0"},
			2: {prevAdd: "1.0.0"},
			3: {prevRm: "2.0.0", prevAdd: "2.0.0"},
		}, nil, nil, 0},
		{"no duplicate edges", 2, md{0: {nextAdd: "1.0.0"}, 1: {prevAdd: "0.0.0"}},
			[][2]int{{0, 1}}, [][2]int{{0, 1}}, 0},
		{"removing missing edges", 2, md{0: {nextRm: "1.0.0"}, 1: {prevRm: "1.0.0"}},
			nil, nil, 0},
		{"unknown versions", 1, md{0: {prevAdd: "1.0.0", nextAdd: "1.0.0", prevRm: "1.0.0", nextRm: "1.0.0"}},
			nil, nil, 4},
		{"default-prefix keys are ignored under another prefix", 2, md{1: {graph.KeyPreviousRemove: "*"}},
			[][2]int{{0, 1}}, [][2]int{{0, 1}}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := build(t, plain(tc.n, tc.md), tc.in)
			warnings, err := Apply(g, Options{KeyPrefix: p})
			if err != nil {
				t.Fatalf("Apply: %v", err)
			}
			if got, want := edgeLines(g), pairs(tc.want...); !slices.Equal(got, want) {
				t.Errorf("edges = %v, want %v", got, want)
			}
			if len(warnings) != tc.warnings {
				t.Errorf("warnings = %q, want %d", warnings, tc.warnings)
			}
			// remove_consumed_metadata defaults to false: every key stays.
			for i, n := range g.Nodes() {
				for k := range tc.md[i] {
					if _, ok := n.Metadata[k]; !ok {
						t.Errorf("node %s lost %s", n.Version, k)
					}
				}
			}
		})
	}
}

// TestRealDataRegression stands in for upstream's index-invalidation
// fixture (not available offline): a real graph with previous.add,
// previous.remove and remove_regex metadata is processed without error and
// loses edges.
func TestRealDataRegression(t *testing.T) {
	path := filepath.Join("..", "..", "..", "shared", "conformance", "20200220.104838", "graph-gb-with-quay-metadata.json")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Skipf("conformance data not available: %v", err)
	}
	g, err := graph.Decode(path, data)
	if err != nil {
		t.Fatal(err)
	}
	before := edgeLines(g)
	if _, err := Apply(g, Options{}); err != nil {
		t.Fatalf("Apply: %v", err)
	}
	after := edgeLines(g)
	if slices.Equal(before, after) {
		t.Fatal("Apply did not change the edges of a graph carrying removal metadata")
	}
	if len(after) != 466 {
		t.Errorf("%d edges after processing, want 466 (spec §10.1)", len(after))
	}
}

func TestArchAnnotation(t *testing.T) {
	amd := func(extra map[string]string) map[string]string {
		m := map[string]string{graph.KeyArch: "amd64"}
		for k, v := range extra {
			m[k] = v
		}
		return m
	}
	nodes := []node{
		{v: "4.0.9+amd64", md: amd(nil)},
		{v: "4.0.9+arm64", md: map[string]string{graph.KeyArch: "arm64"}},
		{v: "4.0.9", md: nil},
		{v: "4.1.0+amd64", md: amd(nil)},
		{v: "4.2.0+amd64", md: amd(map[string]string{graph.KeyPreviousAdd: "4.0.9, 4.1.0"})},
	}
	g := build(t, nodes, [][2]int{{3, 4}})
	warnings, err := Apply(g, Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"4.0.9+amd64 -> 4.2.0+amd64", "4.1.0+amd64 -> 4.2.0+amd64"}
	if got := edgeLines(g); !slices.Equal(got, want) {
		t.Errorf("edges = %v, want %v", got, want)
	}
	if len(warnings) != 0 {
		t.Errorf("warnings = %q", warnings)
	}
}

func TestArchAnnotationOtherKeys(t *testing.T) {
	// next.add, previous.remove and next.remove are annotated the same way;
	// the holder's arch replaces any build an item carries.
	nodes := []node{
		{v: "1.0.0+s390x", md: map[string]string{graph.KeyArch: "s390x", graph.KeyNextAdd: "3.0.0+amd64", graph.KeyNextRemove: "2.0.0"}},
		{v: "2.0.0+s390x", md: map[string]string{graph.KeyArch: "s390x"}},
		{v: "2.0.0", md: nil},
		{v: "3.0.0+s390x", md: map[string]string{graph.KeyArch: "s390x", graph.KeyPreviousRemove: "2.0.0"}},
		{v: "3.0.0+amd64", md: map[string]string{graph.KeyArch: "amd64"}},
	}
	g := build(t, nodes, [][2]int{{0, 1}, {1, 3}, {2, 3}})
	if _, err := Apply(g, Options{}); err != nil {
		t.Fatal(err)
	}
	want := []string{"1.0.0+s390x -> 3.0.0+s390x", "2.0.0 -> 3.0.0+s390x"}
	if got := edgeLines(g); !slices.Equal(got, want) {
		t.Errorf("edges = %v, want %v", got, want)
	}
}

func TestTrailingComma(t *testing.T) {
	t.Run("arch-annotated holder fails", func(t *testing.T) {
		g := build(t, []node{
			{v: "4.0.9+amd64", md: map[string]string{graph.KeyArch: "amd64"}},
			{v: "4.1.0+amd64", md: map[string]string{graph.KeyArch: "amd64"}},
			{v: "4.2.0+amd64", md: map[string]string{graph.KeyArch: "amd64", graph.KeyPreviousAdd: "4.0.9, 4.1.0,"}},
		}, nil)
		_, err := Apply(g, Options{})
		if err == nil {
			t.Fatal("Apply succeeded, want an error for the empty item")
		}
		for _, s := range []string{"4.2.0+amd64", graph.KeyPreviousAdd} {
			if !strings.Contains(err.Error(), s) {
				t.Errorf("error %q does not name %q", err, s)
			}
		}
	})
	t.Run("non-SemVer item on arch-annotated holder fails", func(t *testing.T) {
		g := build(t, []node{
			{v: "4.2.0+amd64", md: map[string]string{graph.KeyArch: "amd64", graph.KeyNextRemove: "4.3"}},
		}, nil)
		if _, err := Apply(g, Options{}); err == nil || !strings.Contains(err.Error(), graph.KeyNextRemove) {
			t.Errorf("Apply error = %v, want one naming %s", err, graph.KeyNextRemove)
		}
	})
	t.Run("holder without arch only warns", func(t *testing.T) {
		g := build(t, plain(3, map[int]map[string]string{2: {graph.KeyPreviousAdd: "0.0.0, 1.0.0,"}}), nil)
		warnings, err := Apply(g, Options{})
		if err != nil {
			t.Fatalf("Apply: %v", err)
		}
		if got, want := edgeLines(g), pairs([2]int{0, 2}, [2]int{1, 2}); !slices.Equal(got, want) {
			t.Errorf("edges = %v, want %v", got, want)
		}
		if len(warnings) != 1 {
			t.Errorf("warnings = %q, want one for the empty item", warnings)
		}
	})
}

func TestRemoveRegex(t *testing.T) {
	amd := map[string]string{graph.KeyArch: "amd64"}
	sources := []node{
		{v: "4.1.1+amd64", md: amd},
		{v: "4.1.2+amd64", md: amd},
		{v: "4.1.10+amd64", md: amd},
		{v: "4.1.18+amd64", md: amd},
		{v: "4.1.19+amd64", md: amd},
		{v: "4.1.20+amd64", md: amd},
		{v: "4.1.180+amd64", md: amd},
		{v: "4.0.9+amd64", abstract: true},
	}
	for _, tc := range []struct {
		name, regex string
		kept        []string // sources whose edge into the holder survives
	}{
		{"match all removes abstract sources too", ".*", nil},
		{"unanchored", `4\.1\.1`, []string{"4.0.9+amd64", "4.1.2+amd64", "4.1.20+amd64"}},
		{"anchored with suffix", `^4\.1\.(18|20)[+].*$`, []string{"4.0.9+amd64", "4.1.1+amd64", "4.1.10+amd64", "4.1.180+amd64", "4.1.19+amd64", "4.1.2+amd64"}},
		{"alternation from several files", `^4\.0\.|4\.1\.2[+]|.*\.19[+]`, []string{"4.1.1+amd64", "4.1.10+amd64", "4.1.18+amd64", "4.1.180+amd64", "4.1.20+amd64"}},
		{"dot-star with spaces is a regex, not the shortcut", " .*", []string{"4.0.9+amd64", "4.1.1+amd64", "4.1.10+amd64", "4.1.18+amd64", "4.1.180+amd64", "4.1.19+amd64", "4.1.2+amd64", "4.1.20+amd64"}},
		{"matches the abstract source", `^4\.0\.9\+amd64$`, []string{"4.1.1+amd64", "4.1.10+amd64", "4.1.18+amd64", "4.1.180+amd64", "4.1.19+amd64", "4.1.2+amd64", "4.1.20+amd64"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			nodes := append(slices.Clone(sources),
				node{v: "4.2.0-rc.5+amd64", md: map[string]string{graph.KeyArch: "amd64", graph.KeyRemoveRegex: tc.regex}},
				node{v: "4.2.0+amd64", md: amd})
			holder := len(sources)
			var in [][2]int
			for i := range sources {
				in = append(in, [2]int{i, holder}, [2]int{i, holder + 1})
			}
			g := build(t, nodes, in)
			if _, err := Apply(g, Options{}); err != nil {
				t.Fatal(err)
			}
			var kept []string
			for _, p := range g.Parents(holder) {
				kept = append(kept, g.Node(p).Version)
			}
			slices.Sort(kept)
			if !slices.Equal(kept, tc.kept) {
				t.Errorf("sources kept = %v, want %v", kept, tc.kept)
			}
			if got := len(g.Parents(holder + 1)); got != len(sources) {
				t.Errorf("a node without the key lost edges: %d parents, want %d", got, len(sources))
			}
		})
	}
}

func TestRemoveRegexInvalid(t *testing.T) {
	g := build(t, []node{
		{v: "1.0.0"},
		{v: "2.0.0", md: map[string]string{graph.KeyRemoveRegex: `1\.0\.(`}},
	}, [][2]int{{0, 1}})
	_, err := Apply(g, Options{})
	if err == nil {
		t.Fatal("Apply succeeded with an invalid regex")
	}
	for _, s := range []string{"2.0.0", graph.KeyRemoveRegex, "does not compile"} {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("error %q does not contain %q", err, s)
		}
	}
}

func TestAddCycle(t *testing.T) {
	for _, tc := range []struct {
		name string
		n    int
		md   map[int]map[string]string
		in   [][2]int
		want []string
	}{
		{"previous.add closes a cycle", 3, map[int]map[string]string{0: {graph.KeyPreviousAdd: "2.0.0"}},
			[][2]int{{0, 1}, {1, 2}}, []string{"cycle", "0.0.0", "1.0.0", "2.0.0"}},
		{"next.add closes a cycle", 2, map[int]map[string]string{1: {graph.KeyNextAdd: "0.0.0"}},
			[][2]int{{0, 1}}, []string{"cycle", "0.0.0", "1.0.0"}},
		{"two adds form a cycle", 2, map[int]map[string]string{0: {graph.KeyNextAdd: "1.0.0"}, 1: {graph.KeyNextAdd: "0.0.0"}},
			nil, []string{"cycle", "0.0.0", "1.0.0"}},
		{"self-loop", 1, map[int]map[string]string{0: {graph.KeyPreviousAdd: "0.0.0"}},
			nil, []string{"0.0.0", "self-loop"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := build(t, plain(tc.n, tc.md), tc.in)
			_, err := Apply(g, Options{})
			if err == nil {
				t.Fatal("Apply succeeded, want a cycle error")
			}
			for _, s := range tc.want {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("error %q does not contain %q", err, s)
				}
			}
		})
	}
}

// TestCycleRemovedLaterStillFails: adds are checked before removals run, as
// upstream fails on the add itself.
func TestCycleRemovedLaterStillFails(t *testing.T) {
	g := build(t, plain(2, map[int]map[string]string{
		1: {graph.KeyNextAdd: "0.0.0", graph.KeyNextRemove: "0.0.0"},
	}), [][2]int{{0, 1}})
	if _, err := Apply(g, Options{}); err == nil {
		t.Fatal("Apply succeeded, want a cycle error")
	}
}

func TestRemoveConsumedMetadata(t *testing.T) {
	keys := []string{graph.KeyPreviousAdd, graph.KeyNextAdd, graph.KeyPreviousRemove, graph.KeyRemoveRegex, graph.KeyNextRemove}
	md := map[string]string{
		graph.KeyPreviousAdd:    "0.0.0",
		graph.KeyNextAdd:        "2.0.0",
		graph.KeyPreviousRemove: "9.9.9",
		graph.KeyRemoveRegex:    `^9\.`,
		graph.KeyNextRemove:     "9.9.9",
		graph.KeyChannels:       "a-1",
		"url":                   "https://example.com",
	}
	for _, consume := range []bool{false, true} {
		t.Run(fmt.Sprint("consume=", consume), func(t *testing.T) {
			g := build(t, plain(3, map[int]map[string]string{1: md}), nil)
			if _, err := Apply(g, Options{RemoveConsumedMetadata: consume}); err != nil {
				t.Fatal(err)
			}
			got := g.Node(1).Metadata
			for _, k := range keys {
				if _, ok := got[k]; ok == consume {
					t.Errorf("key %s present = %v with RemoveConsumedMetadata=%v", k, ok, consume)
				}
			}
			for _, k := range []string{graph.KeyChannels, "url"} {
				if got[k] != md[k] {
					t.Errorf("unrelated key %s = %q, want %q", k, got[k], md[k])
				}
			}
			if want := pairs([2]int{0, 1}, [2]int{1, 2}); !slices.Equal(edgeLines(g), want) {
				t.Errorf("edges = %v, want %v", edgeLines(g), want)
			}
		})
	}
}

func TestRemoveAllValue(t *testing.T) {
	g := build(t, plain(3, map[int]map[string]string{
		1: {graph.KeyPreviousRemove: "ALL"},
		2: {graph.KeyPreviousRemove: "*"},
	}), [][2]int{{0, 1}, {0, 2}, {1, 2}})
	warnings, err := Apply(g, Options{RemoveAllValue: "ALL"})
	if err != nil {
		t.Fatal(err)
	}
	// "*" is then an ordinary (unknown) version.
	if got, want := edgeLines(g), pairs([2]int{0, 2}, [2]int{1, 2}); !slices.Equal(got, want) {
		t.Errorf("edges = %v, want %v", got, want)
	}
	if len(warnings) != 1 {
		t.Errorf("warnings = %q, want one for the unknown version *", warnings)
	}
}

// --- conditional edges (spec §4.5) ---

func risk(name string) graph.Risk {
	return graph.Risk{URL: "https://example.com/" + name, Name: name, Message: name + " happens.",
		MatchingRules: []graph.MatchingRule{{Type: "Always"}}}
}

func decl(from, to string, r graph.Risk) graph.Declaration {
	return graph.Declaration{From: regexp.MustCompile(from), To: to, Risk: r, Source: "blocked-edges/" + to + "-" + r.Name + ".yaml"}
}

// groups renders conditional groups order-insensitively: one line per group,
// "risk1,risk2: from>to from>to" with edges sorted, lines sorted.
func groups(ces []graph.ConditionalEdge) []string {
	out := []string{}
	for _, ce := range ces {
		var names, es []string
		for _, r := range ce.Risks {
			names = append(names, r.Name)
		}
		for _, e := range ce.Edges {
			es = append(es, e.From+">"+e.To)
		}
		slices.Sort(es)
		out = append(out, strings.Join(names, ",")+": "+strings.Join(es, " "))
	}
	slices.Sort(out)
	return out
}

// riskGraph: 4.6.1, 4.6.2, 4.7.0 → 4.7.4 (amd64); 4.6.1 → 4.7.4 (arm64);
// an abstract 4.5.0+amd64 → 4.7.4+amd64; 4.6.1+amd64 → 4.6.2+amd64.
func riskGraph(t *testing.T, targetMD map[string]string) *graph.Graph {
	amd := map[string]string{graph.KeyArch: "amd64"}
	arm := map[string]string{graph.KeyArch: "arm64"}
	tmd := map[string]string{graph.KeyArch: "amd64"}
	for k, v := range targetMD {
		tmd[k] = v
	}
	return build(t, []node{
		{v: "4.6.1+amd64", md: amd},        // 0
		{v: "4.6.2+amd64", md: amd},        // 1
		{v: "4.7.0+amd64", md: amd},        // 2
		{v: "4.7.4+amd64", md: tmd},        // 3
		{v: "4.6.1+arm64", md: arm},        // 4
		{v: "4.7.4+arm64", md: arm},        // 5
		{v: "4.5.0+amd64", abstract: true}, // 6
	}, [][2]int{{0, 3}, {1, 3}, {2, 3}, {4, 5}, {6, 3}, {0, 1}})
}

func TestConditional(t *testing.T) {
	a, b := risk("A"), risk("B")
	for _, tc := range []struct {
		name  string
		decls []graph.Declaration
		want  []string
	}{
		{"two declarations group by ordered risk list",
			[]graph.Declaration{decl(`4\.6\..*`, "4.7.4", a), decl(`.*`, "4.7.4", b)},
			[]string{
				"A,B: 4.6.1+amd64>4.7.4+amd64 4.6.1+arm64>4.7.4+arm64 4.6.2+amd64>4.7.4+amd64",
				"B: 4.5.0+amd64>4.7.4+amd64 4.7.0+amd64>4.7.4+amd64",
			}},
		{"declaration order is risk order",
			[]graph.Declaration{decl(`.*`, "4.7.4", b), decl(`4\.6\..*`, "4.7.4", a)},
			[]string{
				"B,A: 4.6.1+amd64>4.7.4+amd64 4.6.1+arm64>4.7.4+arm64 4.6.2+amd64>4.7.4+amd64",
				"B: 4.5.0+amd64>4.7.4+amd64 4.7.0+amd64>4.7.4+amd64",
			}},
		{"duplicate declarations list the risk twice",
			[]graph.Declaration{decl(`4\.6\.1`, "4.7.4", a), decl(`4\.6\.1`, "4.7.4", a)},
			[]string{"A,A: 4.6.1+amd64>4.7.4+amd64 4.6.1+arm64>4.7.4+arm64"}},
		{"declaration matching nothing disappears",
			[]graph.Declaration{decl(`.*`, "9.9.9", a), decl(`^5\.`, "4.7.4", b)},
			[]string{}},
		{"explicit build targets one arch",
			[]graph.Declaration{decl(`4\.6\.1`, "4.7.4+arm64", a)},
			[]string{"A: 4.6.1+arm64>4.7.4+arm64"}},
		{"unanchored match against suffixed sources",
			[]graph.Declaration{decl(`amd64$`, "4.7.4", a)},
			[]string{"A: 4.5.0+amd64>4.7.4+amd64 4.6.1+amd64>4.7.4+amd64 4.6.2+amd64>4.7.4+amd64 4.7.0+amd64>4.7.4+amd64"}},
		{"other targets are separate pairs",
			[]graph.Declaration{decl(`4\.6\.1`, "4.6.2", a), decl(`4\.6\.1`, "4.7.4", a)},
			[]string{"A: 4.6.1+amd64>4.6.2+amd64 4.6.1+amd64>4.7.4+amd64 4.6.1+arm64>4.7.4+arm64"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := riskGraph(t, nil)
			g.Declarations = tc.decls
			g.Conditional = []graph.ConditionalEdge{{Edges: []graph.EdgeRef{{From: "stale", To: "stale"}}}}
			before := edgeLines(g)
			if _, err := Apply(g, Options{}); err != nil {
				t.Fatal(err)
			}
			if got := groups(g.Conditional); !slices.Equal(got, tc.want) {
				t.Errorf("conditional groups =\n  %q\nwant\n  %q", got, tc.want)
			}
			// Without remove_regex metadata, conditional edges stay in edges.
			if after := edgeLines(g); !slices.Equal(before, after) {
				t.Errorf("edges changed without removal metadata: %v -> %v", before, after)
			}
		})
	}
}

func TestConditionalRisksKeepContent(t *testing.T) {
	r := graph.Risk{URL: "u", Name: "N", Message: "m", MatchingRules: []graph.MatchingRule{{Type: "PromQL", PromQL: "group(x > 0)\n"}, {Type: "Always"}}}
	g := riskGraph(t, nil)
	g.Declarations = []graph.Declaration{decl(`4\.7\.0`, "4.7.4", r)}
	if _, err := Apply(g, Options{}); err != nil {
		t.Fatal(err)
	}
	if len(g.Conditional) != 1 || len(g.Conditional[0].Risks) != 1 {
		t.Fatalf("conditional = %+v, want one group with one risk", g.Conditional)
	}
	got := g.Conditional[0].Risks[0]
	if got.URL != r.URL || got.Name != r.Name || got.Message != r.Message || !slices.Equal(got.MatchingRules, r.MatchingRules) {
		t.Errorf("risk = %+v, want %+v", got, r)
	}
}

// TestConditionalThenRemoved: the conditional edges are computed after the
// adds and before the removals, which then delete them from edges.
func TestConditionalThenRemoved(t *testing.T) {
	g := riskGraph(t, map[string]string{
		graph.KeyRemoveRegex: `4\.6\..*|.*`,
		graph.KeyPreviousAdd: "4.6.1, 4.6.2", // already there; nothing new
	})
	g.Node(5).Metadata[graph.KeyRemoveRegex] = `4\.6\..*`
	// A release added by previous.add gets a conditional edge too.
	g.Node(5).Metadata[graph.KeyPreviousAdd] = "4.7.0"
	if _, err := g.AddNode(&graph.Node{Version: "4.7.0+arm64", Payload: "image:4.7.0+arm64", Metadata: map[string]string{graph.KeyArch: "arm64"}}); err != nil {
		t.Fatal(err)
	}
	g.Declarations = []graph.Declaration{decl(`4\.6\..*`, "4.7.4", risk("A")), decl(`.*`, "4.7.4", risk("B"))}
	if _, err := Apply(g, Options{}); err != nil {
		t.Fatal(err)
	}
	want := []string{
		"A,B: 4.6.1+amd64>4.7.4+amd64 4.6.1+arm64>4.7.4+arm64 4.6.2+amd64>4.7.4+amd64",
		"B: 4.5.0+amd64>4.7.4+amd64 4.7.0+amd64>4.7.4+amd64 4.7.0+arm64>4.7.4+arm64",
	}
	if got := groups(g.Conditional); !slices.Equal(got, want) {
		t.Errorf("conditional groups =\n  %q\nwant\n  %q", got, want)
	}
	wantEdges := []string{"4.6.1+amd64 -> 4.6.2+amd64", "4.7.0+arm64 -> 4.7.4+arm64"}
	if got := edgeLines(g); !slices.Equal(got, wantEdges) {
		t.Errorf("edges = %v, want %v", got, wantEdges)
	}
	// Every conditional edge whose target carries the full pattern is gone from edges.
	for _, ce := range g.Conditional {
		for _, e := range ce.Edges {
			if e.To == "4.7.4+amd64" && slices.Contains(edgeLines(g), e.From+" -> "+e.To) {
				t.Errorf("conditional edge %s -> %s still in edges", e.From, e.To)
			}
		}
	}
}

func TestSkipConditional(t *testing.T) {
	g := riskGraph(t, nil)
	g.Declarations = []graph.Declaration{decl(`.*`, "4.7.4", risk("A"))}
	keep := []graph.ConditionalEdge{{Risks: []graph.Risk{risk("raw")}}}
	g.Conditional = keep
	if _, err := Apply(g, Options{SkipConditional: true}); err != nil {
		t.Fatal(err)
	}
	if got := groups(g.Conditional); !slices.Equal(got, []string{"raw: "}) {
		t.Errorf("conditional = %q, want the untouched input", got)
	}
}

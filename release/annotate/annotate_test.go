package annotate

import (
	"regexp"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/upgraph/upgraph/release/edges"
	"github.com/upgraph/upgraph/release/graph"
	"github.com/upgraph/upgraph/release/graphdata"
	"github.com/upgraph/upgraph/tree/version"
)

// newGraph builds a graph of concrete nodes (versions) and abstract nodes
// (versions prefixed with "~"); md presets metadata by version.
func newGraph(t *testing.T, versions []string, md map[string]map[string]string) *graph.Graph {
	t.Helper()
	g := graph.New()
	for _, v := range versions {
		n := &graph.Node{Version: strings.TrimPrefix(v, "~"), Abstract: strings.HasPrefix(v, "~")}
		if !n.Abstract {
			n.Payload = "image:" + n.Version
			n.Metadata = map[string]string{}
			for k, val := range md[n.Version] {
				n.Metadata[k] = val
			}
		}
		if _, err := g.AddNode(n); err != nil {
			t.Fatal(err)
		}
	}
	return g
}

// meta returns the value of key on the node with version v, and whether it
// is set.
func meta(t *testing.T, g *graph.Graph, v, key string) (string, bool) {
	t.Helper()
	i, ok := g.Lookup(v)
	if !ok {
		t.Fatalf("no node %s", v)
	}
	val, ok := g.Node(i).Metadata[key]
	return val, ok
}

// expectKey checks key on every listed node: want[v] = value, or "-" for
// "must be unset".
func expectKey(t *testing.T, g *graph.Graph, key string, want map[string]string) {
	t.Helper()
	for _, v := range sortedKeys(want) {
		got, ok := meta(t, g, v, key)
		switch {
		case want[v] == "-" && ok:
			t.Errorf("%s: %s = %q, want unset", v, key, got)
		case want[v] != "-" && (!ok || got != want[v]):
			t.Errorf("%s: %s = %q (set %v), want %q", v, key, got, ok, want[v])
		}
	}
}

func sortedKeys[V any](m map[string]V) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}

func vers(ss ...string) []version.Version {
	var out []version.Version
	for _, s := range ss {
		out = append(out, version.MustParse(s))
	}
	return out
}

func block(file, to, from string) graphdata.Block {
	return graphdata.Block{File: file, Line: 1, To: version.MustParse(to), From: regexp.MustCompile(from)}
}

func riskFile(file, to, from, name string) graphdata.RiskFile {
	return graphdata.RiskFile{
		Block: block(file, to, from),
		Risk:  graph.Risk{URL: "https://example.com/" + name, Name: name, Message: name + ".", MatchingRules: []graph.MatchingRule{{Type: "Always"}}},
	}
}

func channel(name string, versions ...string) graphdata.Channel {
	return graphdata.Channel{File: "channels/" + name + ".yaml", Line: 1, Name: name, Versions: vers(versions...)}
}

func TestRawMetadata(t *testing.T) {
	const add = graph.KeyPreviousAdd
	g := newGraph(t, []string{"4.1.0+amd64", "4.1.0+s390x", "4.1.0-rc.9+amd64", "~4.1.0+arm64", "4.1.0"},
		map[string]map[string]string{"4.1.0+amd64": {add: "4.0.0"}})
	gd := &graphdata.GraphData{Raw: []graphdata.RawMetadata{
		{Version: version.MustParse("4.1.0+ignored"), Metadata: map[string]string{add: "4.1.0-rc.9", "x": "1"}},
		{Version: version.MustParse("4.1.0"), Metadata: map[string]string{add: "4.1.0-rc.4"}},
	}}
	Apply(g, gd, Options{})
	expectKey(t, g, add, map[string]string{
		"4.1.0+amd64":      "4.0.0,4.1.0-rc.9,4.1.0-rc.4",
		"4.1.0+s390x":      "4.1.0-rc.9,4.1.0-rc.4",
		"4.1.0":            "4.1.0-rc.9,4.1.0-rc.4",
		"4.1.0-rc.9+amd64": "-",
	})
	expectKey(t, g, "x", map[string]string{"4.1.0+amd64": "1", "4.1.0+s390x": "1", "4.1.0-rc.9+amd64": "-"})
	i, _ := g.Lookup("4.1.0+arm64")
	if n := g.Node(i); len(n.Metadata) != 0 {
		t.Errorf("abstract node got metadata %v", n.Metadata)
	}
}

// archGraph has the builds {"", amd64, arm64, ppc64le, s390x}; the arm64
// 4.2.11 and the ppc64le 4.2.11 are abstract.
var archGraph = []string{
	"4.2.11", "4.2.11+amd64", "4.2.11+s390x", "~4.2.11+arm64",
	"4.2.11-s390x+s390x", "4.2.11-s390x+amd64",
	"4.3.29+amd64", "4.3.29+ppc64le", "4.3.29+s390x", "~4.3.29+arm64",
}

func TestUnconditionalTargets(t *testing.T) {
	const key = graph.KeyRemoveRegex
	for _, tc := range []struct {
		name string
		to   string
		want map[string]string
	}{
		{"empty build expands over every arch, the empty build included", "4.2.11", map[string]string{
			"4.2.11": ".*", "4.2.11+amd64": ".*", "4.2.11+s390x": ".*",
			"4.2.11-s390x+s390x": "-", "4.2.11-s390x+amd64": "-", "4.3.29+amd64": "-",
		}},
		{"legacy -s390x pre-release targets s390x only", "4.2.11-s390x", map[string]string{
			"4.2.11-s390x+s390x": ".*", "4.2.11-s390x+amd64": "-", "4.2.11+s390x": "-",
		}},
		{"explicit build targets exactly that release", "4.3.29+ppc64le", map[string]string{
			"4.3.29+ppc64le": ".*", "4.3.29+amd64": "-", "4.3.29+s390x": "-",
		}},
		{"explicit build with an unknown release", "4.3.29+x", map[string]string{
			"4.3.29+ppc64le": "-", "4.3.29+amd64": "-", "4.3.29+s390x": "-",
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := newGraph(t, archGraph, nil)
			Apply(g, &graphdata.GraphData{Blocks: []graphdata.Block{block("blocked-edges/x.yaml", tc.to, ".*")}}, Options{})
			expectKey(t, g, key, tc.want)
			for _, n := range g.Nodes() {
				if n.Abstract && n.Metadata != nil {
					t.Errorf("abstract %s got metadata %v", n.Version, n.Metadata)
				}
			}
			if len(g.Declarations) != 0 {
				t.Errorf("an unconditional block declared %d conditional risks", len(g.Declarations))
			}
		})
	}
}

func TestTwoBlocksForOneTarget(t *testing.T) {
	const key = graph.KeyRemoveRegex
	for _, tc := range []struct {
		quirks   bool
		want     string
		warnings int
	}{
		{false, `^4\.1\.|^4\.2\.0`, 1},
		{true, `^4\.2\.0`, 0},
	} {
		g := newGraph(t, []string{"4.2.1+amd64", "4.2.1+s390x", "4.2.2+amd64"}, map[string]map[string]string{
			// A value from the image or raw metadata is overwritten by a block.
			"4.2.1+amd64": {key: "from-image"},
			"4.2.2+amd64": {key: "from-image"},
		})
		gd := &graphdata.GraphData{Blocks: []graphdata.Block{
			block("blocked-edges/4.2.1-a.yaml", "4.2.1", `^4\.1\.`),
			block("blocked-edges/4.2.1-b.yaml", "4.2.1", `^4\.2\.0`),
		}}
		warnings := Apply(g, gd, Options{UpstreamQuirks: tc.quirks})
		expectKey(t, g, key, map[string]string{"4.2.1+amd64": tc.want, "4.2.1+s390x": tc.want, "4.2.2+amd64": "from-image"})
		var related int
		for _, w := range warnings {
			if strings.Contains(w, "4.2.1-a.yaml") && strings.Contains(w, "4.2.1-b.yaml") {
				related++
			}
		}
		// One warning per affected release is fine too; at least one must name both files.
		if (related > 0) != (tc.warnings > 0) {
			t.Errorf("quirks=%v: warnings %q, want %d naming both files", tc.quirks, warnings, tc.warnings)
		}
	}
}

func TestRisks(t *testing.T) {
	const key = graph.KeyRemoveRegex
	g := newGraph(t, []string{"4.7.4+amd64", "4.7.4+s390x", "~4.7.4+arm64", "4.7.3+amd64"}, nil)
	gd := &graphdata.GraphData{
		Blocks: []graphdata.Block{block("blocked-edges/4.7.4.yaml", "4.7.4+amd64", `^4\.5\.`)},
		Risks: []graphdata.RiskFile{
			riskFile("blocked-edges/4.7.4-a.yaml", "4.7.4", `4\.6\..*`, "A"),
			riskFile("blocked-edges/4.7.4-b.yaml", "4.7.4", `.*`, "B"),
			riskFile("blocked-edges/4.7.3-c.yaml", "4.7.3", `4\.7\.2`, "C"),
		},
	}
	Apply(g, gd, Options{})
	expectKey(t, g, key, map[string]string{
		"4.7.4+amd64": `^4\.5\.|4\.6\..*|.*`,
		"4.7.4+s390x": `4\.6\..*|.*`,
		"4.7.3+amd64": `4\.7\.2`,
	})
	if len(g.Declarations) != 3 {
		t.Fatalf("%d declarations, want 3", len(g.Declarations))
	}
	for i, want := range []struct{ from, to, name, source string }{
		{`4\.6\..*`, "4.7.4", "A", "blocked-edges/4.7.4-a.yaml"},
		{`.*`, "4.7.4", "B", "blocked-edges/4.7.4-b.yaml"},
		{`4\.7\.2`, "4.7.3", "C", "blocked-edges/4.7.3-c.yaml"},
	} {
		d := g.Declarations[i]
		if d.From.String() != want.from || d.To != want.to || d.Risk.Name != want.name || d.Source != want.source {
			t.Errorf("declaration %d = {%s %s %s %s}, want %+v", i, d.From, d.To, d.Risk.Name, d.Source, want)
		}
	}
}

func TestRiskWithExplicitBuild(t *testing.T) {
	const key = graph.KeyRemoveRegex
	versions := []string{"4.3.29+amd64", "4.3.29+ppc64le", "4.3.29+s390x", "4.3.28+ppc64le"}
	for _, tc := range []struct {
		quirks bool
		want   map[string]string
	}{
		{false, map[string]string{"4.3.29+ppc64le": ".*", "4.3.29+amd64": "-", "4.3.29+s390x": "-", "4.3.28+ppc64le": "-"}},
		{true, map[string]string{"4.3.29+ppc64le": ".*", "4.3.29+amd64": ".*", "4.3.29+s390x": ".*", "4.3.28+ppc64le": "-"}},
	} {
		g := newGraph(t, versions, nil)
		Apply(g, &graphdata.GraphData{Risks: []graphdata.RiskFile{riskFile("blocked-edges/r.yaml", "4.3.29+ppc64le", ".*", "R")}},
			Options{UpstreamQuirks: tc.quirks})
		expectKey(t, g, key, tc.want)
		if len(g.Declarations) != 1 || g.Declarations[0].To != "4.3.29+ppc64le" {
			t.Errorf("quirks=%v: declarations %+v, want one to 4.3.29+ppc64le", tc.quirks, g.Declarations)
		}
	}
}

// TestChannelMembership is the membership table of spec §3.9.
func TestChannelMembership(t *testing.T) {
	for _, tc := range []struct {
		entry   string
		members []string
		others  []string
	}{
		{"4.2.14", []string{"4.2.14+amd64", "4.2.14+s390x", "4.2.14"}, []string{"4.2.14-rc.1+amd64", "4.2.15+amd64"}},
		{"4.2.14+amd64", []string{"4.2.14+amd64"}, []string{"4.2.14+s390x", "4.2.14"}},
		{"4.2.10-s390x", []string{"4.2.10-s390x+s390x"}, []string{"4.2.10+s390x"}},
		{"4.12.0", []string{"4.12.0+multi", "4.12.0+amd64"}, []string{"4.12.1+multi"}},
		{"4.12.0+multi", []string{"4.12.0+multi"}, []string{"4.12.0+amd64"}},
	} {
		t.Run(tc.entry, func(t *testing.T) {
			all := append(slices.Clone(tc.members), tc.others...)
			all = append(all, "~"+version.MustParse(tc.entry).WithBuild("arm64").String())
			g := newGraph(t, all, nil)
			Apply(g, &graphdata.GraphData{Channels: []graphdata.Channel{channel("stable-4.2", tc.entry)}}, Options{})
			want := map[string]string{}
			for _, v := range tc.members {
				want[v] = "stable-4.2"
			}
			for _, v := range tc.others {
				want[v] = "-"
			}
			expectKey(t, g, graph.KeyChannels, want)
			for _, n := range g.Nodes() {
				if n.Abstract && n.Metadata != nil {
					t.Errorf("abstract %s got metadata %v", n.Version, n.Metadata)
				}
			}
		})
	}
}

// TestChannelOrder is the normalisation of spec §3.9.
func TestChannelOrder(t *testing.T) {
	for _, tc := range []struct {
		channels []string
		preset   string
		want     string
	}{
		{[]string{"stable-4.2", "fast-4.3", "candidate-4.2", "fast-4.2", "candidate-4.3"}, "",
			"candidate-4.2,fast-4.2,stable-4.2,candidate-4.3,fast-4.3"},
		{[]string{"stable-4.9", "candidate-4.10", "eus-4.10", "fast-4.9"}, "",
			"candidate-4.10,eus-4.10,fast-4.9,stable-4.9"},
		{[]string{"stable-4.10", "fast-4.10", "candidate-4.10", "stable-4.9", "fast-4.9", "candidate-4.9"}, "",
			"candidate-4.10,fast-4.10,stable-4.10,candidate-4.9,fast-4.9,stable-4.9"},
		// The stream is the text after the first '-'.
		{[]string{"a-b-2", "z-a", "b-b-1"}, "", "z-a,b-b-1,a-b-2"},
		// Values from the image are normalised too, even with no channel file.
		{nil, "stable-4.1,candidate-4.1,fast-4.0", "fast-4.0,candidate-4.1,stable-4.1"},
		{[]string{"fast-4.1"}, "stable-4.1", "fast-4.1,stable-4.1"},
	} {
		t.Run(tc.want, func(t *testing.T) {
			var preset map[string]map[string]string
			if tc.preset != "" {
				preset = map[string]map[string]string{"4.1.0+amd64": {graph.KeyChannels: tc.preset}}
			}
			g := newGraph(t, []string{"4.1.0+amd64"}, preset)
			gd := &graphdata.GraphData{}
			for _, c := range tc.channels {
				gd.Channels = append(gd.Channels, channel(c, "4.1.0"))
			}
			Apply(g, gd, Options{})
			expectKey(t, g, graph.KeyChannels, map[string]string{"4.1.0+amd64": tc.want})
		})
	}
}

func TestDuplicateChannelFiles(t *testing.T) {
	for _, tc := range []struct {
		quirks bool
		want   map[string]string
	}{
		{false, map[string]string{"4.2.1+amd64": "stable-4.2", "4.2.2+amd64": "fast-4.2,stable-4.2"}},
		{true, map[string]string{"4.2.1+amd64": "stable-4.2,stable-4.2", "4.2.2+amd64": "fast-4.2,stable-4.2"}},
	} {
		g := newGraph(t, []string{"4.2.1+amd64", "4.2.2+amd64"}, nil)
		gd := &graphdata.GraphData{Channels: []graphdata.Channel{
			{File: "channels/stable-4.2.yaml", Name: "stable-4.2", Versions: vers("4.2.1")},
			{File: "channels/fast-4.2.yaml", Name: "fast-4.2", Versions: vers("4.2.2")},
			{File: "channels/stable-4.2-copy.yaml", Name: "stable-4.2", Versions: vers("4.2.1", "4.2.2")},
		}}
		warnings := Apply(g, gd, Options{UpstreamQuirks: tc.quirks})
		expectKey(t, g, graph.KeyChannels, tc.want)
		found := false
		for _, w := range warnings {
			found = found || (strings.Contains(w, "stable-4.2-copy.yaml") && strings.Contains(w, "stable-4.2"))
		}
		if !found {
			t.Errorf("quirks=%v: warnings %q do not mention the duplicate channel file", tc.quirks, warnings)
		}
	}
}

func TestChannelEntryListedTwice(t *testing.T) {
	g := newGraph(t, []string{"4.2.1+amd64"}, nil)
	Apply(g, &graphdata.GraphData{Channels: []graphdata.Channel{channel("stable-4.2", "4.2.1", "4.2.1+amd64")}}, Options{UpstreamQuirks: true})
	expectKey(t, g, graph.KeyChannels, map[string]string{"4.2.1+amd64": "stable-4.2"})
}

// TestWorkedExample runs spec §11 through graphdata.Load, Apply and edges.Apply.
func TestWorkedExample(t *testing.T) {
	fsys := fstest.MapFS{
		"version":                  {Data: []byte("1.2.0\n")},
		"raw/metadata.json":        {Data: []byte("{}")},
		"channels/fast-1.2.yaml":   {Data: []byte("name: fast-1.2\nversions: [1.1.0, 1.2.0+amd64]\n")},
		"channels/stable-1.2.yaml": {Data: []byte("name: stable-1.2\nversions: [1.1.0, 1.2.0]\n")},
		"blocked-edges/1.2.0.yaml": {Data: []byte("to: 1.2.0\nfrom: ^0\\.9\\.\n")},
		"blocked-edges/1.2.0-ExampleRisk.yaml": {Data: []byte(`to: 1.2.0
from: 1\.1\..*
url: https://bugs.example/2
name: ExampleRisk
message: Example risk.
matchingRules:
- type: PromQL
  promql:
    promql: group(example_metric)
- type: Always
`)},
	}
	gd, err := graphdata.Load(fsys, graphdata.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	g := newGraph(t, []string{"1.0.0+amd64", "1.1.0+amd64", "1.1.0+arm64", "1.2.0+amd64", "1.2.0+multi",
		"~1.0.0+arm64", "~0.9.0+amd64", "~1.1.0+multi"}, nil)
	for _, e := range [][2]string{
		{"1.0.0+amd64", "1.1.0+amd64"}, {"1.0.0+arm64", "1.1.0+arm64"}, {"1.1.0+amd64", "1.2.0+amd64"},
		{"0.9.0+amd64", "1.2.0+amd64"}, {"1.1.0+multi", "1.2.0+multi"},
	} {
		a, _ := g.Lookup(e[0])
		b, _ := g.Lookup(e[1])
		g.AddEdge(a, b)
	}
	Apply(g, gd, Options{})
	expectKey(t, g, graph.KeyRemoveRegex, map[string]string{
		"1.2.0+amd64": `^0\.9\.|1\.1\..*`, "1.2.0+multi": `^0\.9\.|1\.1\..*`,
		"1.1.0+amd64": "-", "1.0.0+amd64": "-",
	})
	expectKey(t, g, graph.KeyChannels, map[string]string{
		"1.1.0+amd64": "fast-1.2,stable-1.2", "1.1.0+arm64": "fast-1.2,stable-1.2",
		"1.2.0+amd64": "fast-1.2,stable-1.2", "1.2.0+multi": "stable-1.2", "1.0.0+amd64": "-",
	})
	if _, err := edges.Apply(g, edges.Options{}); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range g.Edges() {
		got = append(got, g.Node(e[0]).Version+" -> "+g.Node(e[1]).Version)
	}
	slices.Sort(got)
	if want := []string{"1.0.0+amd64 -> 1.1.0+amd64", "1.0.0+arm64 -> 1.1.0+arm64"}; !slices.Equal(got, want) {
		t.Errorf("edges = %v, want %v", got, want)
	}
	if len(g.Conditional) != 1 {
		t.Fatalf("conditional = %+v, want one group", g.Conditional)
	}
	var ce []string
	for _, e := range g.Conditional[0].Edges {
		ce = append(ce, e.From+" -> "+e.To)
	}
	slices.Sort(ce)
	if want := []string{"1.1.0+amd64 -> 1.2.0+amd64", "1.1.0+multi -> 1.2.0+multi"}; !slices.Equal(ce, want) {
		t.Errorf("conditional edges = %v, want %v", ce, want)
	}
	r := g.Conditional[0].Risks
	wantRules := []graph.MatchingRule{{Type: "PromQL", PromQL: "group(example_metric)"}, {Type: "Always"}}
	if len(r) != 1 || r[0].Name != "ExampleRisk" || r[0].URL != "https://bugs.example/2" || r[0].Message != "Example risk." || !slices.Equal(r[0].MatchingRules, wantRules) {
		t.Errorf("risks = %+v", r)
	}
}

// A channel naming versions no release has loses them as upstream's does,
// but not silently: one warning per channel names the file, the count and
// the first few (issue 15).
func TestChannelVersionsWithoutRelease(t *testing.T) {
	g := newGraph(t, []string{"4.2.1+amd64", "4.2.2+amd64"}, nil)
	gd := &graphdata.GraphData{Channels: []graphdata.Channel{
		{File: "channels/stable-4.2.yaml", Name: "stable-4.2", Versions: vers("4.2.1", "4.2.2")},
		{File: "channels/fast-4.2.yaml", Name: "fast-4.2", Versions: vers("4.2.0", "4.2.1", "4.2.3", "4.2.4", "4.2.5", "4.2.6", "4.2.7")},
	}}
	warnings := Apply(g, gd, Options{})
	expectKey(t, g, graph.KeyChannels, map[string]string{"4.2.1+amd64": "fast-4.2,stable-4.2", "4.2.2+amd64": "stable-4.2"})
	want := "channels/fast-4.2.yaml: channel fast-4.2 names 6 versions no release has, left out of it: 4.2.0, 4.2.3, 4.2.4, 4.2.5, 4.2.6 and 1 more (upgraph validate --releases lists each)"
	if !slices.Equal(warnings, []string{want}) {
		t.Errorf("warnings %q, want [%q]", warnings, want)
	}
}

func TestListHas(t *testing.T) {
	for _, tc := range []struct {
		list, item string
	}{
		{"", ""}, {"", "a"}, {"a", "a"}, {"a", ""}, {"a,b", "b"}, {"a,b", "a,b"}, {"ab,b", "a"},
		{"a,,b", ""}, {"a,b,", ""}, {"stable-4.2,fast-4.2", "fast-4.2"}, {"stable-4.2,fast-4.2", "fast-4"},
	} {
		want := slices.Contains(strings.Split(tc.list, ","), tc.item)
		if got := listHas(tc.list, tc.item); got != want {
			t.Errorf("listHas(%q, %q) = %v, want %v", tc.list, tc.item, got, want)
		}
	}
}

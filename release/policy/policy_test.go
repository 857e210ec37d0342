package policy

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/upgraph/upgraph/release/graph"
)

type tnode struct {
	v        string
	md       map[string]string
	abstract bool
}

func build(t *testing.T, nodes []tnode, edges [][2]int, cond []graph.ConditionalEdge) *graph.Graph {
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
	g.Conditional = cond
	return g
}

func md(channels, arch string) map[string]string {
	m := map[string]string{}
	if channels != "" {
		m[graph.KeyChannels] = channels
	}
	if arch != "" {
		m[graph.KeyArch] = arch
	}
	return m
}

// summary renders a view as "versions | edges | conditional".
func summary(v *ChannelView) string {
	var es []string
	for _, e := range v.Edges {
		es = append(es, fmt.Sprintf("%d>%d", e[0], e[1]))
	}
	var cs []string
	for _, ce := range v.ConditionalEdges() {
		var names, edges []string
		for _, r := range ce.Risks {
			names = append(names, r.Name)
		}
		for _, e := range ce.Edges {
			edges = append(edges, e.From+">"+e.To)
		}
		cs = append(cs, strings.Join(names, ",")+"["+strings.Join(edges, " ")+"]")
	}
	return strings.Join(v.Versions, ",") + " | " + strings.Join(es, " ") + " | " + strings.Join(cs, " ")
}

// TestChannelFilter is spec §10.2's channel-filter table.
func TestChannelFilter(t *testing.T) {
	nodes := []tnode{
		{v: "0.0.0", md: md("a, c", "amd64")},
		{v: "1.0.0", md: md("a, c", "amd64")},
		{v: "2.0.0", md: md("b, c", "amd64")},
		{v: "3.0.0", md: md("b, c", "amd64")},
		{v: "4.0.0", md: md("", "amd64")},
	}
	g := build(t, nodes, [][2]int{{0, 1}, {1, 2}, {2, 3}}, nil)
	ix := NewIndex(g)
	if ix.Graph() != g {
		t.Error("Index.Graph() is not the indexed graph")
	}
	for _, tc := range []struct {
		channel string
		want    string
	}{
		{"a", "0.0.0,1.0.0 | 0>1 | "},
		{"b", "2.0.0,3.0.0 | 0>1 | "},
		{"c", "0.0.0,1.0.0,2.0.0,3.0.0 | 0>1 1>2 2>3 | "},
		{"d", " |  | "},
		{"a, c", " |  | "},
		{"", " |  | "},
	} {
		t.Run(tc.channel, func(t *testing.T) {
			v := ix.View(tc.channel, DefaultArch)
			if got := summary(v); got != tc.want {
				t.Errorf("View(%q) = %q, want %q", tc.channel, got, tc.want)
			}
			if v.Channel != tc.channel || v.Arch != DefaultArch {
				t.Errorf("view labelled %q/%q", v.Channel, v.Arch)
			}
			if len(v.Nodes) != len(v.Versions) {
				t.Errorf("%d nodes but %d versions", len(v.Nodes), len(v.Versions))
			}
		})
	}
}

func TestChannelFilterDropsAbstractAndUntrimmedMatches(t *testing.T) {
	g := build(t, []tnode{
		{v: "1.0.0", abstract: true},
		{v: "1.1.0", md: md(" stable-1 ,fast-1", "amd64")},
		{v: "1.2.0", md: md("stable-10", "amd64")},
		{v: "1.3.0", md: md("stable-1,stable-1", "amd64")},
	}, [][2]int{{0, 1}, {1, 3}}, nil)
	v := NewIndex(g).View("stable-1", "amd64")
	if got, want := summary(v), "1.1.0,1.3.0 | 0>1 | "; got != want {
		t.Errorf("view = %q, want %q", got, want)
	}
}

// TestArchFilter is spec §10.2's arch-filter case.
func TestArchFilter(t *testing.T) {
	g := build(t, []tnode{
		{v: "0.0.0+amd64", md: md("c", "amd64")},
		{v: "1.0.0+amd64", md: md("c", "amd64")},
		{v: "2.0.0+arm64", md: md("c", "arm64")},
		{v: "3.0.0+arm64", md: md("c", "arm64")},
		{v: "4.0.0+multi", md: md("c", "amd64, arm64")},
		{v: "5.0.0+amd64", md: md("c", "")},
	}, [][2]int{{0, 1}, {2, 3}, {3, 4}, {1, 4}}, nil)
	ix := NewIndex(g)
	for _, tc := range []struct {
		arch, want string
	}{
		{"arm64", "2.0.0,3.0.0,4.0.0+multi | 0>1 1>2 | "},
		{"amd64", "0.0.0,1.0.0,4.0.0+multi | 0>1 1>2 | "},
		{"multi", " |  | "},
		{"s390x", " |  | "},
		{"64", " |  | "},
	} {
		t.Run(tc.arch, func(t *testing.T) {
			v := ix.View("c", tc.arch)
			if got := summary(v); got != tc.want {
				t.Errorf("View(c, %s) = %q, want %q", tc.arch, got, tc.want)
			}
			// Payloads and metadata of the graph are untouched.
			for _, i := range v.Nodes {
				n := g.Node(i)
				if n.Payload != "image:"+n.Version {
					t.Errorf("payload of %s changed to %q", n.Version, n.Payload)
				}
				if _, ok := n.Metadata[graph.KeyArch]; !ok {
					t.Errorf("View removed the arch key from the graph node %s", n.Version)
				}
			}
		})
	}
}

func TestViewNodeOrder(t *testing.T) {
	g := build(t, []tnode{
		{v: "4.10.0+amd64", md: md("s-1", "amd64")},
		{v: "4.9.1+amd64", md: md("s-1", "amd64")},
		{v: "4.10.0-rc.1+amd64", md: md("s-1", "amd64")},
		{v: "4.9.0+amd64", md: md("s-1", "amd64")},
	}, [][2]int{{3, 1}, {1, 0}, {2, 0}, {3, 2}}, nil)
	v := NewIndex(g).View("s-1", "amd64")
	if got, want := summary(v), "4.9.0,4.9.1,4.10.0-rc.1,4.10.0 | 0>1 0>2 1>3 2>3 | "; got != want {
		t.Errorf("view = %q, want %q", got, want)
	}
}

func risk(name string) graph.Risk {
	return graph.Risk{URL: "https://example.com/" + name, Name: name, Message: name, MatchingRules: []graph.MatchingRule{{Type: "Always"}}}
}

func TestConditionalEdges(t *testing.T) {
	nodes := []tnode{
		{v: "1.0.0+amd64", md: md("stable-1", "amd64")},        // 0
		{v: "1.1.0+amd64", md: md("stable-1", "amd64")},        // 1
		{v: "1.2.0+amd64", md: md("fast-1,stable-1", "amd64")}, // 2
		{v: "1.3.0+amd64", md: md("fast-1", "amd64")},          // 3
		{v: "1.0.0+arm64", md: md("stable-1", "arm64")},        // 4
		{v: "1.2.0+arm64", md: md("stable-1", "arm64")},        // 5
		{v: "0.9.0+amd64", abstract: true},                     // 6
	}
	cond := []graph.ConditionalEdge{
		{Edges: []graph.EdgeRef{
			{From: "1.0.0+amd64", To: "1.2.0+amd64"},
			{From: "1.1.0+amd64", To: "1.3.0+amd64"},
			{From: "1.0.0+arm64", To: "1.2.0+arm64"},
		}, Risks: []graph.Risk{risk("A"), risk("B")}},
		{Edges: []graph.EdgeRef{
			{From: "1.2.0+amd64", To: "1.3.0+amd64"},
			{From: "0.9.0+amd64", To: "1.2.0+amd64"},
		}, Risks: []graph.Risk{risk("B")}},
		{Edges: []graph.EdgeRef{
			{From: "1.1.0+amd64", To: "1.2.0+amd64"},
			{From: "unknown", To: "1.2.0+amd64"},
		}, Risks: []graph.Risk{risk("C")}},
	}
	g := build(t, nodes, [][2]int{{0, 1}, {6, 2}}, cond)
	ix := NewIndex(g)
	for _, tc := range []struct {
		channel, arch, want string
	}{
		// 1.3.0 is not in stable-1: its conditional edges go, and so does
		// the group left without edges.
		{"stable-1", "amd64", "1.0.0,1.1.0,1.2.0 | 0>1 | A,B[1.0.0>1.2.0] C[1.1.0>1.2.0]"},
		{"stable-1", "arm64", "1.0.0,1.2.0 |  | A,B[1.0.0>1.2.0]"},
		{"fast-1", "amd64", "1.2.0,1.3.0 |  | B[1.2.0>1.3.0]"},
		{"fast-1", "arm64", " |  | "},
		{"none", "amd64", " |  | "},
	} {
		t.Run(tc.channel+"/"+tc.arch, func(t *testing.T) {
			v := ix.View(tc.channel, tc.arch)
			if got := summary(v); got != tc.want {
				t.Errorf("view = %q, want %q", got, tc.want)
			}
			// ConditionalPairs are parallel to the flattened conditional edges.
			k := 0
			for gi, ce := range v.ConditionalEdges() {
				for _, e := range ce.Edges {
					if k >= len(v.ConditionalPairs) {
						t.Fatalf("only %d conditional pairs", len(v.ConditionalPairs))
					}
					cp := v.ConditionalPairs[k]
					if cp.Group != gi || v.Versions[cp.From] != e.From || v.Versions[cp.To] != e.To {
						t.Errorf("pair %d = %+v, want group %d %s>%s", k, cp, gi, e.From, e.To)
					}
					k++
				}
			}
			if k != len(v.ConditionalPairs) {
				t.Errorf("%d conditional pairs for %d conditional edges", len(v.ConditionalPairs), k)
			}
			bySource := slices.Clone(v.ConditionalPairs)
			slices.SortFunc(bySource, func(a, b ConditionalPair) int { return cmp.Or(a.From-b.From, a.To-b.To) })
			if !slices.Equal(bySource, v.ConditionalBySource) {
				t.Errorf("ConditionalBySource = %v, want %v", v.ConditionalBySource, bySource)
			}
		})
	}
}

// TestConditionalArchIsNotASubstring documents the deviation from upstream
// (spec §6.7, Q10): upstream keeps a conditional edge when both version
// strings contain the arch as a substring; here it needs both releases in
// the view.
func TestConditionalArchIsNotASubstring(t *testing.T) {
	g := build(t, []tnode{
		{v: "4.2.10-s390x+amd64", md: md("stable-4.2", "amd64")},
		{v: "4.2.11-s390x+amd64", md: md("stable-4.2", "amd64")},
		{v: "4.2.10-s390x+s390x", md: md("stable-4.2", "s390x")},
		{v: "4.2.11-s390x+s390x", md: md("stable-4.2", "s390x")},
	}, [][2]int{{2, 3}}, []graph.ConditionalEdge{{
		Edges: []graph.EdgeRef{{From: "4.2.10-s390x+amd64", To: "4.2.11-s390x+amd64"}},
		Risks: []graph.Risk{risk("R")},
	}})
	ix := NewIndex(g)
	for _, tc := range []struct{ arch, want string }{
		{"s390x", "4.2.10-s390x,4.2.11-s390x | 0>1 | "},
		{"amd64", "4.2.10-s390x,4.2.11-s390x |  | R[4.2.10-s390x>4.2.11-s390x]"},
		{"64", " |  | "},
		{"x", " |  | "},
	} {
		if got := summary(ix.View("stable-4.2", tc.arch)); got != tc.want {
			t.Errorf("View(stable-4.2, %s) = %q, want %q", tc.arch, got, tc.want)
		}
	}
}

func TestStripArch(t *testing.T) {
	for _, tc := range []struct{ v, arch, want string }{
		{"4.7.4+amd64", "amd64", "4.7.4"},
		{"4.2.10-s390x+s390x", "s390x", "4.2.10-s390x"},
		{"4.12.0+multi", "multi", "4.12.0"},
		{"4.7.4+amd64", "arm64", "4.7.4+amd64"},
		{"4.7.4", "amd64", "4.7.4"},
		{"4.7.4-amd64", "amd64", "4.7.4-amd64"},
		{"4.7.4+amd64.extra", "amd64", "4.7.4+extra"},
		{"4.7.4+extra.amd64", "amd64", "4.7.4+extra"},
		{"not-semver+amd64", "amd64", "not-semver+amd64"},
	} {
		if got := StripArch(tc.v, tc.arch); got != tc.want {
			t.Errorf("StripArch(%q, %q) = %q, want %q", tc.v, tc.arch, got, tc.want)
		}
	}
}

var (
	channels    = []string{"stable-4.9", "validchannel", "validchannel-0", "validchannel-0.0", "a", "4.9", "-", "eus-4.10"}
	badChannels = []string{"", "Stable-4.9", "invalid_channel", "invalid:channel", "invalid=channel", "stable 4.9", "stable+4.9", "stable-4.9\n", "stable/4.9", "ståble-4.9"}
	arches      = []string{"amd64", "arm64", "multi", "s390x", "ppc64le", "64"}
	badArches   = []string{"", "x86_64", "AMD64", "arm-64", "amd64\n", "amd64 ", "amd.64"}
)

// TestValidatorsAreThePatterns compares the hand-written checks with the
// regexps on every string of one and two bytes.
func TestValidatorsAreThePatterns(t *testing.T) {
	check := func(s string) {
		if got, want := ValidChannel(s), ChannelPattern.MatchString(s); got != want {
			t.Errorf("ValidChannel(%q) = %v, ChannelPattern says %v", s, got, want)
		}
		if got, want := ValidArch(s), ArchPattern.MatchString(s); got != want {
			t.Errorf("ValidArch(%q) = %v, ArchPattern says %v", s, got, want)
		}
	}
	check("")
	for a := range 256 {
		check(string([]byte{byte(a)}))
		for b := range 256 {
			check(string([]byte{byte(a), byte(b)}))
		}
	}
}

func TestParameterPatterns(t *testing.T) {
	for _, tc := range []struct {
		name   string
		check  func(string) bool
		accept []string
		reject []string
	}{
		{"channel", ChannelPattern.MatchString, channels, badChannels},
		{"channel without regexp", ValidChannel, channels, badChannels},
		{"arch", ArchPattern.MatchString, arches, badArches},
		{"arch without regexp", ValidArch, arches, badArches},
	} {
		for _, s := range tc.accept {
			if !tc.check(s) {
				t.Errorf("%s %q rejected, want accepted", tc.name, s)
			}
		}
		for _, s := range tc.reject {
			if tc.check(s) {
				t.Errorf("%s %q accepted, want rejected", tc.name, s)
			}
		}
	}
	if DefaultArch != "amd64" {
		t.Errorf("DefaultArch = %q, want amd64", DefaultArch)
	}
}

func TestEmptyGraph(t *testing.T) {
	v := NewIndex(graph.New()).View("stable-4.9", "amd64")
	if len(v.Nodes)+len(v.Edges)+len(v.Conditional)+len(v.ConditionalPairs) != 0 {
		t.Errorf("view of an empty graph = %+v", v)
	}
	if !slices.Equal(v.Versions, []string{}) && v.Versions != nil {
		t.Errorf("versions = %v", v.Versions)
	}
}

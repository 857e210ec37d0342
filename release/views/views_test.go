package views

import (
	"encoding/json"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/upgraph/upgraph/release/graph"
	"github.com/upgraph/upgraph/release/policy"
)

// testGraph: stable-4.1 has 4.1.0, 4.1.1, 4.1.2 on amd64 and 4.1.1 on arm64;
// an abstract 4.0.9 precedes 4.1.0; 4.1.0 → 4.1.2 is conditional.
func testGraph(t *testing.T) *graph.Graph {
	t.Helper()
	g := graph.New()
	add := func(n *graph.Node) int {
		i, err := g.AddNode(n)
		if err != nil {
			t.Fatal(err)
		}
		return i
	}
	const (
		ch  = graph.KeyChannels
		ref = graph.KeyManifestRef
		arc = graph.KeyArch
	)
	n0 := add(&graph.Node{Version: "4.1.0+amd64", Payload: "quay.io/r@sha256:a", Metadata: map[string]string{
		arc: "amd64", ch: "stable-4.1", ref: "sha256:a", "url": "https://e/1"}})
	n1 := add(&graph.Node{Version: "4.1.1+amd64", Payload: "quay.io/r@sha256:b", Metadata: map[string]string{
		arc: "amd64", ch: "stable-4.1", ref: "sha256:b", graph.KeyRemoveRegex: `4\.0\..*`}})
	n2 := add(&graph.Node{Version: "4.1.2+amd64", Payload: "quay.io/r@sha256:c", Metadata: map[string]string{
		arc: "amd64", ch: "candidate-4.1,stable-4.1", ref: "sha256:c", "description": "<b>&</b>\u2028"}})
	add(&graph.Node{Version: "4.1.1+arm64", Payload: "quay.io/r@sha256:d", Metadata: map[string]string{
		arc: "arm64", ch: "stable-4.1", ref: "sha256:d"}})
	a := add(&graph.Node{Version: "4.0.9+amd64", Abstract: true})
	g.AddEdge(a, n0)
	g.AddEdge(n0, n1)
	g.Conditional = []graph.ConditionalEdge{{
		Edges: []graph.EdgeRef{{From: "4.1.0+amd64", To: "4.1.2+amd64"}},
		Risks: []graph.Risk{{URL: "https://bugs/1?a=1&b=2", Name: "R", Message: `m "quoted"`,
			MatchingRules: []graph.MatchingRule{{Type: "PromQL", PromQL: "group(x > 0)\n"}, {Type: "Always"}}}},
	}}
	_ = n2
	return g
}

func TestChannel(t *testing.T) {
	g := testGraph(t)
	ix := policy.NewIndex(g)
	r := NewRenderer(g)
	for _, tc := range []struct {
		channel, arch, want string
	}{
		{"stable-4.1", "amd64", `{"version":1,"nodes":[` +
			`{"version":"4.1.0","payload":"quay.io/r@sha256:a","metadata":{"io.openshift.upgrades.graph.release.channels":"stable-4.1","io.openshift.upgrades.graph.release.manifestref":"sha256:a","url":"https://e/1"}},` +
			`{"version":"4.1.1","payload":"quay.io/r@sha256:b","metadata":{"io.openshift.upgrades.graph.previous.remove_regex":"4\\.0\\..*","io.openshift.upgrades.graph.release.channels":"stable-4.1","io.openshift.upgrades.graph.release.manifestref":"sha256:b"}},` +
			`{"version":"4.1.2","payload":"quay.io/r@sha256:c","metadata":{"description":"<b>&</b>` + "\u2028" + `","io.openshift.upgrades.graph.release.channels":"candidate-4.1,stable-4.1","io.openshift.upgrades.graph.release.manifestref":"sha256:c"}}` +
			`],"edges":[[0,1]],"conditionalEdges":[{"edges":[{"from":"4.1.0","to":"4.1.2"}],"risks":[{"url":"https://bugs/1?a=1&b=2","name":"R","message":"m \"quoted\"","matchingRules":[{"type":"PromQL","promql":{"promql":"group(x > 0)\n"}},{"type":"Always"}]}]}]}`},
		{"stable-4.1", "arm64", `{"version":1,"nodes":[{"version":"4.1.1","payload":"quay.io/r@sha256:d","metadata":{"io.openshift.upgrades.graph.release.channels":"stable-4.1","io.openshift.upgrades.graph.release.manifestref":"sha256:d"}}],"edges":[],"conditionalEdges":[]}`},
		{"candidate-4.1", "amd64", `{"version":1,"nodes":[{"version":"4.1.2","payload":"quay.io/r@sha256:c","metadata":{"description":"<b>&</b>` + "\u2028" + `","io.openshift.upgrades.graph.release.channels":"candidate-4.1,stable-4.1","io.openshift.upgrades.graph.release.manifestref":"sha256:c"}}],"edges":[],"conditionalEdges":[]}`},
		{"stable-4.1", "s390x", `{"version":1,"nodes":[],"edges":[],"conditionalEdges":[]}`},
		{"unknown-1", "amd64", `{"version":1,"nodes":[],"edges":[],"conditionalEdges":[]}`},
	} {
		t.Run(tc.channel+"/"+tc.arch, func(t *testing.T) {
			got := string(r.Channel(nil, ix.View(tc.channel, tc.arch)))
			if got != tc.want {
				t.Errorf("Channel =\n%s\nwant\n%s", got, tc.want)
			}
			if !json.Valid([]byte(got)) {
				t.Error("output is not valid JSON")
			}
			// Rendering again (from the node cache) gives the same bytes.
			if again := string(r.Channel(nil, ix.View(tc.channel, tc.arch))); again != got {
				t.Errorf("second rendering differs:\n%s", again)
			}
		})
	}
	// The graph keeps its arch keys: only served copies lose them.
	for _, n := range g.Nodes() {
		if _, ok := n.Metadata[graph.KeyArch]; !n.Abstract && !ok {
			t.Errorf("rendering removed the arch key from graph node %s", n.Version)
		}
	}
}

func TestVersion(t *testing.T) {
	g := testGraph(t)
	ix := policy.NewIndex(g)
	v := ix.View("stable-4.1", "amd64")
	r := NewRenderer(g)
	const (
		n0 = `{"version":"4.1.0","payload":"quay.io/r@sha256:a","metadata":{"io.openshift.upgrades.graph.release.channels":"stable-4.1","io.openshift.upgrades.graph.release.manifestref":"sha256:a","url":"https://e/1"}}`
		n1 = `{"version":"4.1.1","payload":"quay.io/r@sha256:b","metadata":{"io.openshift.upgrades.graph.previous.remove_regex":"4\\.0\\..*","io.openshift.upgrades.graph.release.channels":"stable-4.1","io.openshift.upgrades.graph.release.manifestref":"sha256:b"}}`
		n2 = `{"version":"4.1.2","payload":"quay.io/r@sha256:c","metadata":{"description":"<b>&</b>` + "\u2028" + `","io.openshift.upgrades.graph.release.channels":"candidate-4.1,stable-4.1","io.openshift.upgrades.graph.release.manifestref":"sha256:c"}}`
	)
	want := []string{
		`{"version":1,"nodes":[` + n0 + `,` + n1 + `,` + n2 + `],"edges":[[0,1]],"conditionalEdges":[{"edges":[{"from":"4.1.0","to":"4.1.2"}],"risks":[{"url":"https://bugs/1?a=1&b=2","name":"R","message":"m \"quoted\"","matchingRules":[{"type":"PromQL","promql":{"promql":"group(x > 0)\n"}},{"type":"Always"}]}]}]}`,
		`{"version":1,"nodes":[` + n1 + `],"edges":[],"conditionalEdges":[]}`,
		`{"version":1,"nodes":[` + n2 + `],"edges":[],"conditionalEdges":[]}`,
	}
	l := NewLayout(v)
	if len(l.VersionKeys) != len(want) {
		t.Fatalf("%d version keys, want %d", len(l.VersionKeys), len(want))
	}
	for p := range want {
		if got := string(r.Version(nil, l, p)); got != want[p] {
			t.Errorf("Version(%s) =\n%s\nwant\n%s", v.Versions[p], got, want[p])
		}
	}
	// Version appends to its buffer.
	if got := string(r.Version([]byte("x"), l, 1)); got != "x"+want[1] {
		t.Errorf("Version does not append: %s", got)
	}

	// Files with equal keys are byte-identical, across channels too;
	// files with different content have different keys.
	other := NewLayout(ix.View("candidate-4.1", "amd64"))
	body := map[string]string{}
	for _, lay := range []*Layout{l, other} {
		for p, key := range lay.VersionKeys {
			b := string(r.Version(nil, lay, p))
			if prev, ok := body[key]; ok && prev != b {
				t.Errorf("key %q names two different files:\n%s\n%s", key, prev, b)
			}
			body[key] = b
		}
	}
	if len(body) != 3 {
		t.Errorf("%d distinct version keys over both channels, want 3 (4.1.2 is the same file in both)", len(body))
	}
	if l.ChannelKey == other.ChannelKey {
		t.Error("two different channel graphs share a ChannelKey")
	}
	if again := NewLayout(ix.View("stable-4.1", "amd64")); again.ChannelKey != l.ChannelKey || !slices.Equal(again.VersionKeys, l.VersionKeys) {
		t.Error("keys of the same view are not stable")
	}
}

// TestFileMembers checks the merge of a file's targets against sorting
// them, for sorted target lists (as views come) and for unsorted ones.
func TestFileMembers(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for n := range 2000 {
		p := rng.IntN(12)
		var out [][2]int
		var cond []policy.ConditionalPair
		for range rng.IntN(6) {
			out = append(out, [2]int{p, rng.IntN(12)})
		}
		for range rng.IntN(6) {
			cond = append(cond, policy.ConditionalPair{From: p, To: rng.IntN(12)})
		}
		if n%3 != 0 { // sorted, as views give them
			slices.SortFunc(out, func(a, b [2]int) int { return a[1] - b[1] })
			slices.SortFunc(cond, func(a, b policy.ConditionalPair) int { return a.To - b.To })
		}
		want := []int{p}
		for _, e := range out {
			want = append(want, e[1])
		}
		for _, cp := range cond {
			want = append(want, cp.To)
		}
		slices.Sort(want)
		want = slices.Compact(want)
		if got := fileMembers(nil, p, out, cond); !slices.Equal(got, want) {
			t.Fatalf("fileMembers(%d, %v, %v) = %v, want %v", p, out, cond, got, want)
		}
	}
}

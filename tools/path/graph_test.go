package path

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/upgraph/upgraph/release/mirror"
)

// TestRandomAgainstBruteForce compares Plan with the literal definition
// on random small graphs: dense enough for many tied paths, with
// conditional edges and versions whose string order is not their SemVer
// order.
func TestRandomAgainstBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for n := range 200 {
		size := 3 + rng.IntN(7)
		versions := make([]string, size) // ascending
		for i := range versions {
			versions[i] = fmt.Sprintf("4.%d.%d", 14+i/4, i%4*5) // 4.14.0, 4.14.5, 4.14.10, 4.14.15, 4.15.0, …
		}
		// Nodes in random document order: edge indices refer to it.
		order := rng.Perm(size)
		at := make([]int, size)
		nodes := make([]string, size)
		for pos, v := range order {
			at[v] = pos
			nodes[pos] = fmt.Sprintf(`{"version":%q,"payload":"p","metadata":{}}`, versions[v])
		}
		var edges, conds []string
		for i := range size {
			for j := i + 1; j < size; j++ {
				switch rng.IntN(5) {
				case 0, 1:
					edges = append(edges, fmt.Sprintf("[%d,%d]", at[i], at[j]))
				case 2:
					conds = append(conds, fmt.Sprintf(`{"edges":[{"from":%q,"to":%q}],"risks":[{"name":"R%d","message":"m","url":"u","matchingRules":[]}]}`, versions[i], versions[j], rng.IntN(3)))
				}
			}
		}
		doc := fmt.Sprintf(`{"version":1,"nodes":[%s],"edges":[%s],"conditionalEdges":[%s]}`,
			strings.Join(nodes, ","), strings.Join(edges, ","), strings.Join(conds, ","))
		checkBruteForce(t, fmt.Sprintf("random graph %d", n), mustDecode(t, doc))
	}
}

func TestDecode(t *testing.T) {
	g, err := Decode("doc", []byte(`{"version":1,"nodes":[
		{"version":"4.16.10","payload":"a","metadata":{"k":"v"}},
		{"version":"4.16.9","payload":"b","metadata":{}},
		{"version":"4.16.0-rc.1","payload":"c","metadata":{}}],
		"edges":[[1,0],[2,1]],
		"conditionalEdges":[
			{"edges":[{"from":"4.16.0-rc.1","to":"4.16.10"}],"risks":[{"name":"B","message":"mb","url":"ub","matchingRules":[{"type":"PromQL","promql":{"promql":"x"}},{"type":"Always"}]}]},
			{"edges":[{"from":"4.16.0-rc.1","to":"4.16.10"}],"risks":[{"name":"A","message":"ma","url":"ua","matchingRules":[]},{"name":"B","message":"other","url":"","matchingRules":[]}]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, n := range g.Nodes {
		got = append(got, n.Version)
	}
	if want := []string{"4.16.0-rc.1", "4.16.9", "4.16.10"}; !slices.Equal(got, want) {
		t.Errorf("nodes %v, want %v (SemVer order)", got, want)
	}
	if g.Nodes[2].Metadata["k"] != "v" || g.Nodes[2].Payload != "a" {
		t.Errorf("node 4.16.10 lost its payload or metadata: %+v", g.Nodes[2])
	}
	e, ok := g.Edge(0, 2)
	if !ok || !e.Conditional || !slices.Equal(e.RiskNames(), []string{"A", "B"}) {
		t.Fatalf("conditional edge: %+v, %v", e, ok)
	}
	if b := e.Risks[1]; b.Message != "mb" || !slices.Equal(b.MatchingRules, []string{"PromQL", "Always"}) {
		t.Errorf("risk B: %+v (want the first definition, rule types in order)", b)
	}
	if e, ok := g.Edge(0, 1); !ok || e.Conditional || e.Risks != nil {
		t.Errorf("unconditional edge: %+v, %v", e, ok)
	}
	if _, ok := g.Edge(1, 0); ok {
		t.Error("edges have a direction")
	}

	for name, doc := range map[string]string{
		"no version":             `{"nodes":[],"edges":[]}`,
		"version 2":              `{"version":2,"nodes":[],"edges":[]}`,
		"not JSON":               `{`,
		"bad SemVer":             `{"version":1,"nodes":[{"version":"4.16","payload":"p","metadata":{}}],"edges":[]}`,
		"duplicate":              `{"version":1,"nodes":[{"version":"4.16.0","payload":"p","metadata":{}},{"version":"4.16.0","payload":"p","metadata":{}}],"edges":[]}`,
		"no payload":             `{"version":1,"nodes":[{"version":"4.16.0","metadata":{}}],"edges":[]}`,
		"edge out of range":      `{"version":1,"nodes":[{"version":"4.16.0","payload":"p","metadata":{}}],"edges":[[0,1]]}`,
		"self edge":              `{"version":1,"nodes":[{"version":"4.16.0","payload":"p","metadata":{}}],"edges":[[0,0]]}`,
		"conditional to nowhere": `{"version":1,"nodes":[{"version":"4.16.0","payload":"p","metadata":{}}],"edges":[],"conditionalEdges":[{"edges":[{"from":"4.16.0","to":"4.16.1"}],"risks":[]}]}`,
	} {
		if _, err := Decode("doc", []byte(doc)); err == nil || !strings.HasPrefix(err.Error(), "doc: ") {
			t.Errorf("%s: error %v, want one naming the document", name, err)
		}
	}
}

func TestUnion(t *testing.T) {
	a := mustDecode(t, `{"version":1,"nodes":[
		{"version":"4.15.0","payload":"a0","metadata":{"from":"a"}},{"version":"4.16.0","payload":"a1","metadata":{}}],
		"edges":[],"conditionalEdges":[{"edges":[{"from":"4.15.0","to":"4.16.0"}],"risks":[{"name":"R","message":"","url":"","matchingRules":[]}]}]}`)
	b := mustDecode(t, `{"version":1,"nodes":[
		{"version":"4.16.0","payload":"b1","metadata":{}},{"version":"4.16.1","payload":"b2","metadata":{}},{"version":"4.15.0","payload":"b0","metadata":{"from":"b"}}],
		"edges":[[0,1],[2,1]],"conditionalEdges":[{"edges":[{"from":"4.15.0","to":"4.16.0"}],"risks":[{"name":"S","message":"","url":"","matchingRules":[]}]}]}`)
	c := mustDecode(t, `{"version":1,"nodes":[{"version":"4.16.0","payload":"c1","metadata":{}},{"version":"4.16.1","payload":"c2","metadata":{}}],
		"edges":[],"conditionalEdges":[{"edges":[{"from":"4.16.0","to":"4.16.1"}],"risks":[{"name":"T","message":"","url":"","matchingRules":[]}]}]}`)
	u := Union(a, b, c)
	if len(u.Nodes) != 3 || u.Nodes[0].Metadata["from"] != "a" || u.Nodes[1].Payload != "a1" {
		t.Errorf("nodes: %+v (want the first graph's)", u.Nodes)
	}
	var got []string
	for _, e := range u.Edges {
		got = append(got, fmt.Sprintf("%s→%s %v %v", u.Nodes[e.From].Version, u.Nodes[e.To].Version, e.Conditional, e.RiskNames()))
	}
	want := []string{"4.15.0→4.16.0 true [R S]", "4.15.0→4.16.1 false []", "4.16.0→4.16.1 false []"}
	if !slices.Equal(got, want) {
		t.Errorf("edges:\n got %q\nwant %q", got, want)
	}
}

func mustDecode(t *testing.T, doc string) *Graph {
	t.Helper()
	g, err := Decode("test", []byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func TestPlanUnconditionalOnly(t *testing.T) {
	g := mustDecode(t, `{"version":1,"nodes":[
		{"version":"4.16.0","payload":"p","metadata":{}},{"version":"4.16.1","payload":"p","metadata":{}},{"version":"4.16.2","payload":"p","metadata":{}}],
		"edges":[[0,1],[1,2]],"conditionalEdges":[{"edges":[{"from":"4.16.0","to":"4.16.2"}],"risks":[{"name":"R","message":"","url":"","matchingRules":[]}]}]}`)
	p, err := Plan(g, "4.16.0", "4.16.2", Options{UnconditionalOnly: true})
	if err != nil || len(p.Hops) != 2 || p.Conditional() != 0 {
		t.Errorf("got %+v, %v; want the two unconditional hops", p, err)
	}
	p, err = Plan(g, "4.16.0", "4.16.2", Options{})
	if err != nil || len(p.Hops) != 1 || p.Conditional() != 1 || p.Hops[0].Risks[0].Name != "R" {
		t.Errorf("got %+v, %v; want the conditional hop", p, err)
	}
	var unknown *UnknownVersionError
	if _, err := Plan(g, "4.15.0", "4.16.2", Options{}); !errors.As(err, &unknown) || unknown.Role != "from" {
		t.Errorf("unknown from: %v", err)
	}
	if _, err := Plan(g, "4.16.0", "4.16.2+amd64", Options{}); !errors.As(err, &unknown) || unknown.Role != "to" {
		t.Errorf("unknown to: %v", err)
	}
}

func TestEUSChannels(t *testing.T) {
	tree := []string{"candidate-4.16", "eus-4.12", "eus-4.14", "eus-4.16", "eus-4.18", "eus-5.0", "stable-4.16", "eus-x.y", "eus-4"}
	for _, tc := range []struct {
		channels []string
		from, to string
		want     []string
	}{
		{tree, "4.14.3", "4.16.9", []string{"eus-4.14", "eus-4.16"}},
		{tree, "4.15.3", "4.16.9", []string{"eus-4.16"}},
		{tree, "4.16.9", "4.14.3", []string{"eus-4.14", "eus-4.16"}},
		{tree, "4.17.0", "4.17.2", nil},
		{tree, "4.18.0", "5.0.1", []string{"eus-4.18", "eus-5.0"}},
		{tree, "4.14", "4.16.0", nil},
		{nil, "4.14.3", "4.16.9", []string{"eus-4.14", "eus-4.15", "eus-4.16"}},
		{nil, "4.18.3", "5.1.0", []string{"eus-4.18", "eus-5.1"}},
		// More minors than MaxEUSMinors: none (Find refuses); the last
		// minor of all made the loop endless, any large one exhausted memory.
		{nil, "4.0.0", "4.100.0", nil},
		{nil, "4.0.0", "4.18446744073709551615.0", nil},
	} {
		if got := EUSChannels(tc.channels, tc.from, tc.to); !slices.Equal(got, tc.want) {
			t.Errorf("EUSChannels(%v, %s, %s) = %v, want %v", tc.channels != nil, tc.from, tc.to, got, tc.want)
		}
	}
}

// TestEUSSpanRefused: --via-eus against an endpoint between versions more
// than MaxEUSMinors minors apart is refused naming both, before any
// request; 100 minors are still tried.
func TestEUSSpanRefused(t *testing.T) {
	s, err := mirror.OpenSource(t.Context(), "http://127.0.0.1:1/graph", mirror.SourceOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	_, err = Find(t.Context(), s, Request{Channel: "stable-4.16", Arch: "amd64", From: "4.0.0", To: "4.18446744073709551615.0", ViaEUS: true})
	var span *EUSSpanError
	if !errors.As(err, &span) || span.Minors != 18446744073709551615 || !strings.Contains(err.Error(), "--from 4.0.0 --to 4.18446744073709551615.0 --via-eus") {
		t.Fatalf("Find: %v, want an *EUSSpanError naming the versions", err)
	}
	if got := EUSChannels(nil, "4.0.0", "4.99.0"); len(got) != MaxEUSMinors || got[99] != "eus-4.99" {
		t.Errorf("100 minors: %d channels, last %q", len(got), got[len(got)-1])
	}
	if err := checkEUSSpan("4.0.0", "4.99.0"); err != nil {
		t.Errorf("100 minors refused: %v", err)
	}
}

// TestSources reads the same graph from a tree directory, a static host
// serving it, and a policy-engine endpoint.
func TestSources(t *testing.T) {
	dir := conformanceTreeDir(t)
	fromDir, err := mirror.OpenSource(t.Context(), dir, mirror.SourceOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer fromDir.Close()
	want, err := Read(t.Context(), fromDir, "stable-4.7", "amd64")
	if err != nil {
		t.Fatal(err)
	}
	files := http.FileServer(http.Dir(dir))
	static := httptest.NewServer(files)
	defer static.Close()
	var queries []string
	endpoint := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/api/graph" {
			http.NotFound(w, r)
			return
		}
		queries = append(queries, r.URL.RawQuery)
		q := r.URL.Query()
		r.URL.Path, r.URL.RawQuery = "/graph/"+q.Get("arch")+"/"+q.Get("channel")+".json", ""
		files.ServeHTTP(w, r)
	}))
	defer endpoint.Close()

	for _, spec := range []string{static.URL, static.URL + "/", endpoint.URL + "/api", endpoint.URL + "/api/graph"} {
		s, err := mirror.OpenSource(t.Context(), spec, mirror.SourceOptions{})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		g, err := Read(t.Context(), s, "stable-4.7", "amd64")
		if err != nil {
			t.Fatalf("%s: %v", spec, err)
		}
		if len(g.Nodes) != len(want.Nodes) || !slices.EqualFunc(g.Edges, want.Edges, func(a, b Edge) bool {
			return a.From == b.From && a.To == b.To && slices.Equal(a.RiskNames(), b.RiskNames())
		}) {
			t.Errorf("%s: graph differs from the directory's", spec)
		}
		_, tree := Channels(s)
		if tree != strings.HasPrefix(spec, static.URL) {
			t.Errorf("%s: read as a tree: %v", spec, tree)
		}
	}
	if len(queries) != 2 || queries[0] != "channel=stable-4.7&arch=amd64" {
		t.Errorf("endpoint queries: %q", queries)
	}

	for _, tc := range []struct{ channel, arch, want string }{
		{"stable-9.9", "amd64", `has no channel "stable-9.9"`},
		{"stable-4.7", "s390x", `has no arch "s390x"`},
	} {
		if _, err := Read(context.Background(), fromDir, tc.channel, tc.arch); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Read(%s, %s): %v, want %q", tc.channel, tc.arch, err, tc.want)
		}
	}
	for _, spec := range []string{dir + "/index.json", dir + "/missing", "ftp://example.com/tree"} {
		if _, err := mirror.OpenSource(t.Context(), spec, mirror.SourceOptions{}); err == nil {
			t.Errorf("OpenSource(%s) succeeded", spec)
		}
	}
}

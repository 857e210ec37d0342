package path

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/upgraph/upgraph/tree/version"
	"github.com/upgraph/upgraph/tree/wire"
)

// Graph is a served channel × arch graph (or the union of several) as a
// cluster sees it: releases by version, and every update edge marked
// unconditional or conditional with its risks. It is what Plan walks and
// what package dot draws.
type Graph struct {
	// Nodes are sorted by SemVer precedence, then by version string.
	Nodes []Node
	// Edges are sorted by (From, To) node index; a pair appears once.
	Edges []Edge

	byVersion map[string]int
	out       [][]int32 // node → indices into Edges, ascending target
	in        [][]int32 // node → indices into Edges, ascending source
}

// Node is a release.
type Node struct {
	Version  string
	Payload  string
	Metadata map[string]string

	semver version.Version
}

// Edge is an update from one node to another. An unconditional edge has
// no risks.
type Edge struct {
	From, To    int
	Conditional bool
	// Risks of a conditional edge: every risk of every conditionalEdges
	// entry listing the pair, one per name (the first definition met),
	// sorted by name. Edges with the same risks share the slice: it must
	// not be modified.
	Risks []Risk
}

// Risk explains why an update is conditional.
type Risk struct {
	Name    string `json:"name"`
	Message string `json:"message"`
	URL     string `json:"url"`
	// MatchingRules are the types of the risk's matching rules, in order
	// ("PromQL", "Always").
	MatchingRules []string `json:"matchingRules"`
}

// Lookup returns the index of the node whose version string is v.
func (g *Graph) Lookup(v string) (int, bool) {
	i, ok := g.byVersion[v]
	return i, ok
}

// Out returns the edges leaving node i, by ascending target.
func (g *Graph) Out(i int) []Edge {
	out := make([]Edge, len(g.out[i]))
	for k, e := range g.out[i] {
		out[k] = g.Edges[e]
	}
	return out
}

// Edge returns the edge from → to, if any.
func (g *Graph) Edge(from, to int) (Edge, bool) {
	out := g.out[from]
	k, ok := slices.BinarySearchFunc(out, to, func(e int32, to int) int { return cmp.Compare(g.Edges[e].To, to) })
	if !ok {
		return Edge{}, false
	}
	return g.Edges[out[k]], true
}

// RiskNames returns the names of e's risks.
func (e Edge) RiskNames() []string {
	names := make([]string, len(e.Risks))
	for i, r := range e.Risks {
		names[i] = r.Name
	}
	return names
}

// Decode reads a policy-engine graph document (a tree's channel graph
// file, or an endpoint's answer); name says where it came from in errors.
// A conditional edge naming a version that is not a node is an error, as
// is a malformed version or edge.
func Decode(name string, data []byte) (*Graph, error) {
	w, err := wire.Decode(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	b := newBuilder()
	for i, n := range w.Nodes {
		if _, err := b.node(Node{Version: n.Version, Payload: n.Payload, Metadata: n.Metadata}); err != nil {
			return nil, fmt.Errorf("%s: nodes[%d]: %w", name, i, err)
		}
	}
	for i, e := range w.Edges {
		if e[0] == e[1] {
			return nil, fmt.Errorf("%s: edges[%d]: %v is not a pair of distinct node indices (%d nodes)", name, i, e, len(w.Nodes))
		}
		b.edge(e[0], e[1], false, -1)
	}
	for gi, group := range w.ConditionalEdges {
		risks := make([]Risk, len(group.Risks))
		for ri, r := range group.Risks {
			risks[ri] = Risk{Name: r.Name, Message: r.Message, URL: r.URL, MatchingRules: make([]string, len(r.MatchingRules))}
			for mi, m := range r.MatchingRules {
				risks[ri].MatchingRules[mi] = m.Type
			}
		}
		list := b.list(risks)
		for ei, e := range group.Edges {
			from, ok1 := b.byVersion[e.From]
			to, ok2 := b.byVersion[e.To]
			if !ok1 || !ok2 || from == to {
				return nil, fmt.Errorf("%s: conditionalEdges[%d].edges[%d]: %s → %s is not a pair of distinct nodes", name, gi, ei, e.From, e.To)
			}
			b.edge(from, to, true, list)
		}
	}
	return b.finish(), nil
}

// Union is the graph with the nodes and edges of every graph given: what
// a cluster could follow by switching between their channels. A version
// in several graphs is one node (the first graph's payload and metadata);
// a pair unconditional in any graph is unconditional, otherwise it has
// the risks of all of them.
func Union(graphs ...*Graph) *Graph {
	b := newBuilder()
	for _, g := range graphs {
		// Edges share risk slices (see finish): register each slice once.
		lists := map[*Risk]int32{}
		index := make([]int, len(g.Nodes))
		for i, n := range g.Nodes {
			k, ok := b.byVersion[n.Version]
			if !ok {
				k, _ = b.node(n) // already validated
			}
			index[i] = k
		}
		for _, e := range g.Edges {
			list := int32(-1)
			if len(e.Risks) > 0 {
				var ok bool
				if list, ok = lists[&e.Risks[0]]; !ok {
					list = b.list(e.Risks)
					lists[&e.Risks[0]] = list
				}
			}
			b.edge(index[e.From], index[e.To], e.Conditional, list)
		}
	}
	return b.finish()
}

// builder collects nodes and edges in any order and sorts them once.
// Real-scale graphs have tens of thousands of conditional edges but a few
// hundred distinct risk lists, so edges refer to lists by index and edges
// with the same lists share one slice.
type builder struct {
	nodes     []Node
	byVersion map[string]int
	edges     []rawEdge
	lists     [][]Risk // each sorted by name, one risk per name
}

// rawEdge is one mention of an edge; finish merges those of a pair.
type rawEdge struct {
	from, to int32
	list     int32 // index into builder.lists, -1 for none
	cond     bool
}

func newBuilder() *builder {
	return &builder{byVersion: map[string]int{}}
}

func (b *builder) node(n Node) (int, error) {
	v, err := version.Parse(n.Version)
	if err != nil || v.String() != n.Version {
		return 0, fmt.Errorf("version %q is not SemVer", n.Version)
	}
	n.semver = v
	if n.Metadata == nil {
		n.Metadata = map[string]string{}
	}
	b.nodes = append(b.nodes, n)
	b.byVersion[n.Version] = len(b.nodes) - 1
	return len(b.nodes) - 1, nil
}

// list registers a risk list, normalised: sorted by name, keeping the
// first risk of each name.
func (b *builder) list(risks []Risk) int32 {
	risks = slices.Clone(risks)
	slices.SortStableFunc(risks, func(x, y Risk) int { return strings.Compare(x.Name, y.Name) })
	risks = slices.CompactFunc(risks, func(x, y Risk) bool { return x.Name == y.Name })
	b.lists = append(b.lists, risks)
	return int32(len(b.lists) - 1)
}

// edge adds from → to, unconditional or with the risk list of index list
// (-1: none).
func (b *builder) edge(from, to int, conditional bool, list int32) {
	b.edges = append(b.edges, rawEdge{int32(from), int32(to), list, conditional})
}

func (b *builder) finish() *Graph {
	order := make([]int, len(b.nodes))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(x, y int) int { return compareNodes(&b.nodes[x], &b.nodes[y]) })
	rank := make([]int32, len(b.nodes))
	g := &Graph{Nodes: make([]Node, len(b.nodes)), byVersion: make(map[string]int, len(b.nodes))}
	for r, i := range order {
		rank[i] = int32(r)
		g.Nodes[r] = b.nodes[i]
		g.byVersion[b.nodes[i].Version] = r
	}
	raw := b.edges
	for k := range raw {
		raw[k].from, raw[k].to = rank[raw[k].from], rank[raw[k].to]
	}
	slices.SortFunc(raw, func(x, y rawEdge) int { return cmp.Or(cmp.Compare(x.from, y.from), cmp.Compare(x.to, y.to)) })
	merged := map[string][]Risk{} // by list indices, for edges in several groups
	var lists []int32
	for k := 0; k < len(raw); {
		e := Edge{From: int(raw[k].from), To: int(raw[k].to), Conditional: true}
		lists = lists[:0]
		for ; k < len(raw) && int(raw[k].from) == e.From && int(raw[k].to) == e.To; k++ {
			switch {
			case !raw[k].cond:
				e.Conditional = false
			case raw[k].list >= 0 && !slices.Contains(lists, raw[k].list):
				lists = append(lists, raw[k].list)
			}
		}
		if e.Conditional {
			e.Risks = b.merge(lists, merged)
		}
		g.Edges = append(g.Edges, e)
	}
	b.edges = nil
	g.out = make([][]int32, len(g.Nodes))
	g.in = make([][]int32, len(g.Nodes))
	for k, e := range g.Edges {
		g.out[e.From] = append(g.out[e.From], int32(k))
		g.in[e.To] = append(g.in[e.To], int32(k))
	}
	return g
}

// merge is the union of risk lists, by name, the first list's risk of a
// name winning.
func (b *builder) merge(lists []int32, cache map[string][]Risk) []Risk {
	switch len(lists) {
	case 0:
		return []Risk{}
	case 1:
		return b.lists[lists[0]]
	}
	slices.Sort(lists) // registration order: the first definition of a name still wins
	key := fmt.Sprint(lists)
	if risks, ok := cache[key]; ok {
		return risks
	}
	var risks []Risk
	for _, l := range lists {
		risks = append(risks, b.lists[l]...)
	}
	slices.SortStableFunc(risks, func(x, y Risk) int { return strings.Compare(x.Name, y.Name) })
	risks = slices.CompactFunc(risks, func(x, y Risk) bool { return x.Name == y.Name })
	cache[key] = risks
	return risks
}

// compareNodes is the node order: SemVer precedence, then version string.
func compareNodes(a, b *Node) int {
	return cmp.Or(version.Compare(a.semver, b.semver), strings.Compare(a.Version, b.Version))
}

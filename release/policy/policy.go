// Package policy computes what a policy-engine serves for one channel and
// architecture (spec §6.6, §6.7): the subgraph of releases in the channel
// built for the architecture, with the architecture stripped from versions.
package policy

import (
	"cmp"
	"regexp"
	"slices"

	"github.com/upgraph/upgraph/release/graph"
	"github.com/upgraph/upgraph/tree/version"
)

// Parameter validation, exactly upstream's.
var (
	ChannelPattern = regexp.MustCompile(`^[0-9a-z\-\.]+$`)
	ArchPattern    = regexp.MustCompile(`^[0-9a-z]+$`)
)

// ValidChannel is ChannelPattern.MatchString without the regexp engine,
// which costs more than the rest of answering a request from memory.
func ValidChannel(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; !isDigitOrLower(c) && c != '-' && c != '.' {
			return false
		}
	}
	return s != ""
}

// ValidArch is ArchPattern.MatchString, likewise.
func ValidArch(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isDigitOrLower(s[i]) {
			return false
		}
	}
	return s != ""
}

func isDigitOrLower(c byte) bool { return '0' <= c && c <= '9' || 'a' <= c && c <= 'z' }

// DefaultArch is served when a client sends no arch.
const DefaultArch = "amd64"

// Index holds what every view needs, computed once per graph, so that the
// hundreds of views of a graph do no map lookups, sorting or version
// formatting of their own.
type Index struct {
	g         *graph.Graph
	byChannel map[string][]int // channel → concrete members, node order
	arches    [][]string       // node → arch list
	served    [][]string       // node → served version, parallel to arches
	children  [][]int          // node → children in output order
	// condByFrom lists the conditional edges leaving each node, by target
	// in output order (then group), so that views emit them sorted.
	condByFrom [][]condTarget
	groups     []graph.ConditionalEdge
	rank       []int // node → output position
}

type condTarget struct{ to, group int32 }

// NewIndex indexes g, the final graph-builder graph.
func NewIndex(g *graph.Graph) *Index {
	n := g.Len()
	order := g.SortedOrder()
	ix := &Index{
		g: g, byChannel: map[string][]int{}, groups: g.Conditional, rank: make([]int, n),
		arches: make([][]string, n), served: make([][]string, n), children: make([][]int, n), condByFrom: make([][]condTarget, n),
	}
	for r, t := range order {
		ix.rank[t] = r
	}
	// Conditional edges are indexed beside the rest: a few hundred
	// thousand lookups by version string.
	done := make(chan struct{})
	go func() {
		defer close(done)
		for gi, ce := range g.Conditional {
			for _, e := range ce.Edges {
				from, ok1 := g.Lookup(e.From)
				to, ok2 := g.Lookup(e.To)
				if ok1 && ok2 {
					ix.condByFrom[from] = append(ix.condByFrom[from], condTarget{int32(to), int32(gi)})
				}
			}
		}
		for _, ts := range ix.condByFrom {
			slices.SortFunc(ts, func(a, b condTarget) int {
				return cmp.Or(ix.rank[a.to]-ix.rank[b.to], int(a.group-b.group))
			})
		}
	}()
	// Children in output order without sorting: visiting targets in output
	// order appends each to its parents' lists in that order.
	for i := range n {
		ix.children[i] = make([]int, 0, g.OutDegree(i))
	}
	for _, t := range order {
		for _, p := range g.Parents(t) {
			ix.children[p] = append(ix.children[p], t)
		}
	}
	for i, node := range g.Nodes() {
		if node.Abstract {
			continue
		}
		if v, ok := node.Metadata[graph.KeyChannels]; ok {
			seen := map[string]bool{}
			for _, c := range graph.SplitList(v) {
				if !seen[c] {
					seen[c] = true
					ix.byChannel[c] = append(ix.byChannel[c], i)
				}
			}
		}
		if v, ok := node.Metadata[graph.KeyArch]; ok {
			ix.arches[i] = graph.SplitList(v)
			ix.served[i] = make([]string, len(ix.arches[i]))
			for k, arch := range ix.arches[i] {
				ix.served[i][k] = servedVersion(node, arch)
			}
		}
	}
	<-done
	return ix
}

// Graph returns the indexed graph.
func (ix *Index) Graph() *graph.Graph { return ix.g }

// Members is the number of releases in channel, of every architecture: an
// upper bound on a view's size, for scheduling.
func (ix *Index) Members(channel string) int { return len(ix.byChannel[channel]) }

// ChannelView is the policy-filtered graph for one channel and arch.
type ChannelView struct {
	Channel, Arch string
	// Nodes are graph node indices in output order; Versions are their
	// served (arch-stripped) versions.
	Nodes    []int
	Versions []string
	// Edges index into Nodes, sorted.
	Edges [][2]int
	// Conditional holds the conditional-edge groups, sorted by their first
	// edge; ConditionalEdges gives them with served versions.
	Conditional []ConditionalGroup
	// ConditionalPairs are the conditional edges by node position, group
	// after group, each group's sorted by (From, To).
	ConditionalPairs []ConditionalPair
	// ConditionalBySource holds the same pairs sorted by (From, To).
	ConditionalBySource []ConditionalPair
}

// ConditionalGroup is a set of conditional edges sharing a risk list.
type ConditionalGroup struct {
	Risks []graph.Risk
	Edges int // its run of ChannelView.ConditionalPairs
}

// ConditionalEdges returns the view's conditional edges as a graph holds
// them, with served versions.
func (v *ChannelView) ConditionalEdges() []graph.ConditionalEdge {
	out := make([]graph.ConditionalEdge, len(v.Conditional))
	pairs := v.ConditionalPairs
	for k, cg := range v.Conditional {
		out[k].Risks = cg.Risks
		for _, cp := range pairs[:cg.Edges] {
			out[k].Edges = append(out[k].Edges, graph.EdgeRef{From: v.Versions[cp.From], To: v.Versions[cp.To]})
		}
		pairs = pairs[cg.Edges:]
	}
	return out
}

// ConditionalPair is one conditional edge of a view, by node position.
type ConditionalPair struct {
	From, To int // positions in ChannelView.Nodes
	Group    int // index into ChannelView.Conditional
}

// View filters the graph for channel and arch. Unlike upstream, a
// conditional edge is kept only when both of its releases are kept: upstream
// keeps it when both version strings merely contain the arch as a substring,
// which lets "4.2.10-s390x+amd64" into the s390x graph and "arch=64" return
// conditional edges without nodes.
func (ix *Index) View(channel, arch string) *ChannelView {
	v := &ChannelView{Channel: channel, Arch: arch}
	members := ix.byChannel[channel]
	v.Nodes = make([]int, 0, len(members))
	for _, i := range members {
		if slices.Contains(ix.arches[i], arch) {
			v.Nodes = append(v.Nodes, i)
		}
	}
	slices.SortFunc(v.Nodes, func(a, b int) int { return ix.rank[a] - ix.rank[b] })
	// pos[node] is the node's position in the view plus one (0: not in it).
	pos := make([]int32, ix.g.Len())
	for p, i := range v.Nodes {
		pos[i] = int32(p + 1)
	}
	v.Versions = make([]string, len(v.Nodes))
	edges := 0
	for p, i := range v.Nodes {
		v.Versions[p] = ix.served[i][slices.Index(ix.arches[i], arch)]
		for _, c := range ix.children[i] {
			if pos[c] != 0 {
				edges++
			}
		}
	}
	// Children are in output order, as positions are: each row of edges
	// comes out sorted.
	v.Edges = make([][2]int, 0, edges)
	for p, i := range v.Nodes {
		for _, c := range ix.children[i] {
			if q := pos[c]; q != 0 {
				v.Edges = append(v.Edges, [2]int{p, int(q - 1)})
			}
		}
	}
	ix.conditional(v, pos)
	return v
}

// conditional keeps the conditional edges between kept releases, grouped as
// in the graph, edges sorted by (from, to) and groups by their first edge.
// Visiting sources in output order, and each source's targets in output
// order, yields the edges sorted and the groups in order of their first
// edge: a first pass sizes the groups, a second puts each edge in place.
// An edge is in one group only (edges.resolveConditional groups risks by
// edge); were one in two, their order would follow the graph's groups.
func (ix *Index) conditional(v *ChannelView, pos []int32) {
	slot := make([]int32, len(ix.groups)) // group → 1 + its place in v.Conditional
	total := 0
	for _, i := range v.Nodes {
		for _, t := range ix.condByFrom[i] {
			if pos[t.to] == 0 {
				continue
			}
			if slot[t.group] == 0 {
				v.Conditional = append(v.Conditional, ConditionalGroup{Risks: ix.groups[t.group].Risks})
				slot[t.group] = int32(len(v.Conditional))
			}
			v.Conditional[slot[t.group]-1].Edges++
			total++
		}
	}
	if total == 0 {
		return
	}
	start := make([]int, len(v.Conditional))
	for k := 1; k < len(start); k++ {
		start[k] = start[k-1] + v.Conditional[k-1].Edges
	}
	v.ConditionalPairs = make([]ConditionalPair, total)
	v.ConditionalBySource = make([]ConditionalPair, 0, total)
	for p, i := range v.Nodes {
		for _, t := range ix.condByFrom[i] {
			q := pos[t.to]
			if q == 0 {
				continue
			}
			k := int(slot[t.group] - 1)
			cp := ConditionalPair{From: p, To: int(q - 1), Group: k}
			v.ConditionalBySource = append(v.ConditionalBySource, cp)
			v.ConditionalPairs[start[k]] = cp
			start[k]++
		}
	}
}

// StripArch removes build identifiers equal to arch ("4.7.4+amd64" →
// "4.7.4"). Versions that are not SemVer are returned unchanged; upstream
// answers 500 for them, and the generator rejects them before this point.
func StripArch(v, arch string) string {
	pv, err := version.Parse(v)
	if err != nil {
		return v
	}
	return pv.WithoutBuildIdentifier(arch).String()
}

// servedVersion is StripArch for a node, whose version the graph parsed
// once already.
func servedVersion(n *graph.Node, arch string) string {
	pv, ok := n.SemVer()
	if !ok {
		return n.Version
	}
	return pv.WithoutBuildIdentifier(arch).String()
}

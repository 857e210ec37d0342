// Package policy computes what a policy-engine serves for one channel and
// architecture (spec §6.6, §6.7): the subgraph of releases in the channel
// built for the architecture, with the architecture stripped from versions.
package policy

import (
	"regexp"
	"slices"

	"github.com/upgraph/upgraph/generator/graph"
	"github.com/upgraph/upgraph/generator/version"
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

// Index holds what every view needs, computed once per graph.
type Index struct {
	g         *graph.Graph
	byChannel map[string][]int // channel → concrete members, node order
	arches    [][]string       // node → arch list
	condByTo  map[int][]condPair
	groups    []graph.ConditionalEdge
	rank      []int // node → output position
}

type condPair struct{ from, to, group int }

// NewIndex indexes g, the final graph-builder graph.
func NewIndex(g *graph.Graph) *Index {
	ix := &Index{g: g, byChannel: map[string][]int{}, arches: make([][]string, g.Len()), condByTo: map[int][]condPair{}, groups: g.Conditional, rank: g.Ranks()}
	for i, n := range g.Nodes() {
		if n.Abstract {
			continue
		}
		if v, ok := n.Metadata[graph.KeyChannels]; ok {
			seen := map[string]bool{}
			for _, c := range graph.SplitList(v) {
				if !seen[c] {
					seen[c] = true
					ix.byChannel[c] = append(ix.byChannel[c], i)
				}
			}
		}
		if v, ok := n.Metadata[graph.KeyArch]; ok {
			ix.arches[i] = graph.SplitList(v)
		}
	}
	for gi, ce := range g.Conditional {
		for _, e := range ce.Edges {
			from, ok1 := g.Lookup(e.From)
			to, ok2 := g.Lookup(e.To)
			if ok1 && ok2 {
				ix.condByTo[to] = append(ix.condByTo[to], condPair{from, to, gi})
			}
		}
	}
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
	// Conditional groups with served versions; edges and groups sorted.
	Conditional []graph.ConditionalEdge
	// ConditionalPairs index into Nodes, parallel to the flattened
	// Conditional edges, for per-version projection.
	ConditionalPairs []ConditionalPair
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
	g := ix.g
	for _, i := range ix.byChannel[channel] {
		if slices.Contains(ix.arches[i], arch) {
			v.Nodes = append(v.Nodes, i)
		}
	}
	slices.SortFunc(v.Nodes, func(a, b int) int { return ix.rank[a] - ix.rank[b] })
	pos := make(map[int]int, len(v.Nodes))
	for p, i := range v.Nodes {
		pos[i] = p
	}
	v.Versions = make([]string, len(v.Nodes))
	for p, i := range v.Nodes {
		v.Versions[p] = servedVersion(g.Node(i), arch)
		for _, c := range g.Children(i) {
			if q, ok := pos[c]; ok {
				v.Edges = append(v.Edges, [2]int{p, q})
			}
		}
	}
	slices.SortFunc(v.Edges, comparePair)
	ix.conditional(v, pos)
	return v
}

func comparePair(a, b [2]int) int {
	if a[0] != b[0] {
		return a[0] - b[0]
	}
	return a[1] - b[1]
}

// conditional keeps the conditional edges between kept releases, grouped as
// in the graph, edges sorted by (from, to) and groups by their first edge.
func (ix *Index) conditional(v *ChannelView, pos map[int]int) {
	byGroup := map[int][][2]int{}
	for q, i := range v.Nodes {
		for _, cp := range ix.condByTo[i] {
			if p, ok := pos[cp.from]; ok {
				byGroup[cp.group] = append(byGroup[cp.group], [2]int{p, q})
			}
		}
	}
	gids := make([]int, 0, len(byGroup))
	for gi, es := range byGroup {
		slices.SortFunc(es, comparePair)
		gids = append(gids, gi)
	}
	slices.SortFunc(gids, func(a, b int) int { return comparePair(byGroup[a][0], byGroup[b][0]) })
	for _, gi := range gids {
		ce := graph.ConditionalEdge{Risks: ix.groups[gi].Risks}
		for _, e := range byGroup[gi] {
			ce.Edges = append(ce.Edges, graph.EdgeRef{From: v.Versions[e[0]], To: v.Versions[e[1]]})
			v.ConditionalPairs = append(v.ConditionalPairs, ConditionalPair{From: e[0], To: e[1], Group: len(v.Conditional)})
		}
		v.Conditional = append(v.Conditional, ce)
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
// once already: views are computed twice per channel × arch.
func servedVersion(n *graph.Node, arch string) string {
	pv, ok := n.SemVer()
	if !ok {
		return n.Version
	}
	return pv.WithoutBuildIdentifier(arch).String()
}

package model

import (
	"cmp"
	"slices"
	"strings"

	"github.com/blang/semver/v4"
)

// EdgeType is how a channel entry declares an upgrade edge.
type EdgeType string

const (
	EdgeReplaces  EdgeType = "replaces"
	EdgeSkips     EdgeType = "skips"
	EdgeSkipRange EdgeType = "skipRange"
)

// GraphNode is a channel entry (or, in a PackageGraph, a bundle).
type GraphNode struct {
	Name    string `json:"name"`
	Version string `json:"version"`
	Release string `json:"release,omitempty"`
	Image   string `json:"image"`
	// Deprecated is the bundle-level deprecation message.
	Deprecated          string `json:"deprecated,omitempty"`
	MaxOpenShiftVersion string `json:"maxOpenShiftVersion,omitempty"`
	// SkippedByV0 says OLM v0 leaves the entry out of the channel (an
	// entry of the channel skips it, or it is off the replaces chain from
	// the head): v0 never moves a cluster to it.
	SkippedByV0 bool `json:"skippedByV0"`
	// SkipRange is the entry's skipRange (channel graphs only; "" for
	// none), written once. SkipRangeFrom are the nodes whose versions it
	// holds, as spans of indexes into the graph's Nodes: each is the
	// source of a skipRange edge to this node (ChannelGraph.AllEdges).
	// None for an invalid skipRange, which draws nothing. The edges are
	// not listed one by one: a skipRange holding n versions would be n
	// edges, each a copy of the range (issue 24: 287 MB of files from a
	// 285 KB catalog).
	SkipRange     string `json:"skipRange,omitempty"`
	SkipRangeFrom []Span `json:"skipRangeFrom,omitempty"`
}

// Span is the indexes first to last (inclusive, first ≤ last) of a
// graph's Nodes. The nodes a skipRange holds make at most one span per
// comparator and "||" of the range: nodes are ordered by version and
// each comparator holds a run of that order (two for "!="), so the spans
// are at most linear in the range's bytes whatever the number of nodes.
type Span [2]int

// spans returns the indexes i of nodes (0 ≤ i < n) where in(i) holds as
// spans, ascending.
func spans(n int, in func(i int) bool) []Span {
	var out []Span
	for i := 0; i < n; i++ {
		if !in(i) {
			continue
		}
		j := i
		for j+1 < n && in(j+1) {
			j++
		}
		out = append(out, Span{i, j})
		i = j
	}
	return out
}

// GraphEdge is an upgrade edge: From is the bundle a cluster runs, To the
// bundle it may move to; Range is the skipRange of a skipRange edge.
// From may name a bundle outside the channel (a chain tail's replaces, a
// cross-channel skip), as render-graph draws it. The files list replaces
// and skips edges; skipRange edges are on their target's node
// (GraphNode.SkipRangeFrom) and AllEdges lists them all.
type GraphEdge struct {
	From  string   `json:"from"`
	To    string   `json:"to"`
	Type  EdgeType `json:"type"`
	Range string   `json:"range,omitempty"`
}

// ChannelGraph is a package × channel upgrade graph with the edges `opm
// alpha render-graph` draws: replaces and skips as declared (Edges), and
// skipRange from every entry of the same channel whose version is in the
// range (on the target's node: GraphNode.SkipRangeFrom; an invalid
// skipRange draws nothing). AllEdges lists every edge.
type ChannelGraph struct {
	Package string `json:"package"`
	Channel string `json:"channel"`
	Default bool   `json:"default"`
	// Head is the channel head, "" when there is not exactly one
	// (HeadError says why).
	Head       string      `json:"head"`
	HeadError  string      `json:"headError,omitempty"`
	Deprecated string      `json:"deprecated,omitempty"`
	Nodes      []GraphNode `json:"nodes"`
	Edges      []GraphEdge `json:"edges"`
}

func node(b *Bundle, name string) GraphNode {
	n := GraphNode{Name: name}
	if b != nil {
		n.Version = b.PackageProperty.Version
		n.Release = b.PackageProperty.Release
		n.Image = b.Image
		n.MaxOpenShiftVersion = b.MaxOpenShiftVersion
		if b.Deprecation != nil {
			n.Deprecated = b.Deprecation.Message
		}
	}
	return n
}

// compareEntries orders entries newest first (Bundle.Compare), then by
// name; entries without a usable version last.
func compareEntries(a, b *Entry) int {
	av, bv := a.Bundle != nil && a.Bundle.VersionOK, b.Bundle != nil && b.Bundle.VersionOK
	switch {
	case av && bv:
		if c := b.Bundle.Compare(a.Bundle); c != 0 {
			return c
		}
	case av:
		return -1
	case bv:
		return 1
	}
	return cmp.Compare(a.Name, b.Name)
}

// Graph returns the channel's graph. Nodes are newest first; Edges are
// per entry (newest first) its skips, then its replaces; duplicates once.
func (c *Channel) Graph() *ChannelGraph {
	g := &ChannelGraph{Package: c.Package.Name, Channel: c.Name, Default: c.Package.DefaultChannel == c,
		Nodes: make([]GraphNode, 0, len(c.Entries)), Edges: []GraphEdge{}}
	if c.head != nil {
		g.Head = c.head.Name
	} else if c.headErr != nil {
		g.HeadError = c.headErr.Error()
	}
	if c.Deprecation != nil {
		g.Deprecated = c.Deprecation.Message
	}
	sorted := slices.Clone(c.Entries)
	slices.SortFunc(sorted, compareEntries)
	// The entries with a version come first, newest first: each
	// skipRange's spans are found by binary search (rangeSpans), not by
	// asking the range about every entry (n² checks when every entry has
	// one). byVersion is false only if the order is not by version, which
	// compareEntries rules out; the check keeps the answer right anyway.
	versions, byVersion := versionPrefix(len(sorted), func(i int) (semver.Version, bool) {
		if x := sorted[i].Bundle; x != nil && x.VersionOK {
			return x.Version, true
		}
		return semver.Version{}, false
	})
	seen := map[GraphEdge]bool{}
	add := func(e GraphEdge) {
		if !seen[e] {
			seen[e] = true
			g.Edges = append(g.Edges, e)
		}
	}
	for _, e := range sorted {
		n := node(e.Bundle, e.Name)
		n.SkippedByV0 = e.SkippedBy != "" || (c.v0Err == nil && !e.OnV0Chain)
		n.SkipRange = e.SkipRange
		if e.Range != nil {
			if byVersion {
				n.SkipRangeFrom = rangeSpans(e.SkipRange, e.Range, versions)
			} else {
				n.SkipRangeFrom = spans(len(sorted), func(i int) bool {
					x := sorted[i].Bundle
					return x != nil && x.VersionOK && e.Range(x.Version)
				})
			}
		}
		g.Nodes = append(g.Nodes, n)
		for _, s := range e.Skips {
			add(GraphEdge{From: s, To: e.Name, Type: EdgeSkips})
		}
		if e.Replaces != "" {
			add(GraphEdge{From: e.Replaces, To: e.Name, Type: EdgeReplaces})
		}
	}
	return g
}

// AllEdges lists every edge of the graph in render-graph's order: per
// node (newest first) its skips, its skipRange edges (sources newest
// first), then its replaces.
func (g *ChannelGraph) AllEdges() []GraphEdge {
	into := map[string][]GraphEdge{}
	for _, e := range g.Edges {
		into[e.To] = append(into[e.To], e)
	}
	out := make([]GraphEdge, 0, len(g.Edges))
	for _, n := range g.Nodes {
		es := into[n.Name]
		delete(into, n.Name)
		for _, e := range es {
			if e.Type == EdgeSkips {
				out = append(out, e)
			}
		}
		for _, s := range n.SkipRangeFrom {
			for i := max(s[0], 0); i <= s[1] && i < len(g.Nodes); i++ { // files are read back: stay in Nodes
				out = append(out, GraphEdge{From: g.Nodes[i].Name, To: n.Name, Type: EdgeSkipRange, Range: n.SkipRange})
			}
		}
		for _, e := range es {
			if e.Type != EdgeSkips {
				out = append(out, e)
			}
		}
	}
	// Edges into a name no node has (not written by Graph) keep their
	// order, last.
	for _, e := range g.Edges {
		if _, ok := into[e.To]; ok {
			out = append(out, e)
		}
	}
	return out
}

// ChannelSummary is a channel in a PackageGraph.
type ChannelSummary struct {
	Name       string `json:"name"`
	Head       string `json:"head"`
	HeadError  string `json:"headError,omitempty"`
	Deprecated string `json:"deprecated,omitempty"`
	Entries    int    `json:"entries"`
}

// PackageNode is a bundle of the package with the channels listing it
// and the skipRanges their entries declare.
type PackageNode struct {
	GraphNode
	Channels   []string           `json:"channels"`
	SkipRanges []PackageSkipRange `json:"skipRanges,omitempty"`
}

// PackageSkipRange is a skipRange the entries of a bundle declare, with
// the channels whose entries declare it and the nodes whose versions it
// holds (spans of indexes into the graph's Nodes, every bundle of the
// package): each is the source of a skipRange edge to the bundle
// (PackageGraph.AllEdges).
type PackageSkipRange struct {
	Range    string   `json:"range"`
	From     []Span   `json:"from"`
	Channels []string `json:"channels"`
}

// PackageEdge is an edge of the cross-channel view with the channels
// whose entries declare it.
type PackageEdge struct {
	GraphEdge
	Channels []string `json:"channels"`
}

// PackageGraph is the cross-channel view of a package: every bundle, and
// every edge any channel declares, with skipRange matched against every
// bundle of the package (what OLM v1 does without a channel filter), so
// edges between channels show (operator-registry#1022). Edges lists the
// replaces and skips edges; skipRange edges are on their target's node
// (PackageNode.SkipRanges); AllEdges lists every edge.
type PackageGraph struct {
	Package        string           `json:"package"`
	DefaultChannel string           `json:"defaultChannel"`
	Deprecated     string           `json:"deprecated,omitempty"`
	Channels       []ChannelSummary `json:"channels"`
	Nodes          []PackageNode    `json:"nodes"`
	Edges          []PackageEdge    `json:"edges"`
}

// Graph returns the package's cross-channel view. Nodes are newest first;
// edges are ordered by target (node order), type, then source; a node's
// skipRanges by range.
func (p *Package) Graph() *PackageGraph {
	g := &PackageGraph{Package: p.Name, DefaultChannel: p.DefaultChannelName,
		Channels: make([]ChannelSummary, 0, len(p.Channels)), Nodes: make([]PackageNode, 0, len(p.Bundles)), Edges: []PackageEdge{}}
	if p.Deprecation != nil {
		g.Deprecated = p.Deprecation.Message
	}
	for _, c := range p.Channels {
		s := ChannelSummary{Name: c.Name, Entries: len(c.Entries)}
		if c.head != nil {
			s.Head = c.head.Name
		} else if c.headErr != nil {
			s.HeadError = c.headErr.Error()
		}
		if c.Deprecation != nil {
			s.Deprecated = c.Deprecation.Message
		}
		g.Channels = append(g.Channels, s)
	}
	bundles := slices.Clone(p.Bundles)
	slices.SortFunc(bundles, func(a, b *Bundle) int {
		if a.VersionOK != b.VersionOK {
			if a.VersionOK {
				return -1
			}
			return 1
		}
		if c := b.Compare(a); c != 0 {
			return c
		}
		return cmp.Compare(a.Name, b.Name)
	})
	rank := make(map[string]int, len(bundles))
	for i, b := range bundles {
		rank[b.Name] = i
		n := PackageNode{GraphNode: node(b, b.Name), Channels: make([]string, 0, len(b.Entries))}
		skipped := len(b.Entries) > 0
		for _, e := range b.Entries {
			n.Channels = append(n.Channels, e.Channel.Name)
			if e.SkippedBy == "" && (e.Channel.v0Err != nil || e.OnV0Chain) {
				skipped = false
			}
		}
		n.SkippedByV0 = skipped
		g.Nodes = append(g.Nodes, n)
	}
	edges := map[GraphEdge][]string{}
	add := func(e GraphEdge, ch string) {
		chs := edges[e]
		if len(chs) == 0 || chs[len(chs)-1] != ch {
			edges[e] = append(chs, ch)
		}
	}
	type declared struct {
		node int
		rng  string
	}
	ranges := map[declared][]string{}   // → channels, in channel order
	parsed := map[string]semver.Range{} // skipRange → parsed, nil if invalid
	for _, c := range p.Channels {
		for _, e := range c.Entries {
			for _, s := range e.Skips {
				add(GraphEdge{From: s, To: e.Name, Type: EdgeSkips}, c.Name)
			}
			if r, ok := rank[e.Name]; ok && e.SkipRange != "" {
				k := declared{node: r, rng: e.SkipRange}
				parsed[e.SkipRange] = e.Range
				chs := ranges[k]
				if len(chs) == 0 || chs[len(chs)-1] != c.Name {
					ranges[k] = append(chs, c.Name)
				}
			}
			if e.Replaces != "" {
				add(GraphEdge{From: e.Replaces, To: e.Name, Type: EdgeReplaces}, c.Name)
			}
		}
	}
	// As in Channel.Graph: bundles with a version first, newest first, so
	// each distinct skipRange's spans are found by binary search.
	versions, byVersion := versionPrefix(len(bundles), func(i int) (semver.Version, bool) {
		return bundles[i].Version, bundles[i].VersionOK
	})
	from := map[string][]Span{} // skipRange → the nodes it holds
	for k, chs := range ranges {
		sp, ok := from[k.rng]
		if !ok {
			sp = []Span{}
			if r := parsed[k.rng]; r != nil && byVersion {
				sp = rangeSpans(k.rng, r, versions)
			} else if r != nil {
				sp = spans(len(bundles), func(i int) bool { return bundles[i].VersionOK && r(bundles[i].Version) })
			}
			from[k.rng] = sp
		}
		n := &g.Nodes[k.node]
		n.SkipRanges = append(n.SkipRanges, PackageSkipRange{Range: k.rng, From: sp, Channels: chs})
	}
	for i := range g.Nodes {
		slices.SortFunc(g.Nodes[i].SkipRanges, func(a, b PackageSkipRange) int { return strings.Compare(a.Range, b.Range) })
	}
	for e, chs := range edges {
		g.Edges = append(g.Edges, PackageEdge{GraphEdge: e, Channels: chs})
	}
	sortPackageEdges(g.Edges, rank)
	return g
}

// AllEdges lists every edge of the graph, skipRange edges included,
// ordered by target (node order), type (skips, skipRange, replaces),
// then source (node order), as Edges are.
func (g *PackageGraph) AllEdges() []PackageEdge {
	rank := make(map[string]int, len(g.Nodes))
	for i, n := range g.Nodes {
		rank[n.Name] = i
	}
	out := slices.Clone(g.Edges)
	for _, n := range g.Nodes {
		for _, r := range n.SkipRanges {
			for _, s := range r.From {
				for i := max(s[0], 0); i <= s[1] && i < len(g.Nodes); i++ { // files are read back: stay in Nodes
					out = append(out, PackageEdge{GraphEdge: GraphEdge{From: g.Nodes[i].Name, To: n.Name, Type: EdgeSkipRange, Range: r.Range}, Channels: r.Channels})
				}
			}
		}
	}
	sortPackageEdges(out, rank)
	return out
}

// sortPackageEdges orders edges by target (node order: rank; names no
// node has last, by name), type, source, then range.
func sortPackageEdges(edges []PackageEdge, rank map[string]int) {
	typeRank := map[EdgeType]int{EdgeSkips: 0, EdgeSkipRange: 1, EdgeReplaces: 2}
	nodeRank := func(name string) int {
		if r, ok := rank[name]; ok {
			return r
		}
		return len(rank)
	}
	slices.SortStableFunc(edges, func(a, b PackageEdge) int {
		return cmp.Or(cmp.Compare(nodeRank(a.To), nodeRank(b.To)), cmp.Compare(a.To, b.To),
			cmp.Compare(typeRank[a.Type], typeRank[b.Type]),
			cmp.Compare(nodeRank(a.From), nodeRank(b.From)), cmp.Compare(a.From, b.From),
			strings.Compare(a.Range, b.Range))
	})
}

// Graphs returns every channel graph of the catalog (packages by name,
// channels by name), built on all CPUs.
func (c *Catalog) Graphs() []*ChannelGraph {
	var chans []*Channel
	for _, p := range c.Packages {
		chans = append(chans, p.Channels...)
	}
	out := make([]*ChannelGraph, len(chans))
	parallel(len(chans), func(i int) { out[i] = chans[i].Graph() })
	return out
}

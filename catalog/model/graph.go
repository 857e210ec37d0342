package model

import (
	"cmp"
	"slices"
	"strings"
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
}

// GraphEdge is an upgrade edge: From is the bundle a cluster runs, To the
// bundle it may move to; Range is the skipRange of a skipRange edge.
// From may name a bundle outside the channel (a chain tail's replaces, a
// cross-channel skip), as render-graph draws it.
type GraphEdge struct {
	From  string   `json:"from"`
	To    string   `json:"to"`
	Type  EdgeType `json:"type"`
	Range string   `json:"range,omitempty"`
}

// ChannelGraph is a package × channel upgrade graph with the edges `opm
// alpha render-graph` draws: replaces and skips as declared, skipRange
// from every entry of the same channel whose version is in the range
// (an invalid skipRange draws nothing).
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

// Graph returns the channel's graph. Nodes are newest first; edges follow
// render-graph's order: per entry (newest first) its skips, its skipRange
// edges (sources in channel order), then its replaces; duplicates once.
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
		g.Nodes = append(g.Nodes, n)
		for _, s := range e.Skips {
			add(GraphEdge{From: s, To: e.Name, Type: EdgeSkips})
		}
		if e.Range != nil {
			for _, x := range c.Entries {
				if x.Bundle != nil && x.Bundle.VersionOK && e.Range(x.Bundle.Version) {
					add(GraphEdge{From: x.Name, To: e.Name, Type: EdgeSkipRange, Range: e.SkipRange})
				}
			}
		}
		if e.Replaces != "" {
			add(GraphEdge{From: e.Replaces, To: e.Name, Type: EdgeReplaces})
		}
	}
	return g
}

// ChannelSummary is a channel in a PackageGraph.
type ChannelSummary struct {
	Name       string `json:"name"`
	Head       string `json:"head"`
	HeadError  string `json:"headError,omitempty"`
	Deprecated string `json:"deprecated,omitempty"`
	Entries    int    `json:"entries"`
}

// PackageNode is a bundle of the package with the channels listing it.
type PackageNode struct {
	GraphNode
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
// edges between channels show (operator-registry#1022).
type PackageGraph struct {
	Package        string           `json:"package"`
	DefaultChannel string           `json:"defaultChannel"`
	Deprecated     string           `json:"deprecated,omitempty"`
	Channels       []ChannelSummary `json:"channels"`
	Nodes          []PackageNode    `json:"nodes"`
	Edges          []PackageEdge    `json:"edges"`
}

// Graph returns the package's cross-channel view. Nodes are newest first;
// edges are ordered by target (node order), type, then source.
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
	matches := map[string][]string{} // skipRange → bundles in it
	for _, c := range p.Channels {
		for _, e := range c.Entries {
			for _, s := range e.Skips {
				add(GraphEdge{From: s, To: e.Name, Type: EdgeSkips}, c.Name)
			}
			if e.Range != nil {
				in, ok := matches[e.SkipRange]
				if !ok {
					for _, b := range bundles {
						if b.VersionOK && e.Range(b.Version) {
							in = append(in, b.Name)
						}
					}
					matches[e.SkipRange] = in
				}
				for _, from := range in {
					add(GraphEdge{From: from, To: e.Name, Type: EdgeSkipRange, Range: e.SkipRange}, c.Name)
				}
			}
			if e.Replaces != "" {
				add(GraphEdge{From: e.Replaces, To: e.Name, Type: EdgeReplaces}, c.Name)
			}
		}
	}
	typeRank := map[EdgeType]int{EdgeSkips: 0, EdgeSkipRange: 1, EdgeReplaces: 2}
	nodeRank := func(name string) int {
		if r, ok := rank[name]; ok {
			return r
		}
		return len(rank)
	}
	for e, chs := range edges {
		g.Edges = append(g.Edges, PackageEdge{GraphEdge: e, Channels: chs})
	}
	slices.SortFunc(g.Edges, func(a, b PackageEdge) int {
		return cmp.Or(cmp.Compare(nodeRank(a.To), nodeRank(b.To)), cmp.Compare(a.To, b.To),
			cmp.Compare(typeRank[a.Type], typeRank[b.Type]),
			cmp.Compare(nodeRank(a.From), nodeRank(b.From)), cmp.Compare(a.From, b.From),
			strings.Compare(a.Range, b.Range))
	})
	return g
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

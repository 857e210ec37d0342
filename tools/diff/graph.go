package diff

import (
	"slices"
	"strings"
)

// compareGraphs diffs one channel × arch graph present on both sides.
func compareGraphs(channel, arch string, old, new *document) GraphDiff {
	g := GraphDiff{Channel: channel, Arch: arch, Status: Changed}
	for _, v := range sortedKeys(union(old.nodes, new.nodes), compareVersions) {
		o, inOld := old.nodes[v]
		n, inNew := new.nodes[v]
		switch {
		case !inOld:
			g.Nodes.Added = append(g.Nodes.Added, n)
		case !inNew:
			g.Nodes.Removed = append(g.Nodes.Removed, o)
		default:
			if c, changed := compareNodes(o, n); changed {
				g.Nodes.Changed = append(g.Nodes.Changed, c)
			}
		}
	}
	for _, e := range sortedKeys(union(old.edges, new.edges), compareEdges) {
		switch {
		case !old.edges[e]:
			g.Edges.Added = append(g.Edges.Added, e)
		case !new.edges[e]:
			g.Edges.Removed = append(g.Edges.Removed, e)
		}
	}
	for _, e := range sortedKeys(union(old.conditional, new.conditional), compareEdges) {
		o, inOld := old.conditional[e]
		n, inNew := new.conditional[e]
		switch {
		case !inOld:
			g.Conditional.Added = append(g.Conditional.Added, ConditionalEdge{e, n})
		case !inNew:
			g.Conditional.Removed = append(g.Conditional.Removed, ConditionalEdge{e, o})
		case !slices.Equal(o, n):
			g.Conditional.Changed = append(g.Conditional.Changed, ConditionalChange{e, o, n})
		}
	}
	for _, name := range sortedKeys(union(old.risks, new.risks), strings.Compare) {
		o, inOld := old.risks[name]
		n, inNew := new.risks[name]
		switch {
		case !inOld:
			g.Risks.Added = append(g.Risks.Added, n...)
		case !inNew:
			g.Risks.Removed = append(g.Risks.Removed, o...)
		case !slices.EqualFunc(o, n, equalRisks):
			g.Risks.Changed = append(g.Risks.Changed, RiskChange{name, o, n})
		}
	}
	return g
}

// onlyGraph describes a graph that one side has and the other lacks.
func onlyGraph(channel, arch string, status Status, d *document) GraphDiff {
	versions := make([]string, 0, len(d.nodes))
	for v := range d.nodes {
		versions = append(versions, v)
	}
	return GraphDiff{Channel: channel, Arch: arch, Status: status, Summary: &Summary{
		Nodes: len(d.nodes), Edges: len(d.edges), ConditionalEdges: len(d.conditional),
		Risks: sortedKeys(d.risks, strings.Compare), Versions: sortVersions(versions),
	}}
}

func (g *GraphDiff) empty() bool {
	return g.Summary == nil && g.Counts() == Counts{}
}

func compareNodes(o, n Node) (NodeChange, bool) {
	c := NodeChange{Version: o.Version}
	if o.Payload != n.Payload {
		c.Payload = &ValueChange{o.Payload, n.Payload}
	}
	for _, k := range sortedKeys(union(o.Metadata, n.Metadata), strings.Compare) {
		ov, inOld := o.Metadata[k]
		nv, inNew := n.Metadata[k]
		switch {
		case !inOld:
			c.Metadata = append(c.Metadata, KeyChange{Key: k, New: &nv})
		case !inNew:
			c.Metadata = append(c.Metadata, KeyChange{Key: k, Old: &ov})
		case ov != nv:
			c.Metadata = append(c.Metadata, KeyChange{Key: k, Old: &ov, New: &nv})
		}
	}
	return c, c.Payload != nil || c.Metadata != nil
}

// union has the keys of both maps; only its keys are used.
func union[K comparable, V any](a, b map[K]V) map[K]bool {
	u := make(map[K]bool, max(len(a), len(b)))
	for k := range a {
		u[k] = true
	}
	for k := range b {
		u[k] = true
	}
	return u
}

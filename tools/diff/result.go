package diff

import (
	"cmp"
	"slices"
	"strings"

	"github.com/upgraph/upgraph/tree/wire"
)

// Result is the difference between two sources. The zero value means no
// difference; slices are sorted (channels and arches by name, graphs by
// channel then arch, versions by SemVer precedence).
type Result struct {
	// Old and New name the sources as given, for headings.
	Old string `json:"old"`
	New string `json:"new"`
	// Compared counts the channel × arch graphs looked at, on either side.
	Compared int         `json:"compared"`
	Channels NameChanges `json:"channels"`
	Arches   NameChanges `json:"arches"`
	// Graphs are the channel × arch graphs that differ.
	Graphs []GraphDiff `json:"graphs"`
	// Catalogs are the operator catalogs that differ (absent when
	// neither side has a catalog that differs).
	Catalogs []CatalogDiff `json:"catalogs,omitempty"`
	// Rollouts are the phased rollouts that differ (trees only; absent
	// when none do).
	Rollouts []RolloutChange `json:"rollouts,omitempty"`
}

// Empty reports whether the sources serve the same graphs.
func (r *Result) Empty() bool {
	return len(r.Graphs) == 0 && len(r.Channels.Added) == 0 && len(r.Channels.Removed) == 0 &&
		len(r.Arches.Added) == 0 && len(r.Arches.Removed) == 0 && len(r.Catalogs) == 0 && len(r.Rollouts) == 0
}

// NameChanges are channels or arches one side has and the other lacks.
type NameChanges struct {
	Added   []string `json:"added,omitempty"`
	Removed []string `json:"removed,omitempty"`
}

// Status says whether a channel × arch graph is on both sides.
type Status string

const (
	Changed Status = "changed"
	Added   Status = "added"
	Removed Status = "removed"
)

// GraphDiff is one channel × arch graph that differs. A graph on one side
// only (Added, Removed) is summarised by Summary rather than listed edge by
// edge: a new channel is seeded with hundreds of releases and thousands of
// edges, all of which would be noise in a review.
type GraphDiff struct {
	Channel string `json:"channel"`
	Arch    string `json:"arch"`
	Status  Status `json:"status"`
	// Summary sizes the graph of an Added or Removed one.
	Summary *Summary `json:"summary,omitempty"`
	// The rest is set for Changed graphs.
	Nodes       NodeChanges        `json:"nodes,omitzero"`
	Edges       EdgeChanges        `json:"edges,omitzero"`
	Conditional ConditionalChanges `json:"conditionalEdges,omitzero"`
	Risks       RiskChanges        `json:"risks,omitzero"`
}

// Summary sizes a graph present on one side only.
type Summary struct {
	Nodes            int      `json:"nodes"`
	Edges            int      `json:"edges"`
	ConditionalEdges int      `json:"conditionalEdges"`
	Risks            []string `json:"risks,omitempty"`
	Versions         []string `json:"versions"`
}

// Node is a release as served.
type Node struct {
	Version  string            `json:"version"`
	Payload  string            `json:"payload"`
	Metadata map[string]string `json:"metadata"`
}

// Edge is an update from one version to another.
type Edge struct {
	From string `json:"from"`
	To   string `json:"to"`
}

// Risk is a conditional-update risk, in its served form.
type Risk = wire.Risk

// MatchingRule is one rule of a risk; PromQL is nil for "Always".
type MatchingRule = wire.MatchingRule

// PromQL is a PromQL rule's query.
type PromQL = wire.PromQL

func equalRisks(a, b Risk) bool { return compareRisks(a, b) == 0 }

func compareRisks(a, b Risk) int {
	return cmp.Or(
		strings.Compare(a.Name, b.Name), strings.Compare(a.URL, b.URL), strings.Compare(a.Message, b.Message),
		slices.CompareFunc(a.MatchingRules, b.MatchingRules, compareRules))
}

func compareRules(a, b MatchingRule) int {
	return cmp.Or(strings.Compare(a.Type, b.Type), strings.Compare(a.Query(), b.Query()), cmpBool(a.PromQL != nil, b.PromQL != nil))
}

func cmpBool(a, b bool) int {
	switch {
	case a == b:
		return 0
	case a:
		return 1
	}
	return -1
}

type NodeChanges struct {
	Added   []Node       `json:"added,omitempty"`
	Removed []Node       `json:"removed,omitempty"`
	Changed []NodeChange `json:"changed,omitempty"`
}

// NodeChange is a release on both sides with a different payload or
// metadata.
type NodeChange struct {
	Version string `json:"version"`
	// Payload is set when the payload changed.
	Payload  *ValueChange `json:"payload,omitempty"`
	Metadata []KeyChange  `json:"metadata,omitempty"`
}

// ValueChange is a value on both sides.
type ValueChange struct {
	Old string `json:"old"`
	New string `json:"new"`
}

// KeyChange is a metadata key added (Old nil), removed (New nil) or
// changed.
type KeyChange struct {
	Key string  `json:"key"`
	Old *string `json:"old,omitempty"`
	New *string `json:"new,omitempty"`
}

type EdgeChanges struct {
	Added   []Edge `json:"added,omitempty"`
	Removed []Edge `json:"removed,omitempty"`
}

type ConditionalChanges struct {
	Added   []ConditionalEdge   `json:"added,omitempty"`
	Removed []ConditionalEdge   `json:"removed,omitempty"`
	Changed []ConditionalChange `json:"changed,omitempty"`
}

// ConditionalEdge is a conditional update with the names of its risks.
type ConditionalEdge struct {
	Edge
	Risks []string `json:"risks"`
}

// ConditionalChange is a conditional update on both sides whose risks
// differ.
type ConditionalChange struct {
	Edge
	Old []string `json:"old"`
	New []string `json:"new"`
}

// RiskChanges compare risks by name across the whole graph. A name has
// more than one definition only when a producer serves conflicting ones.
type RiskChanges struct {
	Added   []Risk       `json:"added,omitempty"`
	Removed []Risk       `json:"removed,omitempty"`
	Changed []RiskChange `json:"changed,omitempty"`
}

type RiskChange struct {
	Name string `json:"name"`
	Old  []Risk `json:"old"`
	New  []Risk `json:"new"`
}

// Counts are what the summary table shows for a graph.
type Counts struct {
	NodesAdded, NodesRemoved, NodesChanged int
	EdgesAdded, EdgesRemoved               int
	// Conditional and Risks count additions, removals and changes.
	Conditional, Risks int
}

// Counts tallies the graph's differences; for a graph on one side only,
// everything in it counts as added or removed.
func (g *GraphDiff) Counts() Counts {
	if g.Summary != nil {
		c := Counts{Conditional: g.Summary.ConditionalEdges, Risks: len(g.Summary.Risks)}
		if g.Status == Added {
			c.NodesAdded, c.EdgesAdded = g.Summary.Nodes, g.Summary.Edges
		} else {
			c.NodesRemoved, c.EdgesRemoved = g.Summary.Nodes, g.Summary.Edges
		}
		return c
	}
	return Counts{
		NodesAdded: len(g.Nodes.Added), NodesRemoved: len(g.Nodes.Removed), NodesChanged: len(g.Nodes.Changed),
		EdgesAdded: len(g.Edges.Added), EdgesRemoved: len(g.Edges.Removed),
		Conditional: len(g.Conditional.Added) + len(g.Conditional.Removed) + len(g.Conditional.Changed),
		Risks:       len(g.Risks.Added) + len(g.Risks.Removed) + len(g.Risks.Changed),
	}
}

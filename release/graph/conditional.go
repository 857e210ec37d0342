package graph

import "regexp"

// MatchingRule is one rule of a risk: type "Always" or "PromQL" with its query.
type MatchingRule struct {
	Type   string
	PromQL string // empty when the rule has no promql object
}

// Risk explains why an update is conditional.
type Risk struct {
	URL           string
	Name          string
	Message       string
	MatchingRules []MatchingRule
}

// EdgeRef names an edge by version strings, as conditional edges do on the wire.
type EdgeRef struct{ From, To string }

// ConditionalEdge is a group of edges sharing the same ordered risk list.
type ConditionalEdge struct {
	Edges []EdgeRef
	Risks []Risk
}

// Declaration is a conditional risk as declared by graph-data, before it is
// resolved against the edges (spec §3.8 step 1).
type Declaration struct {
	From *regexp.Regexp // matched unanchored against source versions
	To   string         // target version as written (build may be absent)
	Risk Risk
	// Source names the graph-data file that declared it, for diagnostics.
	Source string
}

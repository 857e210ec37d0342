// Package wire decodes the policy-engine graph format (spec §7.2), what a
// tree's channel graph files hold and a Cincinnati endpoint answers:
//
//	{"version":1,"nodes":[…],"edges":[[i,j],…],"conditionalEdges":[…]}
//
// It checks the document's structure only: the format version, that every
// node has a version and a payload and no two nodes the same version, and
// that every edge is a pair of node indices. What the graph means (SemVer
// versions, self-edges, conditional edges naming nodes) is left to the
// packages building their own models from a Document. The graph-builder
// format, an input, is package graph's.
package wire

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
)

// Document is a decoded graph, in the order and grouping served.
type Document struct {
	// Nodes is nil when the document has no "nodes" key.
	Nodes []Node
	// Edges are pairs of indices into Nodes; nil when the document has no
	// "edges" key.
	Edges []Edge
	// ConditionalEdges are as served: groups of edges, named by version,
	// sharing a list of risks.
	ConditionalEdges []ConditionalEdge
}

// Node is a release. Metadata is nil when the node has none (no key or
// null).
type Node struct {
	Version  string
	Payload  string
	Metadata map[string]string
}

// Edge is an update from node Edge[0] to node Edge[1].
type Edge [2]int

// ConditionalEdge is a conditionalEdges entry.
type ConditionalEdge struct {
	Edges []EdgeRef `json:"edges"`
	Risks []Risk    `json:"risks"`
}

// EdgeRef names an edge by its versions.
type EdgeRef struct {
	From string `json:"from"`
	To   string `json:"to"`
}

// Risk is a conditional-update risk.
type Risk struct {
	URL           string         `json:"url"`
	Name          string         `json:"name"`
	Message       string         `json:"message"`
	MatchingRules []MatchingRule `json:"matchingRules"`
}

// MatchingRule is one rule of a risk; PromQL is nil when the rule has no
// promql object ("Always").
type MatchingRule struct {
	Type   string  `json:"type"`
	PromQL *PromQL `json:"promql,omitempty"`
}

// PromQL is a PromQL rule's query.
type PromQL struct {
	PromQL string `json:"promql"`
}

// Query is the rule's PromQL query, "" if it has none.
func (m MatchingRule) Query() string {
	if m.PromQL == nil {
		return ""
	}
	return m.PromQL.PromQL
}

// ErrNoVersion is the error for a document without a "version" key.
var ErrNoVersion = errors.New(`not a policy-engine graph (no "version" key); is it a graph-builder's /graph?`)

// raw is the document as encoding/json reads it. Edges decode through
// Edge.UnmarshalJSON, without an allocation each; when one is not a pair
// of non-negative integers, or the document has a JSON error, it is
// decoded again with E = []int.
type raw[E any] struct {
	Version *int `json:"version"`
	Nodes   []struct {
		Version  *string           `json:"version"`
		Payload  *string           `json:"payload"`
		Metadata map[string]string `json:"metadata"`
	} `json:"nodes"`
	Edges            []E               `json:"edges"`
	ConditionalEdges []ConditionalEdge `json:"conditionalEdges"`
}

// Decode reads a document. Errors do not name it: callers prefix where it
// came from. A JSON error is encoding/json's, so that its offset can be
// turned into a position.
func Decode(data []byte) (*Document, error) {
	var w raw[Edge]
	err := json.Unmarshal(data, &w)
	var slow raw[[]int]
	if err != nil || slices.ContainsFunc(w.Edges, func(e Edge) bool { return e[0] < 0 }) {
		// Decoded as before Edge.UnmarshalJSON, for the first JSON error in
		// document order and for edges as written.
		if err := cmp.Or(json.Unmarshal(data, &slow), err); err != nil {
			return nil, err
		}
	}
	switch {
	case w.Version == nil:
		return nil, ErrNoVersion
	case *w.Version != 1:
		return nil, fmt.Errorf("graph format version %d, want 1", *w.Version)
	}
	d := &Document{Edges: w.Edges, ConditionalEdges: w.ConditionalEdges}
	if w.Nodes != nil {
		d.Nodes = make([]Node, len(w.Nodes))
	}
	seen := make(map[string]bool, len(w.Nodes))
	for i, n := range w.Nodes {
		if n.Version == nil || n.Payload == nil {
			return nil, fmt.Errorf("nodes[%d]: want version and payload", i)
		}
		if seen[*n.Version] {
			return nil, fmt.Errorf("nodes[%d]: duplicate version %s", i, *n.Version)
		}
		seen[*n.Version] = true
		d.Nodes[i] = Node{Version: *n.Version, Payload: *n.Payload, Metadata: n.Metadata}
	}
	for i, e := range w.Edges {
		if e[0] < 0 || e[0] >= len(d.Nodes) || e[1] < 0 || e[1] >= len(d.Nodes) {
			var written any = e
			if slow.Edges != nil {
				written = slow.Edges[i]
			}
			return nil, fmt.Errorf("edges[%d]: %v is not a pair of node indices (%d nodes)", i, written, len(d.Nodes))
		}
	}
	return d, nil
}

// UnmarshalJSON reads [i,j] of non-negative integers; anything else,
// valid JSON as encoding/json has checked, gives {-1,-1}, which Decode
// reports.
func (e *Edge) UnmarshalJSON(b []byte) error {
	*e = Edge{-1, -1}
	var pair Edge
	k, p := 0, skipSpace(b, 0)
	if p >= len(b) || b[p] != '[' {
		return nil
	}
	for k < 2 {
		p = skipSpace(b, p+1)
		start, n := p, 0
		for ; p < len(b) && '0' <= b[p] && b[p] <= '9' && p-start < 9; p++ {
			n = n*10 + int(b[p]-'0')
		}
		p = skipSpace(b, p)
		if p == start || p >= len(b) || b[p] != ",]"[k] {
			return nil
		}
		pair[k] = n
		k++
	}
	if skipSpace(b, p+1) == len(b) {
		*e = pair
	}
	return nil
}

func skipSpace(b []byte, p int) int {
	for p < len(b) && (b[p] == ' ' || b[p] == '\t' || b[p] == '\n' || b[p] == '\r') {
		p++
	}
	return p
}

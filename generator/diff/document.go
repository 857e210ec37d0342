package diff

import (
	"encoding/json"
	"fmt"
	"slices"
)

// document is one channel × arch graph keyed by what a cluster sees:
// versions rather than node indices, and conditional edges by version
// pair rather than by the group the producer happened to put them in.
type document struct {
	nodes       map[string]Node
	edges       map[Edge]bool
	conditional map[Edge][]string // risk names, sorted
	// risks holds each risk name's distinct definitions, normally one; a
	// producer that serves two risks under one name is reported as such
	// rather than having one of them picked arbitrarily.
	risks map[string][]Risk
}

func (d *document) empty() bool {
	return len(d.nodes) == 0 && len(d.edges) == 0 && len(d.conditional) == 0
}

// wireDoc is the served format (spec §7.2). generator/mirror has a
// decoder for it, but unexported and merging answers into one graph,
// which would lose the per-channel view a diff needs.
type wireDoc struct {
	Version          *int       `json:"version"`
	Nodes            []wireNode `json:"nodes"`
	Edges            [][]int    `json:"edges"`
	ConditionalEdges []struct {
		Edges []Edge `json:"edges"`
		Risks []Risk `json:"risks"`
	} `json:"conditionalEdges"`
}

type wireNode struct {
	Version  *string           `json:"version"`
	Payload  *string           `json:"payload"`
	Metadata map[string]string `json:"metadata"`
}

// decode reads a policy-engine graph document; name says where it came
// from in errors.
func decode(name string, data []byte) (*document, error) {
	var w wireDoc
	if err := json.Unmarshal(data, &w); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	switch {
	case w.Version == nil:
		return nil, fmt.Errorf("%s: not a policy-engine graph (no \"version\" key)", name)
	case *w.Version != 1:
		return nil, fmt.Errorf("%s: graph format version %d, want 1", name, *w.Version)
	}
	d := &document{
		nodes:       make(map[string]Node, len(w.Nodes)),
		edges:       make(map[Edge]bool, len(w.Edges)),
		conditional: map[Edge][]string{},
		risks:       map[string][]Risk{},
	}
	versions := make([]string, len(w.Nodes))
	for i, n := range w.Nodes {
		if n.Version == nil || n.Payload == nil {
			return nil, fmt.Errorf("%s: nodes[%d]: want version and payload", name, i)
		}
		if _, dup := d.nodes[*n.Version]; dup {
			return nil, fmt.Errorf("%s: nodes[%d]: duplicate version %s", name, i, *n.Version)
		}
		versions[i] = *n.Version
		d.nodes[*n.Version] = Node{Version: *n.Version, Payload: *n.Payload, Metadata: n.Metadata}
	}
	for i, e := range w.Edges {
		if len(e) != 2 || e[0] < 0 || e[0] >= len(versions) || e[1] < 0 || e[1] >= len(versions) {
			return nil, fmt.Errorf("%s: edges[%d]: %v is not a pair of node indices (%d nodes)", name, i, e, len(versions))
		}
		d.edges[Edge{versions[e[0]], versions[e[1]]}] = true
	}
	for _, group := range w.ConditionalEdges {
		for _, r := range group.Risks {
			if !slices.ContainsFunc(d.risks[r.Name], r.equal) {
				d.risks[r.Name] = append(d.risks[r.Name], r)
			}
		}
		for _, e := range group.Edges {
			// An edge in two groups carries the risks of both.
			names := d.conditional[e]
			for _, r := range group.Risks {
				names = append(names, r.Name)
			}
			slices.Sort(names)
			d.conditional[e] = slices.Compact(names)
		}
	}
	for name, defs := range d.risks {
		slices.SortFunc(defs, compareRisks)
		d.risks[name] = defs
	}
	return d, nil
}

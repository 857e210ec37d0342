package diff

import (
	"fmt"
	"slices"

	"github.com/upgraph/upgraph/tree/wire"
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

// decode reads a policy-engine graph document; name says where it came
// from in errors.
func decode(name string, data []byte) (*document, error) {
	w, err := wire.Decode(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	d := &document{
		nodes:       make(map[string]Node, len(w.Nodes)),
		edges:       make(map[Edge]bool, len(w.Edges)),
		conditional: map[Edge][]string{},
		risks:       map[string][]Risk{},
	}
	for _, n := range w.Nodes {
		d.nodes[n.Version] = Node{Version: n.Version, Payload: n.Payload, Metadata: n.Metadata}
	}
	for _, e := range w.Edges {
		d.edges[Edge{w.Nodes[e[0]].Version, w.Nodes[e[1]].Version}] = true
	}
	for _, group := range w.ConditionalEdges {
		for _, r := range group.Risks {
			if !slices.ContainsFunc(d.risks[r.Name], func(o Risk) bool { return equalRisks(r, o) }) {
				d.risks[r.Name] = append(d.risks[r.Name], r)
			}
		}
		for _, e := range group.Edges {
			// An edge in two groups carries the risks of both.
			names := d.conditional[Edge(e)]
			for _, r := range group.Risks {
				names = append(names, r.Name)
			}
			slices.Sort(names)
			d.conditional[Edge(e)] = slices.Compact(names)
		}
	}
	for name, defs := range d.risks {
		slices.SortFunc(defs, compareRisks)
		d.risks[name] = defs
	}
	return d, nil
}

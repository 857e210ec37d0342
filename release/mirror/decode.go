package mirror

import (
	"fmt"

	"github.com/upgraph/upgraph/release/graph"
	"github.com/upgraph/upgraph/tree/version"
	"github.com/upgraph/upgraph/tree/wire"
)

// served is one policy-engine answer (spec §7.2), versions as served.
type served struct {
	nodes []servedNode
	edges [][2]int // indices into nodes
	// conditional keeps the answer's grouping; it is regrouped in union.
	conditional []graph.ConditionalEdge
}

type servedNode struct {
	version  version.Version
	payload  string
	metadata map[string]string
}

// decode reads a policy-engine graph. It is stricter than a cluster about
// what a policy-engine never serves (abstract nodes, a missing "version":
// the mark of a graph-builder's unfiltered graph), because mirroring such
// an answer would publish something the endpoint does not.
func decode(url string, data []byte) (*served, error) {
	w, err := wire.Decode(data)
	switch {
	case err != nil:
		return nil, fmt.Errorf("%s: %w", url, graph.JSONPosition(data, err))
	case w.Nodes == nil || w.Edges == nil:
		return nil, fmt.Errorf("%s: graph needs both \"nodes\" and \"edges\"", url)
	}
	d := &served{nodes: make([]servedNode, len(w.Nodes)), edges: make([][2]int, len(w.Edges))}
	for i, wn := range w.Nodes {
		if wn.Metadata == nil {
			return nil, fmt.Errorf("%s: nodes[%d]: want version, payload and metadata", url, i)
		}
		v, err := version.Parse(wn.Version)
		if err != nil || v.String() != wn.Version {
			return nil, fmt.Errorf("%s: nodes[%d]: version %q is not SemVer", url, i, wn.Version)
		}
		d.nodes[i] = servedNode{version: v, payload: wn.Payload, metadata: wn.Metadata}
	}
	for i, e := range w.Edges {
		if e[0] == e[1] {
			return nil, fmt.Errorf("%s: edges[%d]: %v is not a pair of distinct node indices (%d nodes)", url, i, e, len(d.nodes))
		}
		d.edges[i] = e
	}
	for _, wc := range w.ConditionalEdges {
		var ce graph.ConditionalEdge
		if wc.Edges != nil {
			ce.Edges = make([]graph.EdgeRef, len(wc.Edges))
		}
		for i, e := range wc.Edges {
			ce.Edges[i] = graph.EdgeRef(e)
		}
		for _, wr := range wc.Risks {
			r := graph.Risk{URL: wr.URL, Name: wr.Name, Message: wr.Message}
			for _, mr := range wr.MatchingRules {
				r.MatchingRules = append(r.MatchingRules, graph.MatchingRule{Type: mr.Type, PromQL: mr.Query()})
			}
			ce.Risks = append(ce.Risks, r)
		}
		d.conditional = append(d.conditional, ce)
	}
	return d, nil
}

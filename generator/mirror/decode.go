package mirror

import (
	"encoding/json"
	"fmt"

	"github.com/upgraph/upgraph/generator/graph"
	"github.com/upgraph/upgraph/generator/version"
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

// wireDoc is decoded here rather than by graph.Decode, which reads the
// unversioned graph-builder format and rejects the "version" key.
type wireDoc struct {
	Version          *int              `json:"version"`
	Nodes            []wireNode        `json:"nodes"`
	Edges            [][]int           `json:"edges"`
	ConditionalEdges []wireConditional `json:"conditionalEdges"`
}

type wireNode struct {
	Version  *string           `json:"version"`
	Payload  *string           `json:"payload"`
	Metadata map[string]string `json:"metadata"`
}

type wireConditional struct {
	Edges []graph.EdgeRef `json:"edges"`
	Risks []struct {
		URL           string `json:"url"`
		Name          string `json:"name"`
		Message       string `json:"message"`
		MatchingRules []struct {
			Type   string `json:"type"`
			PromQL struct {
				PromQL string `json:"promql"`
			} `json:"promql"`
		} `json:"matchingRules"`
	} `json:"risks"`
}

// decode reads a policy-engine graph. It is stricter than a cluster about
// what a policy-engine never serves (abstract nodes, a missing "version":
// the mark of a graph-builder's unfiltered graph), because mirroring such
// an answer would publish something the endpoint does not.
func decode(url string, data []byte) (*served, error) {
	var w wireDoc
	if err := json.Unmarshal(data, &w); err != nil {
		return nil, fmt.Errorf("%s: %w", url, graph.JSONPosition(data, err))
	}
	switch {
	case w.Version == nil:
		return nil, fmt.Errorf("%s: not a policy-engine graph (no \"version\" key); is it a graph-builder's /graph?", url)
	case *w.Version != 1:
		return nil, fmt.Errorf("%s: graph format version %d, want 1", url, *w.Version)
	case w.Nodes == nil || w.Edges == nil:
		return nil, fmt.Errorf("%s: graph needs both \"nodes\" and \"edges\"", url)
	}
	d := &served{nodes: make([]servedNode, len(w.Nodes)), edges: make([][2]int, len(w.Edges))}
	seen := make(map[string]bool, len(w.Nodes))
	for i, wn := range w.Nodes {
		if wn.Version == nil || wn.Payload == nil || wn.Metadata == nil {
			return nil, fmt.Errorf("%s: nodes[%d]: want version, payload and metadata", url, i)
		}
		v, err := version.Parse(*wn.Version)
		if err != nil || v.String() != *wn.Version {
			return nil, fmt.Errorf("%s: nodes[%d]: version %q is not SemVer", url, i, *wn.Version)
		}
		if seen[v.String()] {
			return nil, fmt.Errorf("%s: nodes[%d]: duplicate version %s", url, i, v)
		}
		seen[v.String()] = true
		d.nodes[i] = servedNode{version: v, payload: *wn.Payload, metadata: wn.Metadata}
	}
	for i, e := range w.Edges {
		if len(e) != 2 || e[0] < 0 || e[0] >= len(d.nodes) || e[1] < 0 || e[1] >= len(d.nodes) || e[0] == e[1] {
			return nil, fmt.Errorf("%s: edges[%d]: %v is not a pair of distinct node indices (%d nodes)", url, i, e, len(d.nodes))
		}
		d.edges[i] = [2]int{e[0], e[1]}
	}
	for _, wc := range w.ConditionalEdges {
		ce := graph.ConditionalEdge{Edges: wc.Edges}
		for _, wr := range wc.Risks {
			r := graph.Risk{URL: wr.URL, Name: wr.Name, Message: wr.Message}
			for _, mr := range wr.MatchingRules {
				r.MatchingRules = append(r.MatchingRules, graph.MatchingRule{Type: mr.Type, PromQL: mr.PromQL.PromQL})
			}
			ce.Risks = append(ce.Risks, r)
		}
		d.conditional = append(d.conditional, ce)
	}
	return d, nil
}

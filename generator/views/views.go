// Package views renders policy views as served JSON: the full channel
// graph, and for each of its releases the per-version graph a cluster at
// that version needs (its node, its update targets, their edges and the
// conditional edges leaving it).
package views

import (
	"slices"
	"strings"

	"github.com/upgraph/upgraph/generator/graph"
	"github.com/upgraph/upgraph/generator/internal/jsonw"
	"github.com/upgraph/upgraph/generator/policy"
)

// Renderer encodes views. Node objects are identical in every view of the
// same architecture, so each is encoded once and reused.
type Renderer struct {
	g     *graph.Graph
	nodes map[nodeKey][]byte
}

type nodeKey struct {
	node int
	arch string
}

// NewRenderer returns a Renderer for views of g. It is not safe for
// concurrent use; use one per goroutine.
func NewRenderer(g *graph.Graph) *Renderer {
	return &Renderer{g: g, nodes: map[nodeKey][]byte{}}
}

// node returns the encoded node as served for arch: arch-stripped version
// and metadata without the arch key (spec §6.7).
func (r *Renderer) node(i int, arch, served string) []byte {
	k := nodeKey{i, arch}
	if b, ok := r.nodes[k]; ok {
		return b
	}
	n := r.g.Node(i)
	md := make(map[string]string, len(n.Metadata))
	for key, val := range n.Metadata {
		if key != graph.KeyArch {
			md[key] = val
		}
	}
	b := graph.AppendNode(nil, served, &graph.Node{Version: served, Payload: n.Payload, Metadata: md})
	r.nodes[k] = b
	return b
}

// Channel encodes the full channel graph:
// {"version":1,"nodes":[…],"edges":[…],"conditionalEdges":[…]}.
func (r *Renderer) Channel(v *policy.ChannelView) []byte {
	b := make([]byte, 0, 256*len(v.Nodes)+16*len(v.Edges)+64)
	b = append(b, `{"version":1,"nodes":[`...)
	for p, i := range v.Nodes {
		if p > 0 {
			b = append(b, ',')
		}
		b = append(b, r.node(i, v.Arch, v.Versions[p])...)
	}
	b = append(b, `],"edges":[`...)
	for k, e := range v.Edges {
		if k > 0 {
			b = append(b, ',')
		}
		b = graph.AppendEdge(b, e[0], e[1])
	}
	b = append(b, `],"conditionalEdges":`...)
	b = graph.AppendConditional(b, v.Conditional)
	return append(b, '}')
}

// Version is one per-version graph of a channel view.
type Version struct {
	// Position of the release in the channel view.
	Position int
	// Served version string, e.g. "4.16.3".
	Version string
	Body    []byte
}

// Versions encodes the per-version graph of every release in v, calling
// emit for each in node order. A cluster at that version reads from it the
// same current release, updates and conditional updates as from the full
// channel graph: the node, every update target, the edges from the node,
// and one conditional entry per conditional target with all its risks.
func (r *Renderer) Versions(v *policy.ChannelView, emit func(Version) error) error {
	out := make([][]int, len(v.Nodes))
	for _, e := range v.Edges {
		out[e[0]] = append(out[e[0]], e[1])
	}
	cond := make([][]policy.ConditionalPair, len(v.Nodes))
	for _, cp := range v.ConditionalPairs {
		cond[cp.From] = append(cond[cp.From], cp)
	}
	var b []byte
	for p := range v.Nodes {
		members := []int{p}
		members = append(members, out[p]...)
		for _, cp := range cond[p] {
			members = append(members, cp.To)
		}
		slices.Sort(members)
		members = slices.Compact(members)
		local := make(map[int]int, len(members))
		for k, m := range members {
			local[m] = k
		}
		b = append(b[:0], `{"version":1,"nodes":[`...)
		for k, m := range members {
			if k > 0 {
				b = append(b, ',')
			}
			b = append(b, r.node(v.Nodes[m], v.Arch, v.Versions[m])...)
		}
		b = append(b, `],"edges":[`...)
		for k, t := range out[p] {
			if k > 0 {
				b = append(b, ',')
			}
			b = graph.AppendEdge(b, local[p], local[t])
		}
		b = append(b, `],"conditionalEdges":[`...)
		slices.SortFunc(cond[p], func(a, c policy.ConditionalPair) int { return a.To - c.To })
		for k, cp := range cond[p] {
			if k > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"edges":[{"from":`...)
			b = jsonw.String(b, v.Versions[p])
			b = append(b, `,"to":`...)
			b = jsonw.String(b, v.Versions[cp.To])
			b = append(b, `}],"risks":`...)
			b = graph.AppendRisks(b, v.Conditional[cp.Group].Risks)
			b = append(b, '}')
		}
		b = append(b, "]}"...)
		if err := emit(Version{Position: p, Version: v.Versions[p], Body: b}); err != nil {
			return err
		}
	}
	return nil
}

// FileName encodes a served version as a file name that is safe on every
// file system and object store, case-insensitive ones included:
// [0-9a-z.-] are kept, '+' becomes '_', and an upper-case letter X becomes
// "!x". SemVer allows no other characters, and '_' and '!' never occur in
// a version, so the encoding is reversible; typical versions ("4.16.3",
// "4.17.0-rc.1") are unchanged.
func FileName(version string) string {
	if !needsEscape(version) {
		return version + ".json"
	}
	var s strings.Builder
	for i := 0; i < len(version); i++ {
		c := version[i]
		switch {
		case c == '+':
			s.WriteByte('_')
		case c >= 'A' && c <= 'Z':
			s.WriteByte('!')
			s.WriteByte(c + 'a' - 'A')
		default:
			s.WriteByte(c)
		}
	}
	return s.String() + ".json"
}

func needsEscape(v string) bool {
	for i := 0; i < len(v); i++ {
		if c := v[i]; c == '+' || (c >= 'A' && c <= 'Z') {
			return true
		}
	}
	return false
}

// Package views renders policy views as served JSON: the full channel
// graph, and for each of its releases the per-version graph a cluster at
// that version needs (its node, its update targets, their edges and the
// conditional edges leaving it).
package views

import (
	"encoding/binary"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/upgraph/upgraph/internal/jsonw"
	"github.com/upgraph/upgraph/release/graph"
	"github.com/upgraph/upgraph/release/policy"
)

// Renderer encodes views. Node objects are identical in every view of the
// same architecture, so each is encoded once and reused, by every
// Renderer of the same NewRenderers call.
type Renderer struct {
	g *graph.Graph
	// nodes[arch][node] is the node as served for arch, encoded on first
	// use: a slice rather than a map keyed by (node, arch), since every
	// file looks up each of its nodes. The slices are shared's, looked up
	// once per arch.
	nodes  map[string][]encodedNode
	shared *nodeCache
	// risks holds encoded risk lists by their first element and length:
	// views share the graph's risk slices, and the same few hundred lists
	// are written into tens of thousands of per-version files.
	risks map[risksKey][]byte

	// The view last rendered, its served versions quoted as JSON strings
	// (version p is quoted[quotedAt[p]:quotedAt[p+1]]): conditional edges
	// name their releases by version, millions of times per generation.
	// Holding the view also keeps its address from being reused by
	// another while it is cached.
	quotedView *policy.ChannelView
	quoted     []byte
	quotedAt   []int32
	// Scratch of version: a file's members, each member's index in the
	// file by view position, and its conditional groups.
	members []int
	local   []int32
	groups  []int
	// fromPrefix is {"from":…,"to": for the pairs being written.
	fromPrefix []byte
}

type risksKey struct {
	first *graph.Risk
	n     int
}

// encodedNode is a node's JSON object, nil until encoded. Renderers
// running side by side may both encode a node: they write the same
// bytes, and the first stored is kept.
type encodedNode = atomic.Pointer[[]byte]

// nodeCache holds the encoded nodes of each architecture for the
// Renderers sharing it.
type nodeCache struct {
	mu     sync.Mutex
	byArch map[string][]encodedNode
}

// NewRenderer returns a Renderer for views of g. It is not safe for
// concurrent use; use one per goroutine.
func NewRenderer(g *graph.Graph) *Renderer {
	return NewRenderers(g, 1)[0]
}

// NewRenderers returns n Renderers for views of g, one per goroutine,
// which encode each node object once between them: at real scale every
// worker would otherwise encode the same thousands of nodes for each
// architecture.
func NewRenderers(g *graph.Graph, n int) []*Renderer {
	shared := &nodeCache{byArch: map[string][]encodedNode{}}
	rs := make([]*Renderer, n)
	for k := range rs {
		rs[k] = &Renderer{g: g, nodes: map[string][]encodedNode{}, shared: shared, risks: map[risksKey][]byte{}}
	}
	return rs
}

// nodesFor returns the encoded nodes of arch, indexed by node.
func (r *Renderer) nodesFor(arch string) []encodedNode {
	ns, ok := r.nodes[arch]
	if !ok {
		r.shared.mu.Lock()
		if ns, ok = r.shared.byArch[arch]; !ok {
			ns = make([]encodedNode, r.g.Len())
			r.shared.byArch[arch] = ns
		}
		r.shared.mu.Unlock()
		r.nodes[arch] = ns
	}
	return ns
}

// node returns node i as served for the arch of ns: arch-stripped version
// and metadata without the arch key (spec §6.7).
func (r *Renderer) node(ns []encodedNode, i int, served string) []byte {
	if b := ns[i].Load(); b != nil {
		return *b
	}
	n := r.g.Node(i)
	md := make(map[string]string, len(n.Metadata))
	for key, val := range n.Metadata {
		if key != graph.KeyArch {
			md[key] = val
		}
	}
	b := graph.AppendNode(nil, served, &graph.Node{Version: served, Payload: n.Payload, Metadata: md})
	if !ns[i].CompareAndSwap(nil, &b) {
		return *ns[i].Load()
	}
	return b
}

// quotes makes quote answer for v: its served versions quoted once per
// view, not once per conditional edge.
func (r *Renderer) quotes(v *policy.ChannelView) {
	if r.quotedView == v {
		return
	}
	r.quotedView = v
	r.quoted = r.quoted[:0]
	r.quotedAt = append(r.quotedAt[:0], 0)
	for _, s := range v.Versions {
		r.quoted = jsonw.String(r.quoted, s)
		r.quotedAt = append(r.quotedAt, int32(len(r.quoted)))
	}
}

// quote returns the JSON string of the version at position p of the view
// quotes was last called with.
func (r *Renderer) quote(p int) []byte {
	return r.quoted[r.quotedAt[p]:r.quotedAt[p+1]]
}

// appendConditionalEdge appends {"from":…,"to":…} for a pair of the view
// quotes was last called with.
func (r *Renderer) appendConditionalEdge(b []byte, cp policy.ConditionalPair) []byte {
	b = append(b, `{"from":`...)
	b = append(b, r.quote(cp.From)...)
	b = append(b, `,"to":`...)
	b = append(b, r.quote(cp.To)...)
	return append(b, '}')
}

// Channel appends the full channel graph to b:
// {"version":1,"nodes":[…],"edges":[…],"conditionalEdges":[…]}.
func (r *Renderer) Channel(b []byte, v *policy.ChannelView) []byte {
	// The size, nearly exact, so that b grows once: channel graphs run to
	// megabytes.
	ns := r.nodesFor(v.Arch)
	r.quotes(v)
	size := len(`{"version":1,"nodes":[],"edges":[],"conditionalEdges":[]}`) + 12*len(v.Edges)
	for p, i := range v.Nodes {
		size += len(r.node(ns, i, v.Versions[p])) + 1
	}
	for _, cp := range v.ConditionalPairs {
		size += len(`{"from":,"to":},`) + len(r.quote(cp.From)) + len(r.quote(cp.To))
	}
	for _, cg := range v.Conditional {
		size += len(`{"edges":[],"risks":},`) + len(r.encodedRisks(cg.Risks))
	}
	b = slices.Grow(b, size)
	b = append(b, `{"version":1,"nodes":[`...)
	for p, i := range v.Nodes {
		if p > 0 {
			b = append(b, ',')
		}
		b = append(b, *ns[i].Load()...)
	}
	b = append(b, `],"edges":[`...)
	for k, e := range v.Edges {
		if k > 0 {
			b = append(b, ',')
		}
		b = graph.AppendEdge(b, e[0], e[1])
	}
	// The groups as graph.AppendConditional writes v.ConditionalEdges().
	b = append(b, `],"conditionalEdges":[`...)
	pairs := v.ConditionalPairs
	for gi, ce := range v.Conditional {
		if gi > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"edges":[`...)
		for k, cp := range pairs[:ce.Edges] {
			if k > 0 {
				b = append(b, ',')
			}
			b = r.appendConditionalEdge(b, cp)
		}
		pairs = pairs[ce.Edges:]
		b = append(b, `],"risks":`...)
		b = append(b, r.encodedRisks(ce.Risks)...)
		b = append(b, '}')
	}
	return append(b, "]}"...)
}

// Layout is a channel view prepared for rendering its per-version graphs,
// with a content key per file: files of the same graph with equal keys are
// byte-identical, whatever channel they belong to, so callers can render
// each distinct file once.
type Layout struct {
	View *policy.ChannelView
	// ChannelKey identifies the channel graph's content.
	ChannelKey string
	// VersionKeys identify the per-version graphs, by node position.
	VersionKeys []string

	out  [][][2]int // the edges from each position
	cond [][]policy.ConditionalPair
}

// bySource cuts items, sorted by source position, into each of n
// positions' run.
func bySource[T any](n int, items []T, source func(T) int) [][]T {
	runs := make([][]T, n)
	for k := 0; k < len(items); {
		from, end := source(items[k]), k+1
		for end < len(items) && source(items[end]) == from {
			end++
		}
		runs[from] = items[k:end:end]
		k = end
	}
	return runs
}

// NewLayout computes the adjacency and content keys of v.
func NewLayout(v *policy.ChannelView) *Layout {
	n := len(v.Nodes)
	l := &Layout{
		View: v,
		out:  bySource(n, v.Edges, func(e [2]int) int { return e[0] }),
		cond: bySource(n, v.ConditionalBySource, func(cp policy.ConditionalPair) int { return cp.From }),
	}
	// Keys hold node indices as 4 bytes each; a per-version key counts its
	// targets before listing them, so no two contents share a key.
	key := append(append([]byte("c\x00"), v.Arch...), 0)
	for _, i := range v.Nodes {
		key = binary.LittleEndian.AppendUint32(key, uint32(i))
	}
	l.ChannelKey = string(key)
	l.VersionKeys = make([]string, n)
	for p := range v.Nodes {
		key = append(append(append(key[:0], "v\x00"...), v.Arch...), 0)
		key = binary.LittleEndian.AppendUint32(key, uint32(v.Nodes[p]))
		key = binary.LittleEndian.AppendUint32(key, uint32(len(l.out[p])))
		for _, e := range l.out[p] {
			key = binary.LittleEndian.AppendUint32(key, uint32(v.Nodes[e[1]]))
		}
		for _, cp := range l.cond[p] {
			key = binary.LittleEndian.AppendUint32(key, uint32(v.Nodes[cp.To]))
		}
		l.VersionKeys[p] = string(key)
	}
	return l
}

// Version appends to b the per-version graph of the release at position p.
// A cluster at that version reads from it the same current release,
// updates and conditional updates as from the full channel graph: the
// node, every update target, the edges from the node, and the conditional
// edges leaving it, each target in exactly one entry that carries all of
// its risks.
func (r *Renderer) Version(b []byte, l *Layout, p int) []byte {
	return r.version(b, l.View, p, l.out[p], l.cond[p])
}

// version appends the per-version graph of position p.
func (r *Renderer) version(b []byte, v *policy.ChannelView, p int, out [][2]int, cond []policy.ConditionalPair) []byte {
	members := fileMembers(r.members[:0], p, out, cond)
	r.members = members
	if len(r.local) < len(v.Nodes) {
		r.local = make([]int32, len(v.Nodes))
	}
	size := len(`{"version":1,"nodes":[],"edges":[],"conditionalEdges":[]}`) + 12*len(out)
	ns := r.nodesFor(v.Arch)
	for k, m := range members {
		r.local[m] = int32(k)
		size += len(r.node(ns, v.Nodes[m], v.Versions[m])) + 1
	}
	// The groups of the conditional edges, in order of first appearance; a
	// release has few of them, so each is found by scanning the pairs
	// rather than through a map.
	groups := r.groups[:0]
	r.quotes(v)
	for _, cp := range cond {
		size += len(`{"from":,"to":},`) + len(r.quote(cp.From)) + len(r.quote(cp.To))
		if !slices.Contains(groups, cp.Group) {
			groups = append(groups, cp.Group)
			size += len(`{"edges":[],"risks":},`) + len(r.encodedRisks(v.Conditional[cp.Group].Risks))
		}
	}
	r.groups = groups
	b = slices.Grow(b, size)
	b = append(b, `{"version":1,"nodes":[`...)
	for k, m := range members {
		if k > 0 {
			b = append(b, ',')
		}
		b = append(b, *ns[v.Nodes[m]].Load()...)
	}
	b = append(b, `],"edges":[`...)
	for k, e := range out {
		if k > 0 {
			b = append(b, ',')
		}
		b = graph.AppendEdge(b, int(r.local[p]), int(r.local[e[1]]))
	}
	b = append(b, `],"conditionalEdges":`...)
	b = r.appendOwnConditional(b, v, cond, groups)
	return append(b, '}')
}

// fileMembers appends to members the positions of a per-version file's
// nodes, sorted and distinct: p, the targets of out and of cond. Both
// lists come sorted by target (policy.Index.View), so they are merged
// rather than sorted, which was a tenth of rendering a file; lists that
// are not sorted are sorted all the same.
func fileMembers(members []int, p int, out [][2]int, cond []policy.ConditionalPair) []int {
	i, j, placed := 0, 0, false
	last := -1
	add := func(m int) {
		if m < last {
			last = -2 // not sorted: caught below
		} else if m > last {
			last = m
		} else {
			return
		}
		members = append(members, m)
	}
	for i < len(out) || j < len(cond) {
		var m int
		if j == len(cond) || (i < len(out) && out[i][1] <= cond[j].To) {
			m = out[i][1]
			i++
		} else {
			m = cond[j].To
			j++
		}
		if !placed && p <= m {
			add(p)
			placed = true
		}
		if last == -2 {
			break
		}
		add(m)
		if last == -2 {
			break
		}
	}
	if !placed && last != -2 {
		add(p)
	}
	if last != -2 {
		return members
	}
	members = append(members[:0], p)
	for _, e := range out {
		members = append(members, e[1])
	}
	for _, cp := range cond {
		members = append(members, cp.To)
	}
	slices.Sort(members)
	return slices.Compact(members)
}

// appendOwnConditional appends the conditional edges pairs of one release,
// one entry per group of groups (the pairs' groups in order of first
// appearance), as in the channel graph: targets sharing the same ordered
// risk list share one entry, so long risk texts are written once per file
// rather than once per target.
func (r *Renderer) appendOwnConditional(b []byte, v *policy.ChannelView, pairs []policy.ConditionalPair, groups []int) []byte {
	r.quotes(v)
	from := -1
	b = append(b, '[')
	for k, gi := range groups {
		if k > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"edges":[`...)
		first := true
		for _, cp := range pairs {
			if cp.Group != gi {
				continue
			}
			if !first {
				b = append(b, ',')
			}
			first = false
			// {"from":…,"to": is the same for every pair of one release.
			if cp.From != from {
				from = cp.From
				r.fromPrefix = append(append(append(r.fromPrefix[:0], `{"from":`...), r.quote(from)...), `,"to":`...)
			}
			b = append(b, r.fromPrefix...)
			b = append(b, r.quote(cp.To)...)
			b = append(b, '}')
		}
		b = append(b, `],"risks":`...)
		b = append(b, r.encodedRisks(v.Conditional[gi].Risks)...)
		b = append(b, '}')
	}
	return append(b, ']')
}

// encodedRisks returns graph.AppendRisks(nil, risks), encoded once.
func (r *Renderer) encodedRisks(risks []graph.Risk) []byte {
	if len(risks) == 0 {
		return graph.AppendRisks(nil, risks)
	}
	k := risksKey{&risks[0], len(risks)}
	if b, ok := r.risks[k]; ok {
		return b
	}
	b := graph.AppendRisks(nil, risks)
	r.risks[k] = b
	return b
}

// Package graph is the update-graph model shared by every pipeline stage:
// releases (concrete nodes), versions referenced but never scraped
// (abstract nodes), update edges, and conditional edges with their risks.
package graph

import (
	"fmt"
	"github.com/upgraph/upgraph/internal/clip"
	"slices"
	"strings"
	"sync"

	"github.com/upgraph/upgraph/tree/version"
)

// Metadata keys written and read by the pipeline (spec §1.3).
const (
	KeyPrefix         = "io.openshift.upgrades.graph"
	KeyManifestRef    = KeyPrefix + ".release.manifestref"
	KeyArch           = KeyPrefix + ".release.arch"
	KeyChannels       = KeyPrefix + ".release.channels"
	KeyPreviousAdd    = KeyPrefix + ".previous.add"
	KeyNextAdd        = KeyPrefix + ".next.add"
	KeyPreviousRemove = KeyPrefix + ".previous.remove"
	KeyNextRemove     = KeyPrefix + ".next.remove"
	KeyRemoveRegex    = KeyPrefix + ".previous.remove_regex"
	// KeyPayloadArch marks payloads built for heterogeneous clusters.
	KeyPayloadArch = "release.openshift.io/architecture"
)

// Node is a release. Abstract nodes carry only a version: they stand for a
// release referenced by previous/next that no source provided.
type Node struct {
	Version  string
	Payload  string
	Metadata map[string]string
	Abstract bool

	parsed version.Version // zero when Version is not valid SemVer
}

// SemVer returns the parsed version and whether Version is valid SemVer.
func (n *Node) SemVer() (version.Version, bool) { return n.parsed, !n.parsed.IsZero() }

// Graph is a DAG of nodes plus conditional edges. Node identity is the
// version string; edges are stored in both directions because
// edge-add-remove walks parents and the policy filter walks children, as
// sorted slices rather than sets: nodes have at most a few hundred
// neighbours, and every reader wants them in order.
type Graph struct {
	nodes     []*Node
	byVersion map[string]int
	out, in   [][]int // sorted node indices
	edgeCount int
	// acyclic is set by a CheckAcyclic that found no cycle and cleared by
	// an edge added since: a build checks after assembling and again
	// after previous.add/next.add, which mostly add nothing.
	acyclic bool
	// order is SortedOrder's answer while it has every node (nodes are
	// only ever added, and their versions never change).
	orderMu sync.Mutex
	order   []int

	// Declarations are conditional risks attached by the graph-data parser
	// and consumed by edge-add-remove (spec §3.8, §4.5).
	Declarations []Declaration
	// Conditional holds the conditional-edge groups.
	Conditional []ConditionalEdge
}

// New returns an empty graph.
func New() *Graph { return &Graph{byVersion: map[string]int{}} }

// Len returns the number of nodes.
func (g *Graph) Len() int { return len(g.nodes) }

// EdgeCount returns the number of edges.
func (g *Graph) EdgeCount() int { return g.edgeCount }

// Node returns node i.
func (g *Graph) Node(i int) *Node { return g.nodes[i] }

// Nodes returns the nodes in insertion order; the slice must not be modified.
func (g *Graph) Nodes() []*Node { return g.nodes }

// Lookup returns the index of the node whose version string equals v.
func (g *Graph) Lookup(v string) (int, bool) {
	i, ok := g.byVersion[v]
	return i, ok
}

// AddNode inserts n and returns its index. Versions are unique.
func (g *Graph) AddNode(n *Node) (int, error) {
	v, _ := version.Parse(n.Version)
	return g.addNode(n, v)
}

// addNode is AddNode with n's version already parsed as v (zero when it
// is not SemVer).
func (g *Graph) addNode(n *Node, v version.Version) (int, error) {
	if n.Version == "" {
		return 0, fmt.Errorf("node with empty version")
	}
	if _, dup := g.byVersion[n.Version]; dup {
		return 0, fmt.Errorf("duplicate node version %s", clip.Quote(n.Version))
	}
	if v != (version.Version{}) && v.String() == n.Version {
		n.parsed = v
	}
	if !n.Abstract && n.Metadata == nil {
		n.Metadata = map[string]string{}
	}
	i := len(g.nodes)
	g.nodes = append(g.nodes, n)
	g.byVersion[n.Version] = i
	g.out = append(g.out, nil)
	g.in = append(g.in, nil)
	return i, nil
}

// AddEdge adds from→to and reports whether it was new. It does not check
// for cycles: callers add in bulk and call CheckAcyclic once, which has the
// same outcome as upstream's per-edge WouldCycle check at a fraction of the cost.
func (g *Graph) AddEdge(from, to int) bool {
	k, found := slices.BinarySearch(g.out[from], to)
	if found {
		return false
	}
	g.out[from] = slices.Insert(g.out[from], k, to)
	k, _ = slices.BinarySearch(g.in[to], from)
	g.in[to] = slices.Insert(g.in[to], k, from)
	g.edgeCount++
	g.acyclic = false
	return true
}

// RemoveEdge removes from→to if present.
func (g *Graph) RemoveEdge(from, to int) bool {
	k, found := slices.BinarySearch(g.out[from], to)
	if !found {
		return false
	}
	g.out[from] = slices.Delete(g.out[from], k, k+1)
	k, _ = slices.BinarySearch(g.in[to], from)
	g.in[to] = slices.Delete(g.in[to], k, k+1)
	g.edgeCount--
	return true
}

// RemoveEdgesInto removes, for each k, the edges from each of
// sources[k] (ascending node indices) into targets[k] (ascending and
// distinct), as RemoveEdge for each would, and returns how many there
// were. Every list changed is filtered once instead of shifted once per
// edge, which at real scale (thousands of blocked releases with hundreds
// of parents each) made removal quadratic in the degrees.
func (g *Graph) RemoveEdgesInto(targets []int, sources [][]int) int {
	var gone [][]int // by source: targets losing an edge from it, ascending
	removed := 0
	for k, to := range targets {
		in, kept, j := g.in[to], g.in[to][:0], 0
		for _, from := range in {
			for j < len(sources[k]) && sources[k][j] < from {
				j++
			}
			if j < len(sources[k]) && sources[k][j] == from {
				if gone == nil {
					gone = make([][]int, len(g.nodes))
				}
				gone[from] = append(gone[from], to)
				removed++
				continue
			}
			kept = append(kept, from)
		}
		g.in[to] = kept
	}
	for from, tos := range gone {
		if len(tos) == 0 {
			continue
		}
		out, kept, j := g.out[from], g.out[from][:0], 0
		for _, to := range out {
			for j < len(tos) && tos[j] < to {
				j++
			}
			if j < len(tos) && tos[j] == to {
				continue
			}
			kept = append(kept, to)
		}
		g.out[from] = kept
	}
	g.edgeCount -= removed
	return removed
}

// HasEdge reports whether from→to exists.
func (g *Graph) HasEdge(from, to int) bool {
	_, found := slices.BinarySearch(g.out[from], to)
	return found
}

// Parents returns the sources of edges into i, in ascending index order.
// The slice is the caller's: editing the graph does not change it.
func (g *Graph) Parents(i int) []int { return slices.Clone(g.in[i]) }

// Children returns the targets of edges out of i, in ascending index
// order. The slice is the caller's: editing the graph does not change it.
func (g *Graph) Children(i int) []int { return slices.Clone(g.out[i]) }

// ChildrenView is Children without the copy, for readers of large
// graphs: the slice is the graph's, must not be modified, and is only
// valid until the graph's edges change.
func (g *Graph) ChildrenView(i int) []int { return g.out[i] }

// ParentsView is Parents without the copy, on ChildrenView's terms.
func (g *Graph) ParentsView(i int) []int { return g.in[i] }

// OutDegree returns the number of edges out of i.
func (g *Graph) OutDegree(i int) int { return len(g.out[i]) }

// Edges returns every edge as [from, to], sorted.
func (g *Graph) Edges() [][2]int {
	edges := make([][2]int, 0, g.edgeCount)
	for from := range g.nodes {
		for _, to := range g.out[from] {
			edges = append(edges, [2]int{from, to})
		}
	}
	return edges
}

// CycleError reports a cycle, naming the versions on it.
type CycleError struct{ Versions []string }

func (e *CycleError) Error() string {
	return "update graph would contain a cycle: " + strings.Join(e.Versions, " -> ")
}

// CheckAcyclic returns a *CycleError naming one cycle, or nil.
func (g *Graph) CheckAcyclic() error {
	if g.acyclic {
		return nil // checked, and only nodes added or edges removed since
	}
	const (
		unvisited = iota
		onStack
		done
	)
	state := make([]uint8, len(g.nodes))
	type frame struct {
		node     int
		children []int
	}
	for root := range g.nodes {
		if state[root] != unvisited {
			continue
		}
		stack := []frame{{root, g.out[root]}}
		state[root] = onStack
		for len(stack) > 0 {
			top := &stack[len(stack)-1]
			if len(top.children) == 0 {
				state[top.node] = done
				stack = stack[:len(stack)-1]
				continue
			}
			next := top.children[0]
			top.children = top.children[1:]
			switch state[next] {
			case onStack:
				var path []string
				for i := range stack {
					if stack[i].node == next || len(path) > 0 {
						path = append(path, g.nodes[stack[i].node].Version)
					}
				}
				return &CycleError{Versions: append(path, g.nodes[next].Version)}
			case unvisited:
				state[next] = onStack
				stack = append(stack, frame{next, g.out[next]})
			}
		}
	}
	g.acyclic = true
	return nil
}

// Arches returns the distinct values of the arch metadata key over concrete
// nodes (each value split on "," and trimmed), sorted.
func (g *Graph) Arches() []string {
	seen := map[string]bool{}
	for _, n := range g.nodes {
		if n.Abstract {
			continue
		}
		if v, ok := n.Metadata[KeyArch]; ok {
			for _, a := range SplitList(v) {
				if a != "" {
					seen[a] = true
				}
			}
		}
	}
	out := make([]string, 0, len(seen))
	for a := range seen {
		out = append(out, a)
	}
	slices.Sort(out)
	return out
}

// SplitList splits a comma-separated metadata value and trims each item.
func SplitList(s string) []string {
	parts := strings.Split(s, ",")
	for i := range parts {
		parts[i] = strings.TrimSpace(parts[i])
	}
	return parts
}

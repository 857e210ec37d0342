package path

import (
	"errors"
	"fmt"
)

// ErrNoPath is returned by Plan when both versions are in the graph but
// no path leads from one to the other.
var ErrNoPath = errors.New("no update path")

// UnknownVersionError is returned by Plan for a version that is not a
// node of the graph.
type UnknownVersionError struct {
	Version string
	// Role is "from" or "to".
	Role string
}

func (e *UnknownVersionError) Error() string {
	return fmt.Sprintf("version %s (--%s) is not in the graph", e.Version, e.Role)
}

// Options tune Plan.
type Options struct {
	// UnconditionalOnly ignores conditional edges: the path an admin takes
	// who accepts no known risk at all.
	UnconditionalOnly bool
}

// Path is the update path Plan chose.
type Path struct {
	From, To string
	// Hops are in the order they are taken; empty when From is To.
	Hops []Hop
}

// Hop is one update.
type Hop struct {
	From        string `json:"from"`
	To          string `json:"to"`
	Conditional bool   `json:"conditional"`
	// Risks of a conditional hop (see Edge.Risks); empty otherwise.
	Risks []Risk `json:"risks"`
}

// Conditional returns the number of conditional hops.
func (p Path) Conditional() int {
	n := 0
	for _, h := range p.Hops {
		if h.Conditional {
			n++
		}
	}
	return n
}

// unreachable marks a node without a path to the target.
const unreachable = -1

// Plan returns the best path from one version to another in g, by the
// order in the package documentation. It returns an *UnknownVersionError
// when either version is not in g and ErrNoPath when no path exists.
//
// It runs in O(nodes + edges): a breadth-first search backwards from the
// target gives every node its hop distance d to it; visiting nodes in
// that (breadth-first) order, each gets c, the fewest conditional hops to
// the target over paths of d hops; the path is then walked forwards from
// the source, each step taking the newest successor w that keeps both
// optima: d(w) = d(u)−1 and cond(u,w) + c(w) = c(u). Greed is exact for
// the third criterion because any successor so chosen still has an
// optimal completion, and intermediate sequences compare from the first
// hop on.
func Plan(g *Graph, from, to string, opts Options) (Path, error) {
	p := Path{From: from, To: to, Hops: []Hop{}}
	src, ok := g.Lookup(from)
	if !ok {
		return p, &UnknownVersionError{Version: from, Role: "from"}
	}
	dst, ok := g.Lookup(to)
	if !ok {
		return p, &UnknownVersionError{Version: to, Role: "to"}
	}
	if src == dst {
		return p, nil
	}
	usable := func(e *Edge) bool { return !opts.UnconditionalOnly || !e.Conditional }

	// Backwards breadth-first search from dst; queue order is by d.
	d := make([]int32, len(g.Nodes))
	c := make([]int32, len(g.Nodes))
	for i := range d {
		d[i] = unreachable
	}
	d[dst] = 0
	queue := make([]int32, 1, 64)
	queue[0] = int32(dst)
	for head := 0; head < len(queue); head++ {
		w := queue[head]
		if d[src] != unreachable && d[w] >= d[src] {
			break // every node of a shortest src path has been labelled
		}
		for _, k := range g.in[w] {
			e := &g.Edges[k]
			if !usable(e) || d[e.From] != unreachable {
				continue
			}
			d[e.From] = d[w] + 1
			queue = append(queue, int32(e.From))
		}
	}
	if d[src] == unreachable {
		return p, fmt.Errorf("%w from %s to %s", ErrNoPath, from, to)
	}
	// Fewest conditional hops to dst over shortest paths, by increasing d:
	// every successor on a shortest path has d one less, so is done.
	for _, u := range queue[1:] {
		if d[u] > d[src] {
			break
		}
		best := int32(-1)
		for _, k := range g.out[u] {
			e := &g.Edges[k]
			if !usable(e) || d[e.To] != d[u]-1 {
				continue
			}
			if cost := c[e.To] + b2i(e.Conditional); best < 0 || cost < best {
				best = cost
			}
		}
		c[u] = best
	}
	// Walk forwards, taking the newest successor that keeps both optima.
	for u := src; u != dst; {
		next := -1
		for _, k := range g.out[u] {
			e := &g.Edges[k]
			// out is by ascending target, and node order is version order,
			// so the last match is the newest.
			if usable(e) && d[e.To] == d[u]-1 && c[e.To]+b2i(e.Conditional) == c[u] {
				next = int(k)
			}
		}
		e := g.Edges[next]
		h := Hop{From: g.Nodes[u].Version, To: g.Nodes[e.To].Version, Conditional: e.Conditional, Risks: []Risk{}}
		if e.Conditional {
			h.Risks = e.Risks
		}
		p.Hops = append(p.Hops, h)
		u = e.To
	}
	return p, nil
}

func b2i(b bool) int32 {
	if b {
		return 1
	}
	return 0
}

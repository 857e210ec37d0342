package diff

import (
	"fmt"
	"slices"
	"strings"

	"github.com/upgraph/upgraph/internal/english"
)

// line is one line of a graph's differences, shared by the text and
// markdown renderings. Sign is '+', '-' or '~' (changed) in the first
// column, as in a unified diff, so that diff highlighters colour it; sub
// lines detail a '~' or '+' line and are indented after their own sign.
type line struct {
	sign byte
	text string
	sub  []line
}

// lines lists a graph's differences: nodes, edges, conditional edges,
// then risks, each in version or name order.
func (g *GraphDiff) lines() []line {
	if g.Summary != nil {
		return g.onlyLines()
	}
	var ls []line
	ls = append(ls, g.nodeLines()...)
	conditional := map[Edge]bool{}
	for _, c := range g.Conditional.Added {
		conditional[c.Edge] = true
	}
	unconditional := map[Edge]bool{}
	for _, c := range g.Conditional.Removed {
		unconditional[c.Edge] = true
	}
	// Added and removed edges interleave in version order; a reviewer
	// reads them by source version.
	for _, e := range mergeSorted(g.Edges.Added, g.Edges.Removed, compareEdges) {
		switch {
		case e.added && unconditional[e.v]:
			ls = append(ls, line{sign: '+', text: "edge " + e.v.String() + " (was conditional)"})
		case e.added:
			ls = append(ls, line{sign: '+', text: "edge " + e.v.String()})
		case conditional[e.v]:
			ls = append(ls, line{sign: '-', text: "edge " + e.v.String() + " (now conditional)"})
		default:
			ls = append(ls, line{sign: '-', text: "edge " + e.v.String()})
		}
	}
	ls = append(ls, g.conditionalLines()...)
	ls = append(ls, g.riskLines()...)
	return ls
}

// onlyLines summarise a graph one side lacks (see GraphDiff).
func (g *GraphDiff) onlyLines() []line {
	sign := byte('+')
	if g.Status == Removed {
		sign = '-'
	}
	o := g.Summary
	ls := []line{{sign: sign, text: fmt.Sprintf("%s: %s", english.Count(o.Nodes, "node"), strings.Join(o.Versions, ", "))}}
	if o.Edges > 0 {
		ls = append(ls, line{sign: sign, text: english.Count(o.Edges, "edge")})
	}
	if o.ConditionalEdges > 0 {
		ls = append(ls, line{sign: sign, text: english.Count(o.ConditionalEdges, "conditional edge")})
	}
	if len(o.Risks) > 0 {
		ls = append(ls, line{sign: sign, text: "risks " + strings.Join(o.Risks, ", ")})
	}
	return ls
}

func (e Edge) String() string { return e.From + " → " + e.To }

type signed[T any] struct {
	v     T
	added bool
}

// mergeSorted interleaves two sorted lists, marking which each came from.
func mergeSorted[T any](added, removed []T, cmp func(a, b T) int) []signed[T] {
	out := make([]signed[T], 0, len(added)+len(removed))
	for _, v := range added {
		out = append(out, signed[T]{v, true})
	}
	for _, v := range removed {
		out = append(out, signed[T]{v, false})
	}
	return sortedBy(out, func(s signed[T]) T { return s.v }, cmp)
}

// sortedBy sorts s stably by key.
func sortedBy[E, K any](s []E, key func(E) K, cmp func(a, b K) int) []E {
	slices.SortStableFunc(s, func(a, b E) int { return cmp(key(a), key(b)) })
	return s
}

// keyed is a line with what it is sorted by.
type keyed[K any] struct {
	key  K
	line line
}

// sortedLines are the lines sorted stably by key.
func sortedLines[K any](es []keyed[K], cmp func(a, b K) int) []line {
	ls := make([]line, 0, len(es))
	for _, e := range sortedBy(es, func(e keyed[K]) K { return e.key }, cmp) {
		ls = append(ls, e.line)
	}
	return ls
}

package graph

import "github.com/upgraph/upgraph/tree/version"

// nodeLess is the deterministic output order of nodes: SemVer precedence,
// then display string; non-SemVer versions last, by string.
func nodeLess(a, b *Node) bool {
	av, aok := a.SemVer()
	bv, bok := b.SemVer()
	switch {
	case aok && bok:
		return version.Less(av, bv)
	case aok != bok:
		return aok
	default:
		return a.Version < b.Version
	}
}

// Ranks returns each node's position in the output order, so that callers
// sorting many edges compare integers instead of versions.
func (g *Graph) Ranks() []int {
	ranks := make([]int, g.Len())
	for r, i := range g.SortedOrder() {
		ranks[i] = r
	}
	return ranks
}

package graph

import "github.com/upgraph/upgraph/generator/version"

// NodeLess is the deterministic output order of nodes: SemVer precedence,
// then display string; non-SemVer versions last, by string.
func NodeLess(a, b *Node) bool {
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

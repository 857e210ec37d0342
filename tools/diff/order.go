package diff

import (
	"cmp"
	"slices"
	"strings"

	"github.com/upgraph/upgraph/tree/version"
)

// compareVersions orders by SemVer precedence, then by string, so 4.16.9
// comes before 4.16.10; strings that are not SemVer (no served graph has
// them, but a diff should not fail on one) sort after all that are.
func compareVersions(a, b string) int {
	va, errA := version.Parse(a)
	vb, errB := version.Parse(b)
	switch {
	case errA == nil && errB == nil:
		return cmp.Or(version.Compare(va, vb), strings.Compare(a, b))
	case errA == nil:
		return -1
	case errB == nil:
		return 1
	}
	return strings.Compare(a, b)
}

func compareEdges(a, b Edge) int {
	return cmp.Or(compareVersions(a.From, b.From), compareVersions(a.To, b.To))
}

func sortVersions(vs []string) []string {
	slices.SortFunc(vs, compareVersions)
	return vs
}

// sortedKeys returns m's keys in the order cmp gives.
func sortedKeys[K comparable, V any](m map[K]V, cmp func(a, b K) int) []K {
	keys := make([]K, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, cmp)
	return keys
}

package validate

import (
	"github.com/upgraph/upgraph/generator/graph"
	"github.com/upgraph/upgraph/generator/version"
)

// ReleaseVersions returns the versions of g's concrete releases, for
// Options.Releases (never nil, so an empty release set is still checked
// against). Abstract nodes are left out: no image provides them.
func ReleaseVersions(g *graph.Graph) []version.Version {
	out := []version.Version{}
	for _, n := range g.Nodes() {
		if v, ok := n.SemVer(); ok && !n.Abstract {
			out = append(out, v)
		}
	}
	return out
}

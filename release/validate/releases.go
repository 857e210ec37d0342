package validate

import (
	"github.com/upgraph/upgraph/release/graph"
	"github.com/upgraph/upgraph/tree/version"
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

// ReleaseArchitectures returns the release.openshift.io/architecture
// metadata of g's concrete releases that carry it, for
// Options.Architectures (never nil).
func ReleaseArchitectures(g *graph.Graph) map[string]string {
	out := map[string]string{}
	for _, n := range g.Nodes() {
		if v, ok := n.Metadata[graph.KeyPayloadArch]; ok && !n.Abstract {
			out[n.Version] = v
		}
	}
	return out
}

// ReleaseOptions are the Options checking graph-data against g's releases:
// their versions and architecture metadata.
func ReleaseOptions(g *graph.Graph) Options {
	return Options{Releases: ReleaseVersions(g), Architectures: ReleaseArchitectures(g)}
}

package graph

import (
	"errors"
	"fmt"
	"slices"

	"github.com/upgraph/upgraph/tree/version"
)

// Release is one scraped release image: its release-metadata document with
// the version's build already set to the image's architecture (spec §2.4).
type Release struct {
	Version  version.Version
	Payload  string
	Metadata map[string]string
	Previous []version.Version
	Next     []version.Version
	// Origin names where the release came from (file, tag), for errors.
	Origin string
}

// Assemble builds the graph-builder graph from releases (spec §2.11):
// concrete nodes first, then previous/next edges within the release's
// architecture, creating abstract nodes for versions nobody provided.
func Assemble(releases []Release) (*Graph, error) {
	g := New()
	origins := map[string]string{}
	for _, r := range releases {
		v := r.Version.String()
		if i, ok := g.Lookup(v); ok {
			prev := g.Node(i)
			if prev.Payload != r.Payload || prev.Metadata[KeyManifestRef] != r.Metadata[KeyManifestRef] {
				return nil, fmt.Errorf("release %s is provided twice with different payloads: %s (%s) and %s (%s)",
					v, prev.Payload, origins[v], r.Payload, r.Origin)
			}
			continue
		}
		md := make(map[string]string, len(r.Metadata))
		for k, val := range r.Metadata {
			md[k] = val
		}
		if _, err := g.addNode(&Node{Version: v, Payload: r.Payload, Metadata: md}, r.Version); err != nil {
			return nil, fmt.Errorf("%s: %w", r.Origin, err)
		}
		origins[v] = r.Origin
	}
	// Edges are resolved into one list first; each node's lists are then
	// cut from two arrays sized by degree and sorted once: appending to
	// thousands of small lists, or inserting in sorted order, cost several
	// times more. Targets are memoised by (version, build), since
	// previous lists name the same few thousand versions over and over.
	type target struct{ version, build string }
	targets := map[target]int32{}
	resolve := func(v version.Version, build string) int32 {
		k := target{v.String(), build}
		i, ok := targets[k]
		if !ok {
			i = int32(g.ensure(v.StringWithBuild(build)))
			targets[k] = i
		}
		return i
	}
	total := 0
	for _, r := range releases {
		total += len(r.Previous) + len(r.Next)
	}
	edges := make([][2]int32, 0, total)
	for _, r := range releases {
		i, _ := g.Lookup(r.Version.String())
		self, build := int32(i), r.Version.Build()
		for _, p := range r.Previous {
			edges = append(edges, [2]int32{resolve(p, build), self})
		}
		for _, n := range r.Next {
			edges = append(edges, [2]int32{self, resolve(n, build)})
		}
	}
	g.out = adjacency(g.Len(), edges, 0)
	g.in = adjacency(g.Len(), edges, 1)
	for i := range g.out {
		g.out[i] = sortedSet(g.out[i])
		g.in[i] = sortedSet(g.in[i])
		g.edgeCount += len(g.out[i])
	}
	if err := g.CheckAcyclic(); err != nil {
		var ce *CycleError
		if errors.As(err, &ce) {
			return nil, fmt.Errorf("release metadata (previous/next) %w; involved releases: %s", err, describe(ce.Versions, origins))
		}
		return nil, err
	}
	return g, nil
}

// adjacency lists, for each of n nodes, the other end of the edges whose
// end side (0: source, 1: target) it is, unsorted. The lists share one
// array, each capped at its own part.
func adjacency(n int, edges [][2]int32, side int) [][]int {
	start := make([]int, n+1)
	for _, e := range edges {
		start[e[side]+1]++
	}
	for i := 1; i <= n; i++ {
		start[i] += start[i-1]
	}
	flat := make([]int, len(edges))
	lists := make([][]int, n)
	for i := range lists {
		lists[i] = flat[start[i]:start[i]:start[i+1]]
	}
	for _, e := range edges {
		lists[e[side]] = append(lists[e[side]], int(e[1-side]))
	}
	return lists
}

// sortedSet sorts s and drops repeats, in place.
func sortedSet(s []int) []int {
	slices.Sort(s)
	return slices.Compact(s)
}

// ensure returns the node for v, inserting an abstract node if needed.
func (g *Graph) ensure(v string) int {
	if i, ok := g.Lookup(v); ok {
		return i
	}
	i, _ := g.AddNode(&Node{Version: v, Abstract: true})
	return i
}

func describe(versions []string, origins map[string]string) string {
	s := ""
	seen := map[string]bool{}
	for _, v := range versions {
		if seen[v] {
			continue
		}
		seen[v] = true
		if s != "" {
			s += ", "
		}
		if o, ok := origins[v]; ok {
			s += v + " (" + o + ")"
		} else {
			s += v + " (abstract)"
		}
	}
	return s
}

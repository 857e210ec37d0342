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
	// Edges are resolved into one list first; each node's out-list is
	// then cut from one array sized by degree and sorted once, and the
	// in-lists are filled from the out-lists in node order, so come out
	// sorted: appending to thousands of small lists, or inserting in
	// sorted order, cost several times more. Targets are memoised by
	// build (one map per architecture) and version, since previous lists
	// name the same few thousand versions over and over.
	byBuild := map[string]map[string]int32{}
	total := 0
	for _, r := range releases {
		total += len(r.Previous) + len(r.Next)
	}
	edges := make([][2]int32, 0, total)
	for _, r := range releases {
		i, _ := g.Lookup(r.Version.String())
		self, build := int32(i), r.Version.Build()
		targets := byBuild[build]
		if targets == nil {
			targets = map[string]int32{}
			byBuild[build] = targets
		}
		resolve := func(v version.Version) int32 {
			t, ok := targets[v.String()]
			if !ok {
				t = int32(g.ensure(v.StringWithBuild(build)))
				targets[v.String()] = t
			}
			return t
		}
		for _, p := range r.Previous {
			edges = append(edges, [2]int32{resolve(p), self})
		}
		for _, n := range r.Next {
			edges = append(edges, [2]int32{self, resolve(n)})
		}
	}
	g.out = adjacency(g.Len(), edges, 0)
	for i := range g.out {
		g.out[i] = sortedSet(g.out[i])
		g.edgeCount += len(g.out[i])
	}
	g.in = reverse(g.out)
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

// reverse returns the in-lists of the graph whose out-lists are out, each
// sorted: sources are visited in increasing order. The lists share one
// array, each capped at its own part.
func reverse(out [][]int) [][]int {
	start := make([]int, len(out)+1)
	total := 0
	for _, l := range out {
		for _, to := range l {
			start[to+1]++
		}
		total += len(l)
	}
	for i := 1; i < len(start); i++ {
		start[i] += start[i-1]
	}
	flat := make([]int, total)
	in := make([][]int, len(out))
	for i := range in {
		in[i] = flat[start[i]:start[i]:start[i+1]]
	}
	for from, l := range out {
		for _, to := range l {
			in[to] = append(in[to], from)
		}
	}
	return in
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

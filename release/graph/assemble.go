package graph

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"

	"github.com/upgraph/upgraph/internal/parallel"
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
// Nodes get copies of the releases' metadata maps.
func Assemble(releases []Release) (*Graph, error) {
	return assemble(releases, false)
}

// AssembleOwned is Assemble for a caller that hands the releases over:
// each node takes its release's metadata map rather than a copy (the
// maps of thousands of releases were copied only to be dropped).
func AssembleOwned(releases []Release) (*Graph, error) {
	return assemble(releases, true)
}

func assemble(releases []Release, own bool) (*Graph, error) {
	g := New()
	g.byVersion = make(map[string]int, len(releases)+len(releases)/4)
	g.nodes = make([]*Node, 0, len(releases))
	origins := make(map[string]string, len(releases))
	selves := make([]int32, len(releases))
	for k, r := range releases {
		v := r.Version.String()
		if i, ok := g.Lookup(v); ok {
			prev := g.Node(i)
			if prev.Payload != r.Payload || prev.Metadata[KeyManifestRef] != r.Metadata[KeyManifestRef] {
				return nil, fmt.Errorf("release %s is provided twice with different payloads: %s (%s) and %s (%s)",
					v, prev.Payload, origins[v], r.Payload, r.Origin)
			}
			selves[k] = int32(i)
			continue
		}
		md := r.Metadata
		if !own || md == nil {
			md = make(map[string]string, len(r.Metadata))
			for k, val := range r.Metadata {
				md[k] = val
			}
		}
		i, err := g.addNode(&Node{Version: v, Payload: r.Payload, Metadata: md}, r.Version)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", r.Origin, err)
		}
		selves[k] = int32(i)
		origins[v] = r.Origin
	}
	ends := resolveEnds(g, releases)
	// The in-lists are cut from one array sized by degree (a release's
	// previous list is one node's in-list, written in one run) and each
	// sorted once; the out-lists are filled from them in node order, so
	// come out sorted: appending to thousands of small lists, or
	// inserting in sorted order, cost several times more.
	start := make([]int, g.Len()+1) // in-degrees, then offsets
	for k, r := range releases {
		start[selves[k]+1] += len(r.Previous)
		for _, t := range ends[k][len(r.Previous):] {
			start[t+1]++
		}
	}
	for i := 1; i < len(start); i++ {
		start[i] += start[i-1]
	}
	flat := make([]int, start[g.Len()])
	g.in = make([][]int, g.Len())
	for i := range g.in {
		g.in[i] = flat[start[i]:start[i]:start[i+1]]
	}
	for k, r := range releases {
		self := selves[k]
		for _, t := range ends[k][:len(r.Previous)] {
			g.in[self] = append(g.in[self], int(t))
		}
		for _, t := range ends[k][len(r.Previous):] {
			g.in[t] = append(g.in[t], int(self))
		}
	}
	// Sorted on every core: thousands of lists, a few hundred items each.
	const run = 256
	_ = parallel.Run(context.Background(), runtime.GOMAXPROCS(0), (len(g.in)+run-1)/run, func(_ context.Context, _, c int) error {
		for i := c * run; i < min(len(g.in), (c+1)*run); i++ {
			g.in[i] = sortedSet(g.in[i])
		}
		return nil
	})
	for _, l := range g.in {
		g.edgeCount += len(l)
	}
	g.out = reverse(g.in)
	if err := g.CheckAcyclic(); err != nil {
		var ce *CycleError
		if errors.As(err, &ce) {
			return nil, fmt.Errorf("release metadata (previous/next) %w; involved releases: %s", err, describe(ce.Versions, origins))
		}
		return nil, err
	}
	return g, nil
}

// resolveEnds returns, for each release, the nodes its previous and then
// its next versions name within its architecture, adding an abstract
// node for each version no release provided, in the order they are
// first named. Versions are looked up on every core (half a million
// previous entries at real scale), each worker with its own memo by
// architecture and version, since previous lists name the same few
// thousand versions over and over; the abstract nodes are then added in
// release order, as one pass would add them.
func resolveEnds(g *Graph, releases []Release) [][]int32 {
	total := 0
	for _, r := range releases {
		total += len(r.Previous) + len(r.Next)
	}
	flat := make([]int32, total)
	ends := make([][]int32, len(releases))
	for k, r := range releases {
		n := len(r.Previous) + len(r.Next)
		ends[k], flat = flat[:n:n], flat[n:]
	}
	const absent = -1
	missing := make([]bool, len(releases))
	// Runs of consecutive releases (name order puts one version's
	// architectures together) share a worker's memo.
	const run = 32
	workers := runtime.GOMAXPROCS(0)
	memos := make([]map[string]map[string]int32, workers)
	_ = parallel.Run(context.Background(), workers, (len(releases)+run-1)/run, func(_ context.Context, w, c int) error {
		if memos[w] == nil {
			memos[w] = map[string]map[string]int32{}
		}
		for k := c * run; k < min(len(releases), (c+1)*run); k++ {
			r := releases[k]
			build := r.Version.Build()
			targets := memos[w][build]
			if targets == nil {
				targets = map[string]int32{}
				memos[w][build] = targets
			}
			j := 0
			for _, list := range [2][]version.Version{r.Previous, r.Next} {
				for _, v := range list {
					t, ok := targets[v.String()]
					if !ok {
						t = absent
						if i, found := g.Lookup(v.StringWithBuild(build)); found {
							t = int32(i)
						}
						targets[v.String()] = t
					}
					if t == absent {
						missing[k] = true
					}
					ends[k][j] = t
					j++
				}
			}
		}
		return nil
	})
	for k, r := range releases {
		if !missing[k] {
			continue
		}
		j := 0
		for _, list := range [2][]version.Version{r.Previous, r.Next} {
			for _, v := range list {
				if ends[k][j] == absent {
					ends[k][j] = int32(g.ensure(v.StringWithBuild(r.Version.Build())))
				}
				j++
			}
		}
	}
	return ends
}

// reverse returns the lists of the reversed graph (out-lists from
// in-lists, or the other way), each sorted: nodes are visited in
// increasing order. The lists share one array, each capped at its own
// part.
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

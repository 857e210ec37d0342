package diff

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/upgraph/upgraph/internal/parallel"
	"github.com/upgraph/upgraph/release/mirror"
)

// ErrNoChannels is Compare's error for two endpoints and no Channels.
var ErrNoChannels = errors.New("name the channels to compare")

// Options select what Compare looks at.
type Options struct {
	// Channels and Arches restrict the comparison to these names (nil:
	// every one a tree side lists). An endpoint cannot list its channels:
	// with two endpoints Channels is required and Arches defaults to
	// mirror.DefaultArches.
	Channels, Arches []string
	// Workers bounds concurrent reads (default 4): over HTTP each graph is
	// a round trip.
	Workers int
}

// Compare reads every selected channel × arch graph of both sources and
// returns their differences.
//
// An endpoint answers an unknown channel or arch with an empty graph, so
// it cannot say whether it lacks a graph or serves it empty. Its empty
// answer matches a tree's empty graph (no difference) and is otherwise
// taken as "no such graph", so that a channel dropped from a tree shows as
// removed whether the other side is a tree or an endpoint serving it.
func Compare(ctx context.Context, old, new *Source, opts Options) (*Result, error) {
	sides := [2]*Source{old, new}
	channels, arches, err := selection(sides, opts)
	if err != nil {
		return nil, err
	}
	docs, err := readAll(ctx, sides, channels, arches, opts.Workers)
	if err != nil {
		return nil, err
	}
	r := &Result{Old: old.String(), New: new.String()}
	has := [2]names{newNames(), newNames()}
	for _, p := range comparedPairs(sides, docs, channels, arches) {
		c, a := p.channel, p.arch
		inOld, inNew := present(sides, docs, 0, p), present(sides, docs, 1, p)
		if inOld || inNew {
			r.Compared++
		}
		switch {
		case inOld && inNew:
			if g := compareGraphs(c, a, docs[0][p], docs[1][p]); !g.empty() {
				r.Graphs = append(r.Graphs, g)
			}
		case inOld:
			r.Graphs = append(r.Graphs, onlyGraph(c, a, Removed, docs[0][p]))
		case inNew:
			r.Graphs = append(r.Graphs, onlyGraph(c, a, Added, docs[1][p]))
		}
		for side, in := range [2]bool{inOld, inNew} {
			if in {
				has[side].channels[c], has[side].arches[a] = true, true
			}
		}
	}
	// A tree lists its channels and arches, even those whose graphs are
	// all empty; an endpoint has those it serves a graph for.
	for side, s := range sides {
		if s.IsTree() {
			has[side] = names{listed(s.Tree.Manifest().Channels, channels), listed(s.Tree.Manifest().Arches, arches)}
		}
	}
	r.Channels = nameChanges(channels, has[0].channels, has[1].channels)
	r.Arches = nameChanges(arches, has[0].arches, has[1].arches)
	if r.Catalogs, err = compareCatalogs(ctx, old, new); err != nil {
		return nil, err
	}
	r.Rollouts = compareRollouts(old, new)
	return r, nil
}

type names struct{ channels, arches map[string]bool }

func newNames() names { return names{map[string]bool{}, map[string]bool{}} }

// present says whether a side has a channel × arch graph (see Compare).
func present(sides [2]*Source, docs [2]map[pair]*document, side int, p pair) bool {
	d, other := docs[side][p], docs[1-side][p]
	if sides[side].IsTree() {
		return d != nil
	}
	return !d.empty() || (sides[1-side].IsTree() && other != nil && other.empty())
}

// selection returns the sorted channels and arches to compare.
func selection(sides [2]*Source, opts Options) (channels, arches []string, err error) {
	old, new := sides[0], sides[1]
	var trees []*Source
	for _, s := range sides {
		if s.IsTree() {
			trees = append(trees, s)
		}
	}
	channels, arches = slices.Clone(opts.Channels), slices.Clone(opts.Arches)
	switch {
	case channels == nil && len(trees) == 0:
		return nil, nil, fmt.Errorf("neither %s nor %s has an index.json: %w", old, new, ErrNoChannels)
	case channels == nil:
		for _, t := range trees {
			channels = append(channels, t.Tree.Manifest().Channels...)
		}
	}
	switch {
	case arches == nil && len(trees) == 0:
		arches = slices.Clone(mirror.DefaultArches)
	case arches == nil:
		for _, t := range trees {
			arches = append(arches, t.Tree.Manifest().Arches...)
		}
	}
	slices.Sort(channels)
	slices.Sort(arches)
	channels, arches = slices.Compact(channels), slices.Compact(arches)
	// Against two trees a name neither lists is a typo, and reporting "no
	// differences" for it would hide that.
	if len(trees) == 2 {
		oldM, newM := old.Tree.Manifest(), new.Tree.Manifest()
		inChannels, inArches := setOf(oldM.Channels, newM.Channels), setOf(oldM.Arches, newM.Arches)
		for _, c := range channels {
			if !inChannels[c] {
				return nil, nil, fmt.Errorf("channel %q is in neither %s nor %s", c, old, new)
			}
		}
		for _, a := range arches {
			if !inArches[a] {
				return nil, nil, fmt.Errorf("arch %q is in neither %s nor %s", a, old, new)
			}
		}
	}
	return channels, arches, nil
}

// readAll reads every selected graph of both sides on a bounded pool. A
// tree's graph it does not list is absent from the map; an endpoint's is
// always there.
func readAll(ctx context.Context, sides [2]*Source, channels, arches []string, workers int) ([2]map[pair]*document, error) {
	type job struct {
		side int
		p    pair
	}
	var jobs []job
	selectedChannels, selectedArches := setOf(channels), setOf(arches)
	for side, s := range sides {
		if s.IsTree() {
			// The graphs the tree lists, not every channel × arch: an
			// index.json of n channels and arches and few graphs would
			// make n² pairs.
			for _, g := range s.Tree.Manifest().Graphs {
				if selectedChannels[g.Channel] && selectedArches[g.Arch] && s.HasGraph(g.Channel, g.Arch) {
					jobs = append(jobs, job{side, pair{g.Channel, g.Arch}})
				}
			}
			continue
		}
		for _, c := range channels {
			for _, a := range arches {
				jobs = append(jobs, job{side, pair{c, a}})
			}
		}
	}
	if workers <= 0 {
		workers = 4
	}
	results := make([]*document, len(jobs))
	var docs [2]map[pair]*document
	err := parallel.Run(ctx, workers, len(jobs), func(ctx context.Context, _, i int) error {
		j := jobs[i]
		d, err := read(ctx, sides[j.side], j.p)
		if err != nil {
			return fmt.Errorf("channel %s, arch %s: %w", j.p.channel, j.p.arch, err)
		}
		results[i] = d
		return nil
	})
	if err != nil {
		return docs, err
	}
	docs[0], docs[1] = map[pair]*document{}, map[pair]*document{}
	for i, j := range jobs {
		docs[j.side][j.p] = results[i]
	}
	return docs, nil
}

func listed(names, selected []string) map[string]bool {
	in := setOf(selected)
	m := map[string]bool{}
	for _, n := range names {
		if in[n] {
			m[n] = true
		}
	}
	return m
}

func setOf(lists ...[]string) map[string]bool {
	m := map[string]bool{}
	for _, l := range lists {
		for _, n := range l {
			m[n] = true
		}
	}
	return m
}

// comparedPairs lists the channel × arch pairs to compare, by channel
// then arch: every pair when a side is an endpoint (which is asked for
// each), else only those either tree lists a graph for, since two
// index.json files of n channels and arches and few graphs would make n²
// pairs of nothing.
func comparedPairs(sides [2]*Source, docs [2]map[pair]*document, channels, arches []string) []pair {
	if !sides[0].IsTree() || !sides[1].IsTree() {
		ps := make([]pair, 0, len(channels)*len(arches))
		for _, c := range channels {
			for _, a := range arches {
				ps = append(ps, pair{c, a})
			}
		}
		return ps
	}
	seen := map[pair]bool{}
	var ps []pair
	for _, d := range docs {
		for p := range d {
			if !seen[p] {
				seen[p] = true
				ps = append(ps, p)
			}
		}
	}
	slices.SortFunc(ps, func(a, b pair) int {
		return cmp.Or(strings.Compare(a.channel, b.channel), strings.Compare(a.arch, b.arch))
	})
	return ps
}

func nameChanges(names []string, old, new map[string]bool) NameChanges {
	var c NameChanges
	for _, n := range names {
		switch {
		case new[n] && !old[n]:
			c.Added = append(c.Added, n)
		case old[n] && !new[n]:
			c.Removed = append(c.Removed, n)
		}
	}
	return c
}

// Source is one side of a comparison: a tree wherever it lives or a
// graph endpoint (mirror.OpenSource).
type Source = mirror.Source

type pair struct{ channel, arch string }

// read returns the channel × arch graph, or nil for one a tree lacks.
func read(ctx context.Context, s *Source, p pair) (*document, error) {
	if !s.HasGraph(p.channel, p.arch) {
		return nil, nil
	}
	label, data, err := s.Fetch(ctx, p.channel, p.arch)
	if err != nil {
		return nil, err
	}
	return decode(label, data)
}

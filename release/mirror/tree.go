package mirror

import (
	"context"
	"fmt"
	"log/slog"
	"regexp"
	"slices"

	"github.com/upgraph/upgraph/internal/parallel"
	"github.com/upgraph/upgraph/release/graph"
	"github.com/upgraph/upgraph/release/policy"
	"github.com/upgraph/upgraph/tree"
	"github.com/upgraph/upgraph/tree/manifest"
)

// TreeOptions select what FromTree reads.
type TreeOptions struct {
	// Channels selects channels by name (nil: all of the tree's).
	Channels *regexp.Regexp
	// Arches selects architectures (nil: all of the tree's). Naming one
	// the tree does not have is an error rather than an empty graph.
	Arches []string
	// Workers bounds concurrent reads (default 4): an fs.FS over HTTP
	// pays a round trip per file.
	Workers int
	Logger  *slog.Logger
}

// Tree is a generated tree read back as the graph it serves, restricted
// to a selection of its channels and arches: what it takes to render
// that part of the tree again.
type Tree struct {
	// Manifest is the tree's index.json, unfiltered.
	Manifest *manifest.Manifest
	// Graph is the union of the selected channel graphs, as Fetch makes it.
	Graph *graph.Graph
	// Channels and Arches are those selected, in the tree's order.
	Channels, Arches []string
}

// FromTree reads a tree's index.json and the selected channel graphs,
// each checked against its size and digest there, and merges them. Only
// channel graphs are read: every per-version graph follows from its
// channel graph, so rendering the union gives them back.
func FromTree(ctx context.Context, src tree.Tree, opts TreeOptions) (*Tree, error) {
	m := src.Manifest()
	t := &Tree{Manifest: m}
	for _, c := range m.Channels {
		if opts.Channels == nil || opts.Channels.MatchString(c) {
			t.Channels = append(t.Channels, c)
		}
	}
	if len(t.Channels) == 0 {
		return nil, fmt.Errorf("%s: no channel matches %s (the tree has %v)", manifest.FileName, opts.Channels, m.Channels)
	}
	t.Arches = m.Arches
	if opts.Arches != nil {
		t.Arches = nil
		for _, a := range opts.Arches {
			if !slices.Contains(m.Arches, a) {
				return nil, fmt.Errorf("%s: the tree has no arch %q (it has %v)", manifest.FileName, a, m.Arches)
			}
			if !slices.Contains(t.Arches, a) {
				t.Arches = append(t.Arches, a)
			}
		}
	}
	// Sets, not lists: an index.json of n channels and graphs would
	// otherwise cost n².
	channels, arches := map[string]bool{}, map[string]bool{}
	for _, c := range t.Channels {
		channels[c] = true
	}
	for _, a := range t.Arches {
		arches[a] = true
	}
	var picked []manifest.Graph
	for _, g := range m.Graphs {
		if channels[g.Channel] && arches[g.Arch] {
			picked = append(picked, g)
		}
	}
	if want := len(t.Channels) * len(t.Arches); len(picked) != want {
		return nil, fmt.Errorf("%s lists %d of the %d selected channel × arch graphs", manifest.FileName, len(picked), want)
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	u := newUnion(log)
	workers := opts.Workers
	if workers <= 0 {
		workers = 4 // an HTTP tree pays a round trip per file
	}
	err := parallel.InOrder(ctx, workers, len(picked), func(ctx context.Context, i int) (Answer, error) {
		g := picked[i]
		body, err := src.ReadFile(ctx, g.Path)
		return Answer{Channel: g.Channel, Arch: g.Arch, Source: g.Path, Body: body}, err
	}, func(_ int, a Answer) error { return u.addAnswer(a) })
	if err != nil {
		return nil, err
	}
	if t.Graph, err = u.finish(); err != nil {
		return nil, err
	}
	return t, nil
}

// Answer is one policy-engine graph document already at hand: a channel
// graph file of a generated tree, or an answer fetched some other way.
type Answer struct {
	Channel, Arch string
	// Source names the document in messages: a URL or a file name.
	Source string
	Body   []byte
}

// addAnswer decodes and merges one answer, as Fetch does what it
// fetches; a.Body is not retained, so that a caller holding many large
// answers need not hold them all: only their union is kept.
func (u *union) addAnswer(a Answer) error {
	// The generator filters by these names, so an answer under a name
	// clients cannot request could never be served back.
	if !policy.ChannelPattern.MatchString(a.Channel) {
		return fmt.Errorf("%s: channel %q does not match %s", a.Source, a.Channel, policy.ChannelPattern)
	}
	if !policy.ArchPattern.MatchString(a.Arch) {
		return fmt.Errorf("%s: arch %q does not match %s", a.Source, a.Arch, policy.ArchPattern)
	}
	doc, err := decode(a.Source, a.Body)
	if err != nil {
		return fmt.Errorf("channel %s, arch %s: %w", a.Channel, a.Arch, err)
	}
	return u.add(job{channel: a.Channel, arch: a.Arch, url: a.Source}, doc)
}

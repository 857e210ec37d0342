// Package generator turns releases plus graph-data into a tree of static
// Cincinnati graphs. The stages read top to bottom:
//
//	source → graph → graphdata + annotate → edges → policy → views → writer
//
// Build runs the stages up to the final graph-builder graph; Generate also
// renders every channel × arch graph and per-version graph and stores them.
package generator

import (
	"context"
	"fmt"
	"io/fs"
	"log/slog"
	"strings"

	"github.com/upgraph/upgraph/generator/annotate"
	"github.com/upgraph/upgraph/generator/edges"
	"github.com/upgraph/upgraph/generator/graph"
	"github.com/upgraph/upgraph/generator/graphdata"
	"github.com/upgraph/upgraph/generator/manifest"
	"github.com/upgraph/upgraph/generator/source"
)

// BuildOptions configure the graph-building stages.
type BuildOptions struct {
	GraphData graphdata.Options
	// UpstreamQuirks reproduces upstream where it is probably accidental
	// (see annotate.Options).
	UpstreamQuirks bool
	Logger         *slog.Logger
}

// Built is the final graph-builder graph and what it was made from.
type Built struct {
	Graph *graph.Graph
	// Channels are the channels to render, in graph-data order.
	Channels []string
	// GraphData is nil when the graph came with graph-data already applied
	// and no graph-data tree was given (see Applied).
	GraphData      *graphdata.GraphData
	ReleasesKind   string
	ReleasesDigest string
}

// Applied wraps a graph that already has graph-data applied, such as the
// union of the graphs a Cincinnati endpoint serves: only channel selection
// remains to be done. gd may be nil; when given it is only recorded in
// index.json.
func Applied(g *graph.Graph, channels []string, releasesKind string, gd *graphdata.GraphData) *Built {
	return &Built{
		Graph: g, Channels: channels, GraphData: gd, ReleasesKind: releasesKind,
		ReleasesDigest: manifest.Digest(g.Encode(g.SortedOrder())),
	}
}

// Build loads releases and graph-data and applies graph-data to the graph.
func Build(ctx context.Context, releases source.Source, graphData fs.FS, opts BuildOptions) (*Built, error) {
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	gd, err := graphdata.Load(graphData, opts.GraphData)
	if err != nil {
		return nil, err
	}
	for _, w := range gd.Warnings {
		log.Warn("graph-data", "problem", w.Error())
	}
	g, err := releases.Graph(ctx)
	if err != nil {
		return nil, err
	}
	for _, n := range g.Nodes() {
		if _, ok := n.SemVer(); !ok {
			return nil, fmt.Errorf("release source %s: version %q is not valid SemVer; clusters would reject the whole graph", releases, n.Version)
		}
	}
	b := &Built{
		Channels:       gd.ChannelNames(),
		GraphData:      gd,
		ReleasesKind:   strings.SplitN(releases.String(), ":", 2)[0],
		ReleasesDigest: manifest.Digest(g.Encode(g.SortedOrder())),
	}
	for _, w := range annotate.Apply(g, gd, annotate.Options{UpstreamQuirks: opts.UpstreamQuirks}) {
		log.Warn("graph-data", "problem", w)
	}
	warnings, err := edges.Apply(g, edges.Options{})
	if err != nil {
		return nil, err
	}
	for _, w := range warnings {
		log.Debug("edges", "note", w)
	}
	log.Info("graph built", "releases", g.Len(), "edges", g.EdgeCount(), "conditionalGroups", len(g.Conditional))
	b.Graph = g
	return b, nil
}

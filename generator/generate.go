// Package generator turns releases plus graph-data into a tree of static
// Cincinnati graphs. The stages read top to bottom:
//
//	source → graph → graphdata + annotate → edges → policy → views → writer
//
// Build runs the stages up to the final graph-builder graph; Generate also
// renders every channel × arch graph and per-version graph and stores them.
package generator

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/upgraph/upgraph/internal/clip"
	"github.com/upgraph/upgraph/release/annotate"
	"github.com/upgraph/upgraph/release/edges"
	"github.com/upgraph/upgraph/release/graph"
	"github.com/upgraph/upgraph/release/graphdata"
	"github.com/upgraph/upgraph/release/rollout"
	"github.com/upgraph/upgraph/release/source"
	"github.com/upgraph/upgraph/tree/manifest"
)

// HeapBudget is the Go memory a generation may use before its garbage is
// collected (see internal/gcbudget), as upgraph generate runs it. At real
// scale (5,800 releases, 39,000 files) a generation's live heap peaks near
// 130 MB, and with this budget its peak resident size stays under 300 MB
// (about 285 MB in BenchmarkGenerate; 390 MB at 360 MiB, for 5-10 % less
// CPU time: docs/performance.md).
const HeapBudget = 256 << 20

// BuildOptions configure the graph-building stages.
type BuildOptions struct {
	GraphData graphdata.Options
	// UpstreamQuirks reproduces upstream where it is probably accidental
	// (see annotate.Options).
	UpstreamQuirks bool
	// Signatures are release signatures to publish besides graph-data's
	// (e.g. upgraph generate --signatures).
	Signatures graphdata.Signatures
	Logger     *slog.Logger
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
	// Signatures are release signatures by payload digest ("sha256:<hex>"):
	// element i is the content of signature-<i+1>, nil for a missing
	// number. Render publishes those of releases it writes a graph for.
	Signatures map[string][][]byte
	// Rollouts are graph-data's phased rollouts (rollouts/*.yaml,
	// docs/rollouts.md); the graph is upstream's, with every release.
	Rollouts []rollout.Rollout
}

// Applied wraps a graph that already has graph-data applied, such as the
// union of the graphs a Cincinnati endpoint serves: only channel selection
// remains to be done. gd may be nil; when given it is recorded in
// index.json and its release signatures are published.
func Applied(g *graph.Graph, channels []string, releasesKind string, gd *graphdata.GraphData) *Built {
	b := &Built{
		Graph: g, Channels: channels, GraphData: gd, ReleasesKind: releasesKind,
		ReleasesDigest: releasesDigest(g)(),
	}
	if gd != nil {
		b.Signatures = gd.Signatures.Contents()
	}
	return b
}

// Build loads releases and graph-data and applies graph-data to the graph.
func Build(ctx context.Context, releases source.Source, graphData fs.FS, opts BuildOptions) (*Built, error) {
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	// Graph-data and releases are independent until graph-data is applied.
	var (
		gd    *graphdata.GraphData
		gdErr error
		done  = make(chan struct{})
	)
	start := time.Now()
	go func() {
		defer close(done)
		gd, gdErr = graphdata.Load(graphData, opts.GraphData)
	}()
	g, err := releases.Graph(ctx)
	log.Debug("releases read", "duration", time.Since(start))
	<-done
	log.Debug("graph-data read", "duration", time.Since(start))
	if gdErr != nil {
		return nil, gdErr
	}
	if err != nil {
		return nil, err
	}
	for _, w := range gd.Warnings {
		log.Warn("graph-data", "problem", w.Error())
	}
	sigs, err := gd.Signatures.Merge(opts.Signatures)
	if err != nil {
		return nil, err
	}
	rollouts, err := rollout.Load(graphData)
	if err != nil {
		return nil, err
	}
	for _, n := range g.Nodes() {
		if _, ok := n.SemVer(); !ok {
			return nil, fmt.Errorf("release source %s: version %s is not valid SemVer; clusters would reject the whole graph", releases, clip.Quote(n.Version))
		}
	}
	b := &Built{
		Channels:     gd.ChannelNames(),
		GraphData:    gd,
		ReleasesKind: strings.SplitN(releases.String(), ":", 2)[0],
		Signatures:   sigs.Contents(),
		Rollouts:     rollouts,
	}
	// The release digest is of the graph as read, before graph-data
	// changes it; it is hashed beside the annotation and edge passes,
	// which use one core.
	digest := releasesDigest(g)
	for _, w := range annotate.Apply(g, gd, annotate.Options{UpstreamQuirks: opts.UpstreamQuirks}) {
		log.Warn("graph-data", "problem", w)
	}
	log.Debug("graph-data annotated", "duration", time.Since(start))
	warnings, err := edges.Apply(g, edges.Options{})
	if err != nil {
		return nil, err
	}
	for _, w := range warnings {
		log.Debug("edges", "note", w)
	}
	b.ReleasesDigest = digest()
	log.Info("graph built", "duration", time.Since(start), "releases", g.Len(), "edges", g.EdgeCount(), "conditionalGroups", len(g.Conditional))
	b.Graph = g
	return b, nil
}

// releasesDigest encodes g as it is now (the canonical unfiltered graph,
// whatever the source kind) and hashes the encoding in the background; the
// function returned waits for the digest.
func releasesDigest(g *graph.Graph) func() string {
	parts := g.EncodeParts(g.SortedOrder())
	digest := make(chan string, 1)
	go func() { digest <- manifest.DigestParts(parts...) }()
	return func() string { return <-digest }
}

// AddSignatures adds release signatures to those b already has (from
// graph-data, or set by whoever built b). A number both have with
// different bytes is an error: which one clusters got would be arbitrary.
func (b *Built) AddSignatures(s graphdata.Signatures) error {
	digests := slices.Sorted(maps.Keys(s))
	var errs []error
	for _, d := range digests {
		for i, sig := range s[d] {
			if sig.Data == nil {
				continue
			}
			list := b.Signatures[d]
			if len(list) <= i {
				list = append(list, make([][]byte, i+1-len(list))...)
			}
			if list[i] != nil && !bytes.Equal(list[i], sig.Data) {
				errs = append(errs, fmt.Errorf("%s differs from the signature-%d of %s already present", sig.File, i+1, d))
				continue
			}
			list[i] = sig.Data
			if b.Signatures == nil {
				b.Signatures = map[string][][]byte{}
			}
			b.Signatures[d] = list
		}
	}
	return errors.Join(errs...)
}

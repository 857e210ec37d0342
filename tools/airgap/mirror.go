package airgap

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	catviews "github.com/upgraph/upgraph/catalog/views"
	"github.com/upgraph/upgraph/tree"
	"github.com/upgraph/upgraph/tree/bundle"

	"github.com/upgraph/upgraph/generator"
	"github.com/upgraph/upgraph/release/graphdata"
	"github.com/upgraph/upgraph/release/mirror"
	"github.com/upgraph/upgraph/tree/manifest"
	"github.com/upgraph/upgraph/tree/version"
	"github.com/upgraph/upgraph/tree/writer"
)

// Options configure Mirror.
type Options struct {
	// From is a tree wherever it lives (tree.ParseLocation) or a
	// Cincinnati graph endpoint (a URL ending in /graph, or a host without
	// index.json).
	From string
	// Channels selects channels by name (nil: all).
	Channels *regexp.Regexp
	// Arches selects architectures (nil: all of the source's).
	Arches []string
	// EndpointChannels are the channels to fetch from a graph endpoint,
	// which cannot list them; trees list their own.
	EndpointChannels []string
	// Payloads rewrite release pull specs, longest source first, and the
	// bundle and related images of the tree's catalogs.
	Payloads []mirror.PayloadMirror
	// Catalogs selects a source tree's operator catalogs by name (nil:
	// all); Packages keeps only these packages' blobs (nil: all).
	Catalogs, Packages []string
	// Exactly one of Out (a tree directory, replaced atomically) and
	// Bundle (a .tar.gz, with a .sha256 file beside it) is the output.
	Out, Bundle string
	// GeneratedAt is recorded for a graph endpoint, which does not say
	// when its graphs were made (zero: now). A tree's own time is kept:
	// the mirror is that generation, and the same source must give the
	// same bundle.
	GeneratedAt time.Time
	// Workers bounds reading and rendering concurrency.
	Workers int
	// Viewer says whether the static viewer (index.html, viewer/) is
	// written: nil keeps the source's choice, a tree's index.json listing
	// index.html or not; a graph endpoint, which has no say, gets it.
	Viewer *bool
	// Precompress says whether the gzip copies of graph and catalog files
	// (generator.RenderOptions.Precompress) are written: nil keeps the
	// source's choice, a tree's index.json "precompressed"; a graph
	// endpoint gets them.
	Precompress *bool
	// Check, when set, is given the manifest of what is about to be
	// written; an error leaves the output as it was (the shrink guard).
	Check func(next *manifest.Manifest) error
	// Verify, when set, must accept the source tree before it is read
	// (mirror --from --trust); a graph endpoint is then refused.
	Verify func(ctx context.Context, t tree.Tree) error
	// Sign is the output's generator.RenderOptions.Sign (mirror --sign).
	Sign func(index []byte, m *manifest.Manifest) (map[string][]byte, error)
	// Trace is the tree output's writer.DirStore.Trace.
	Trace func(writer.Phase)
	// NoSpare is the tree output's writer.DirStore.NoSpare.
	NoSpare bool
	// Tree configures how a source tree is reached (package tree).
	Tree   tree.Options
	Logger *slog.Logger
}

// Result describes what Mirror wrote.
type Result struct {
	Manifest *manifest.Manifest
	// Bundle is nil when a tree was written.
	Bundle  *bundle.Written
	Rewrite mirror.RewriteResult
	// Catalogs are the catalogs written, by name.
	Catalogs []CatalogResult
}

// Mirror reads a source, keeps the selected channels and arches, rewrites
// payloads to their mirrors, and renders the result again through
// generator.Render, so that per-version graphs, digests and index.json
// are those of what is written, not of the source.
func Mirror(ctx context.Context, opts Options) (*Result, error) {
	if (opts.Out == "") == (opts.Bundle == "") {
		return nil, errors.New("want exactly one output: a tree directory or a bundle file")
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	log := opts.Logger
	rewriter, err := mirror.NewPayloadRewriter(opts.Payloads)
	if err != nil {
		return nil, err
	}
	start := time.Now()
	t, src, err := openSource(ctx, opts)
	if err != nil {
		return nil, err
	}
	defer src.Close()
	if t.Graph != nil {
		log.Debug("source read", "from", opts.From, "releases", t.Graph.Len(), "duration", time.Since(start))
	}
	var cats []*catviews.Catalog
	res := &Result{}
	switch {
	case src.IsTree():
		if cats, res.Catalogs, err = sourceCatalogs(ctx, src.Tree, opts, rewriter); err != nil {
			return nil, fmt.Errorf("%s: %w", opts.From, err)
		}
		for _, c := range res.Catalogs {
			reportCatalog(log, c)
		}
	case opts.Catalogs != nil:
		return nil, fmt.Errorf("--catalog: %s is a graph endpoint, which has no catalogs", opts.From)
	case opts.Packages != nil:
		return nil, fmt.Errorf("--package: %s is a graph endpoint, which has no catalogs", opts.From)
	}

	// Signatures are chosen by digest, which the rewrite keeps; reading
	// them first keeps every read of the source in one place.
	var sigs map[string][][]byte
	if src.IsTree() && t.Graph != nil {
		if sigs, err = sourceSignatures(ctx, src.Tree, t.Graph); err != nil {
			return nil, fmt.Errorf("%s: %w", opts.From, err)
		}
	}
	if t.Graph != nil {
		res.Rewrite = rewriter.Apply(t.Graph)
		reportRewrite(log, res.Rewrite)
	}

	kind, at := "cincinnati", time.Time{}
	var gd *graphdata.GraphData
	if t.Manifest != nil {
		kind = "mirror"
		gd = graphDataInput(t.Manifest.Inputs.GraphData)
		if at, err = time.Parse(time.RFC3339, t.Manifest.GeneratedAt); err != nil {
			return nil, fmt.Errorf("%s: %s: generatedAt: %w", opts.From, manifest.FileName, err)
		}
	}
	if at.IsZero() {
		at = opts.GeneratedAt
	}
	if at.IsZero() {
		at = time.Now()
	}
	var built *generator.Built
	if t.Graph != nil {
		built = generator.Applied(t.Graph, t.Channels, kind, gd)
		built.Signatures = sigs
	}
	noViewer := !withViewer(opts.Viewer, t.Manifest)
	precompressed := withPrecompress(opts.Precompress, t.Manifest)
	render := func(store writer.Store) (err error) {
		res.Manifest, err = generator.Render(ctx, built, generator.RenderOptions{
			Arches: t.Arches, Store: store, GeneratedAt: at, Workers: opts.Workers, Logger: log, Check: opts.Check,
			NoViewer: noViewer, Catalogs: cats, Sign: opts.Sign, Precompress: precompressed,
		})
		return err
	}
	if opts.Out != "" {
		if err := render(writer.DirStore{Dir: opts.Out, Trace: opts.Trace, NoSpare: opts.NoSpare}); err != nil {
			return nil, err
		}
		return res, nil
	}
	// The tree is rendered beside the bundle, so that it is on a disk
	// that has room for the bundle rather than in a small tmpfs.
	tmp, err := os.MkdirTemp(filepath.Dir(opts.Bundle), "."+filepath.Base(opts.Bundle)+".upgraph-tree-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	tree := filepath.Join(tmp, "tree")
	if err := render(writer.ScratchStore{Dir: tree}); err != nil {
		return nil, err
	}
	start = time.Now()
	if res.Bundle, err = bundle.Write(ctx, tree, opts.Bundle); err != nil {
		return nil, err
	}
	log.Debug("packed", "bundle", opts.Bundle, "bytes", res.Bundle.Size, "duration", time.Since(start))
	return res, nil
}

// viewerFile is the file whose presence in index.json says a tree carries
// the viewer (site serves the tree's static files on the same condition).
const viewerFile = "index.html"

// withViewer decides whether the mirror carries the viewer: as asked, else
// as the source tree does (src nil: a graph endpoint, with the viewer).
func withViewer(asked *bool, src *manifest.Manifest) bool {
	if asked != nil {
		return *asked
	}
	if src == nil {
		return true
	}
	_, ok := src.Files[viewerFile]
	return ok
}

// withPrecompress is whether the mirror has gzip copies (Options.Precompress).
func withPrecompress(asked *bool, src *manifest.Manifest) bool {
	if asked != nil {
		return *asked
	}
	return src == nil || src.Precompressed != ""
}

// graphDataInput carries the source's graph-data identity into the
// mirror's index.json: generator.Applied only records a GraphData there.
func graphDataInput(in manifest.GraphDataInput) *graphdata.GraphData {
	v, err := version.Parse(in.Version)
	if in.Digest == "" || err != nil {
		return nil
	}
	return &graphdata.GraphData{SchemaVersion: v, Digest: in.Digest}
}

func reportRewrite(log *slog.Logger, r mirror.RewriteResult) {
	if len(r.Tagged) > 0 {
		log.Warn("payloads pinned by tag, not digest: kept, but a mirror may hold other content under the tag and clusters cannot verify it",
			"releases", len(r.Tagged), "first", r.Tagged[0])
	}
	if len(r.Unmatched) > 0 {
		log.Warn("payloads no --payload-mirror matches: kept as they are, clusters behind the mirror may not reach them",
			"releases", len(r.Unmatched), "examples", strings.Join(r.Unmatched[:min(3, len(r.Unmatched))], ","))
	}
	log.Debug("payloads rewritten", "releases", r.Rewritten)
}

func reportCatalog(log *slog.Logger, c CatalogResult) {
	if len(c.Tagged) > 0 {
		log.Warn("catalog images pinned by tag, not digest: kept, but a mirror may hold other content under the tag",
			"catalog", c.Name, "images", len(c.Tagged), "first", c.Tagged[0])
	}
	if len(c.Unmatched) > 0 {
		log.Warn("catalog images no --payload-mirror matches: kept as they are, clusters behind the mirror may not reach them",
			"catalog", c.Name, "images", len(c.Unmatched), "examples", strings.Join(c.Unmatched[:min(3, len(c.Unmatched))], ","))
	}
	log.Debug("catalog mirrored", "catalog", c.Name, "packages", c.Packages, "bundles", c.Bundles, "imagesRewritten", c.Images)
}

package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	catsource "github.com/upgraph/upgraph/catalog/source"
	catviews "github.com/upgraph/upgraph/catalog/views"
	"github.com/upgraph/upgraph/generator"
	"github.com/upgraph/upgraph/registry"
	"github.com/upgraph/upgraph/release/graph"
	"github.com/upgraph/upgraph/release/graphdata"
	"github.com/upgraph/upgraph/release/scrape"
	"github.com/upgraph/upgraph/release/source"
	"github.com/upgraph/upgraph/site"
	"github.com/upgraph/upgraph/tree/manifest"
	"github.com/upgraph/upgraph/tree/writer"
)

// The results of a refresh, as /metrics counts them.
const (
	refreshGenerated = "generated" // a new generation is served
	refreshUnchanged = "unchanged" // every input digest as served
	refreshRefused   = "refused"   // the shrink guard refused the inputs
	refreshFailed    = "failed"    // an input could not be read, or generating failed
)

// serviceInputs identify what a generation was made from: a digest per
// input, and what of the configuration shapes the tree.
type serviceInputs struct {
	Config    string            `json:"config"`
	Releases  string            `json:"releases"`
	GraphData string            `json:"graphData"`
	Catalogs  map[string]string `json:"catalogs,omitempty"`
}

func (in serviceInputs) key() string {
	b, _ := json.Marshal(in) // map keys sorted
	return string(b)
}

// serviceState is DIR/state.json: the inputs of the tree in DIR/tree,
// which generation that is (so a tree replaced behind the service's back
// is not trusted), and the generation last published.
type serviceState struct {
	Inputs     serviceInputs `json:"inputs"`
	Generation string        `json:"generation"`
	Published  string        `json:"published,omitempty"`
}

// refresher keeps DIR/tree up to date with the inputs.
type refresher struct {
	c        *cli.Context // generate's helpers read the flags they share
	cfg      *serviceConfig
	h        *site.Handler
	m        *serviceMetrics
	log      *slog.Logger
	client   *registry.Client // graph-data and catalog images
	releases *source.Scraped
	catOpts  catsource.Options
	pub      *servicePublisher // nil without --publish
	watching bool
	// refused is the key of the inputs the guard refused last: they are
	// not tried again until an input changes.
	refused string
	// What was read, by digest, so that an unchanged input is not read
	// again when another one changed.
	graphData struct {
		digest string
		fsys   fs.FS
	}
	catalogs map[string]loadedServiceCatalog
	// rollouts is when the served tree's phased rollouts next change
	// (service_rollouts.go).
	rollouts rolloutClock
}

type loadedServiceCatalog struct {
	digest  string
	catalog *catviews.Catalog
}

func newRefresher(c *cli.Context, cfg *serviceConfig, h *site.Handler, m *serviceMetrics, log *slog.Logger) (*refresher, error) {
	regOpts := registry.Options{CAFile: c.String("ca-file"), PlainHTTP: c.Bool("plain-http"), Logger: log}
	client, err := registry.New(regOpts)
	if err != nil {
		return nil, err
	}
	src, err := source.Parse("registry:"+cfg.releases, source.Options{
		Logger: log, Registry: regOpts, ScrapeTimeout: cfg.scrapeLimit, PayloadRepo: c.String("payload-repo"),
		Scrape: scrape.Options{
			// Entries never go stale: kept in memory too, each refresh
			// costs one HEAD per tag and no file read.
			Cache:      &scrape.MemoryCache{Inner: scrape.DirCache{Dir: filepath.Join(cfg.cacheDir(), "releases")}},
			Workers:    c.Int("workers"),
			SkipBroken: c.Bool("skip-broken"),
		},
	})
	if err != nil {
		return nil, fmt.Errorf("--releases: %w", err)
	}
	r := &refresher{
		c: c, cfg: cfg, h: h, m: m, log: log, client: client, releases: src.(*source.Scraped),
		catOpts:  catsource.Options{Registry: regOpts, Platform: cfg.platform, CacheDir: filepath.Join(cfg.cacheDir(), "catalogs"), Logger: log},
		catalogs: map[string]loadedServiceCatalog{},
	}
	if cfg.publishTo != "" {
		if r.pub, err = newServicePublisher(c, cfg, log); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// loop refreshes at once, then --interval after each refresh ends, until
// ctx ends.
func (r *refresher) loop(ctx context.Context) {
	for {
		start := time.Now()
		result, err := r.refresh(ctx)
		if ctx.Err() != nil {
			return
		}
		r.m.refreshed(result, start)
		level := slog.LevelInfo
		if err != nil {
			level = slog.LevelError
		}
		attrs := []any{"result", result, "duration", time.Since(start).Round(time.Millisecond)}
		if err != nil {
			attrs = append(attrs, "err", err)
		}
		r.log.Log(ctx, level, "refresh", attrs...)
		select {
		case <-ctx.Done():
			return
		case <-time.After(r.rollouts.wait(r.cfg.interval, time.Now())):
		}
	}
}

// watch serves DIR/tree and follows it.
func (r *refresher) watch() error {
	if err := r.h.Watch(r.c.Context, r.cfg.treeDir(), 2*time.Second); err != nil {
		return err
	}
	r.watching = true
	return nil
}

// refresh resolves every input, generates and serves a new tree when one
// changed, and publishes what is not published yet.
func (r *refresher) refresh(ctx context.Context) (string, error) {
	in, g, err := r.resolve(ctx)
	if err != nil {
		return refreshFailed, err
	}
	state := r.readState()
	current := r.treeGeneration()
	if current != "" && state.Generation == current && state.Inputs.key() == in.key() && !r.rollouts.due(r.cfg.treeDir(), time.Now()) {
		return refreshUnchanged, r.publishPending(ctx, state)
	}
	if r.refused == in.key() {
		return refreshRefused, errors.New("the inputs are those of the generation refused last; waiting for one of them to change")
	}
	gen, refused, err := r.generate(ctx, in, g)
	switch {
	case refused:
		r.refused = in.key()
		return refreshRefused, err
	case err != nil:
		return refreshFailed, err
	}
	r.refused = ""
	state = serviceState{Inputs: in, Generation: gen, Published: state.Published}
	if err := r.writeState(state); err != nil {
		return refreshFailed, err
	}
	start := time.Now()
	err = r.serve(gen)
	r.m.phase("serve", start)
	if err != nil {
		return refreshFailed, err
	}
	return refreshGenerated, r.publishPending(ctx, state)
}

// resolve reads every input's digest: the releases by scraping (the
// graph of releases comes with it), images with a HEAD request,
// directories by their content.
func (r *refresher) resolve(ctx context.Context) (serviceInputs, *graph.Graph, error) {
	in := serviceInputs{Config: r.configKey()}
	start := time.Now()
	g, err := r.releases.Graph(ctx)
	if err == nil {
		in.Releases = releasesDigest(r.releases.Result)
		r.m.scraped(r.releases.Result.Stats, len(r.releases.Result.Releases))
	}
	r.m.input("releases", r.cfg.releases, in.Releases, err)
	r.m.phase("scrape", start)
	if err != nil {
		return in, nil, err
	}
	start = time.Now()
	if r.cfg.isImage {
		in.GraphData, err = resolveImage(ctx, r.client, r.cfg.graphData)
	} else {
		in.GraphData, err = contentDigest(r.cfg.graphData)
	}
	r.m.input("graph-data", r.cfg.graphData, in.GraphData, err)
	r.m.phase("graph_data", start)
	if err != nil {
		return in, nil, fmt.Errorf("graph-data %s: %w", r.cfg.graphData, err)
	}
	start = time.Now()
	defer r.m.phase("catalogs", start)
	for _, s := range r.cfg.catalogs {
		if in.Catalogs == nil {
			in.Catalogs = map[string]string{}
		}
		d, err := r.catalogDigest(ctx, s)
		r.m.input("catalog/"+s.Name, s.Source, d, err)
		if err != nil {
			return in, nil, fmt.Errorf("--catalog %s: %w", s.Name, err)
		}
		in.Catalogs[s.Name] = d
	}
	return in, g, nil
}

// configKey is what of the configuration shapes the tree: a new binary
// or different flags generate again even with the same inputs.
func (r *refresher) configKey() string {
	return fmt.Sprintf("%s releases=%s payload=%s catalogs=%v valid-only=%v platform=%s",
		version, r.cfg.releases, r.c.String("payload-repo"), r.cfg.catalogs, r.cfg.validOnly, r.cfg.platform)
}

func (r *refresher) catalogSource(s generator.CatalogSpec) (catsource.Source, error) {
	return catsource.Parse(s.Source, r.catOpts)
}

// catalogDigest resolves a catalog image's tag (one HEAD) or digests a
// catalog directory or file.
func (r *refresher) catalogDigest(ctx context.Context, s generator.CatalogSpec) (string, error) {
	src, err := r.catalogSource(s)
	if err != nil {
		return "", err
	}
	switch src := src.(type) {
	case *catsource.Image:
		return resolveImage(ctx, r.client, src.Ref)
	case *catsource.Dir:
		return contentDigest(src.Path)
	case *catsource.File:
		return contentDigest(src.Path)
	}
	return "", fmt.Errorf("catalog source %s: cannot be followed", src)
}

// generate writes a new generation into DIR/tree from the inputs, reading
// again only those whose digest changed. refused says the shrink guard
// refused it (DIR/tree unchanged).
func (r *refresher) generate(ctx context.Context, in serviceInputs, g *graph.Graph) (gen string, refused bool, err error) {
	start := time.Now()
	gdfs, err := r.readGraphData(ctx, in.GraphData)
	if err != nil {
		r.m.input("graph-data", r.cfg.graphData, in.GraphData, err)
		return "", false, fmt.Errorf("graph-data %s: %w", r.cfg.graphData, err)
	}
	cats, err := r.readCatalogs(ctx, in)
	if err != nil {
		return "", false, err
	}
	r.m.phase("read", start)
	start = time.Now()
	defer r.m.phase("generate", start)
	built, err := generator.Build(ctx, graphSource{g: g, name: "registry:" + r.cfg.releases}, gdfs,
		generator.BuildOptions{GraphData: graphdata.DefaultOptions(), Logger: r.log})
	if err != nil {
		return "", false, err
	}
	out := r.cfg.treeDir()
	check, err := generationGuard(ctx, r.c, "data", out, false)
	if err != nil {
		return "", false, err
	}
	guard := func(next *manifest.Manifest) error {
		if err := check(next); err != nil {
			refused = true
			return err
		}
		return nil
	}
	at, err := generator.GeneratedAt()
	if err != nil {
		return "", false, err
	}
	resolved, err := writer.Resolve(out)
	if err != nil {
		return "", false, err
	}
	signer, err := generationSigner(r.c, resolved, at) // nil without --sign
	if err != nil {
		return "", false, err
	}
	plan, err := rolloutPlan(r.c, built, at)
	if err != nil {
		return "", false, err
	}
	m, err := generator.Render(ctx, built, generator.RenderOptions{
		Store: writer.DirStore{Dir: out}, GeneratedAt: at, Workers: r.c.Int("workers"), Logger: r.log,
		Check: guard, Catalogs: cats, Sign: signer, Precompress: true, Rollouts: plan,
	})
	if err != nil {
		return "", refused, err
	}
	r.rollouts.set(m)
	r.log.Info("generated", "dir", out, "graphs", m.Counts.Graphs, "versionGraphs", m.Counts.VersionGraphs, "files", m.Counts.Files)
	gen = r.treeGeneration()
	if gen == "" {
		return "", false, fmt.Errorf("%s: no index.json after generating", out)
	}
	return gen, false, nil
}

// readGraphData returns the graph-data tree of the digest given, read
// again only when it changed.
func (r *refresher) readGraphData(ctx context.Context, digest string) (fs.FS, error) {
	if r.graphData.fsys != nil && r.graphData.digest == digest {
		return r.graphData.fsys, nil
	}
	var (
		fsys fs.FS
		err  error
	)
	if r.cfg.isImage {
		var ref string
		if ref, err = pinned(r.client, r.cfg.graphData, digest); err == nil {
			fsys, err = graphdata.OpenImage(ctx, r.client, ref)
		}
	} else {
		fsys, err = graphdata.Open(r.cfg.graphData)
	}
	if err != nil {
		return nil, err
	}
	r.graphData.digest, r.graphData.fsys = digest, fsys
	return fsys, nil
}

// pinned is ref by the digest it resolved to: what is read is what the
// digest says, even if the tag moved since.
func pinned(c *registry.Client, ref, digest string) (string, error) {
	r, err := c.Reference(ref)
	if err != nil {
		return "", err
	}
	return r.Context().Digest(digest).String(), nil
}

// readCatalogs returns every catalog, each read and checked again only
// when its digest changed. A catalog with errors fails the refresh, as it
// fails generate (--catalog-valid-only publishes its valid packages).
func (r *refresher) readCatalogs(ctx context.Context, in serviceInputs) ([]*catviews.Catalog, error) {
	var cats []*catviews.Catalog
	for _, s := range r.cfg.catalogs {
		digest := in.Catalogs[s.Name]
		if lc, ok := r.catalogs[s.Name]; ok && lc.digest == digest {
			cats = append(cats, lc.catalog)
			continue
		}
		src, err := r.catalogSource(s)
		if err != nil {
			return nil, fmt.Errorf("--catalog %s: %w", s.Name, err)
		}
		lc, err := generator.LoadCatalog(ctx, s.Name, src, r.cfg.validOnly, r.log)
		if err != nil {
			return nil, fmt.Errorf("--catalog %s: %w", s.Name, err)
		}
		if lc.Catalog == nil {
			return nil, fmt.Errorf("--catalog %s (%s): %w", s.Name, src, lc.Errors())
		}
		// The tag may have moved since it was resolved: what was read is
		// what counts, and a different digest is read again next time.
		if _, d, ok := strings.Cut(lc.Catalog.Info.Resolved, "@"); ok {
			digest = d
		}
		r.catalogs[s.Name] = loadedServiceCatalog{digest: digest, catalog: lc.Catalog}
		cats = append(cats, lc.Catalog)
	}
	return cats, nil
}

// serve makes the generation just written the one served.
func (r *refresher) serve(gen string) error {
	if !r.watching {
		if err := r.watch(); err != nil {
			return fmt.Errorf("serving %s: %w", r.cfg.treeDir(), err)
		}
	} else {
		r.h.Rescan()
	}
	if g := r.h.Generation(); g == nil || g.ID != gen {
		return fmt.Errorf("%s: the new generation was written but is not served (see the log)", r.cfg.treeDir())
	}
	return nil
}

// treeGeneration is the ID of the generation in DIR/tree ("" for none).
func (r *refresher) treeGeneration() string {
	index, err := os.ReadFile(filepath.Join(r.cfg.treeDir(), manifest.FileName))
	if err != nil {
		return ""
	}
	return manifest.Digest(index)
}

func (r *refresher) statePath() string { return filepath.Join(r.cfg.data, serviceStateFile) }

// readState reads DIR/state.json; a missing or unreadable one is an empty
// state, which only costs a generation.
func (r *refresher) readState() serviceState {
	var st serviceState
	data, err := os.ReadFile(r.statePath())
	if err == nil {
		err = json.Unmarshal(data, &st)
	}
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		r.log.Warn("state file unreadable; generating again", "file", r.statePath(), "err", err)
		return serviceState{}
	}
	return st
}

// writeState replaces DIR/state.json atomically.
func (r *refresher) writeState(st serviceState) error {
	data, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(r.cfg.data, ".state-*.json")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(append(data, '\n')); err != nil {
		tmp.Close()
		return fmt.Errorf("%s: %w", tmp.Name(), err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), r.statePath())
}

// publishPending publishes the served generation unless it is published
// already.
func (r *refresher) publishPending(ctx context.Context, st serviceState) error {
	if r.pub == nil || st.Generation == "" || st.Published == st.Generation {
		return nil
	}
	start := time.Now()
	err := r.pub.publish(ctx, r.cfg.treeDir(), r.m)
	r.m.phase("publish", start)
	if err != nil {
		return fmt.Errorf("--publish %s: %w", r.cfg.publishTo, err)
	}
	st.Published = st.Generation
	return r.writeState(st)
}

// graphSource is a source whose graph was read already (the scrape that
// resolved the releases' digest).
type graphSource struct {
	g    *graph.Graph
	name string
}

func (s graphSource) Graph(context.Context) (*graph.Graph, error) { return s.g, nil }
func (s graphSource) String() string                              { return s.name }

package service

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

	catsource "github.com/upgraph/upgraph/catalog/source"
	catviews "github.com/upgraph/upgraph/catalog/views"
	"github.com/upgraph/upgraph/generator"
	"github.com/upgraph/upgraph/registry"
	"github.com/upgraph/upgraph/release/graph"
	"github.com/upgraph/upgraph/release/graphdata"
	"github.com/upgraph/upgraph/release/rollout"
	"github.com/upgraph/upgraph/release/scrape"
	"github.com/upgraph/upgraph/release/source"
	"github.com/upgraph/upgraph/site"
	"github.com/upgraph/upgraph/tree/guard"
	"github.com/upgraph/upgraph/tree/manifest"
	"github.com/upgraph/upgraph/tree/writer"
)

// The results of a refresh, as /metrics counts them.
const (
	Generated = "generated" // a new generation is served
	Unchanged = "unchanged" // every input digest as served
	Refused   = "refused"   // the shrink guard refused the inputs
	Failed    = "failed"    // an input could not be read, or generating failed
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

// Service keeps DIR/tree up to date with the inputs and has h serve it.
type Service struct {
	cfg      Config
	h        *site.Handler
	m        *Metrics
	log      *slog.Logger
	client   *registry.Client // graph-data and catalog images
	releases *source.Scraped
	catOpts  catsource.Options
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
	// (rollouts.go).
	rollouts rolloutClock
}

type loadedServiceCatalog struct {
	digest  string
	catalog *catviews.Catalog
}

// New returns the service of cfg, serving with h and counting in m.
func New(cfg Config, h *site.Handler, m *Metrics) (*Service, error) {
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if cfg.Clock == nil {
		cfg.Clock = realClock{}
	}
	if cfg.RolloutBuckets == 0 {
		cfg.RolloutBuckets = rollout.DefaultBuckets
	}
	regOpts := cfg.Registry
	regOpts.Logger = log
	client, err := registry.New(regOpts)
	if err != nil {
		return nil, err
	}
	src, err := source.Parse("registry:"+cfg.Releases, source.Options{
		Logger: log, Registry: regOpts, ScrapeTimeout: cfg.ScrapeTimeout, PayloadRepo: cfg.PayloadRepo,
		Scrape: scrape.Options{
			// Entries never go stale: kept in memory too, each refresh
			// costs one HEAD per tag and no file read.
			Cache:      &scrape.MemoryCache{Inner: scrape.DirCache{Dir: filepath.Join(cfg.CacheDir(), "releases")}},
			Workers:    cfg.Workers,
			SkipBroken: cfg.SkipBroken,
		},
	})
	if err != nil {
		return nil, fmt.Errorf("--releases: %w", err)
	}
	return &Service{
		cfg: cfg, h: h, m: m, log: log, client: client, releases: src.(*source.Scraped),
		catOpts:  catsource.Options{Registry: regOpts, Platform: cfg.Platform, CacheDir: filepath.Join(cfg.CacheDir(), "catalogs"), Logger: log},
		catalogs: map[string]loadedServiceCatalog{},
	}, nil
}

// Loop refreshes at once, then Interval after each refresh ends, until
// ctx ends.
func (r *Service) Loop(ctx context.Context) {
	for {
		start := time.Now()
		result, err := r.Refresh(ctx)
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
		case <-r.cfg.Clock.After(r.rollouts.wait(r.cfg.Interval, r.cfg.Clock.Now())):
		}
	}
}

// Watch serves DIR/tree and follows it, until ctx ends.
func (r *Service) Watch(ctx context.Context) error {
	if err := r.h.Watch(ctx, r.cfg.TreeDir(), 2*time.Second); err != nil {
		return err
	}
	r.watching = true
	return nil
}

// Refresh resolves every input, generates and serves a new tree when one
// changed, and publishes what is not published yet. It returns the
// result as /metrics counts it (Generated, Unchanged, Refused, Failed).
func (r *Service) Refresh(ctx context.Context) (string, error) {
	in, g, err := r.resolve(ctx)
	if err != nil {
		return Failed, err
	}
	state := r.readState()
	current := r.treeGeneration()
	if current != "" && state.Generation == current && state.Inputs.key() == in.key() && !r.rollouts.due(r.cfg.TreeDir(), r.cfg.Clock.Now()) {
		return Unchanged, r.publishPending(ctx, state)
	}
	if r.refused == in.key() {
		return Refused, errors.New("the inputs are those of the generation refused last; waiting for one of them to change")
	}
	gen, refused, err := r.generate(ctx, in, g)
	switch {
	case refused:
		r.refused = in.key()
		return Refused, err
	case err != nil:
		return Failed, err
	}
	r.refused = ""
	state = serviceState{Inputs: in, Generation: gen, Published: state.Published}
	if err := r.writeState(state); err != nil {
		return Failed, err
	}
	start := time.Now()
	err = r.serve(ctx, gen)
	r.m.phase("serve", start)
	if err != nil {
		return Failed, err
	}
	return Generated, r.publishPending(ctx, state)
}

// resolve reads every input's digest: the releases by scraping (the
// graph of releases comes with it), images with a HEAD request,
// directories by their content.
func (r *Service) resolve(ctx context.Context) (serviceInputs, *graph.Graph, error) {
	in := serviceInputs{Config: r.configKey()}
	start := time.Now()
	g, err := r.releases.Graph(ctx)
	if err == nil {
		in.Releases = releasesDigest(r.releases.Result)
		r.m.scraped(r.releases.Result.Stats, len(r.releases.Result.Releases))
	}
	r.m.input("releases", r.cfg.Releases, in.Releases, err)
	r.m.phase("scrape", start)
	if err != nil {
		return in, nil, err
	}
	start = time.Now()
	if r.cfg.GraphDataIsImage {
		in.GraphData, err = resolveImage(ctx, r.client, r.cfg.GraphData)
	} else {
		in.GraphData, err = contentDigest(r.cfg.GraphData)
	}
	r.m.input("graph-data", r.cfg.GraphData, in.GraphData, err)
	r.m.phase("graph_data", start)
	if err != nil {
		return in, nil, fmt.Errorf("graph-data %s: %w", r.cfg.GraphData, err)
	}
	start = time.Now()
	defer r.m.phase("catalogs", start)
	for _, s := range r.cfg.Catalogs {
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
func (r *Service) configKey() string {
	return fmt.Sprintf("%s releases=%s payload=%s catalogs=%v valid-only=%v platform=%s",
		r.cfg.Version, r.cfg.Releases, r.cfg.PayloadRepo, r.cfg.Catalogs, r.cfg.ValidOnly, r.cfg.Platform)
}

func (r *Service) catalogSource(s generator.CatalogSpec) (catsource.Source, error) {
	return catsource.Parse(s.Source, r.catOpts)
}

// catalogDigest resolves a catalog image's tag (one HEAD) or digests a
// catalog directory or file.
func (r *Service) catalogDigest(ctx context.Context, s generator.CatalogSpec) (string, error) {
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
func (r *Service) generate(ctx context.Context, in serviceInputs, g *graph.Graph) (gen string, refused bool, err error) {
	start := time.Now()
	gdfs, err := r.readGraphData(ctx, in.GraphData)
	if err != nil {
		r.m.input("graph-data", r.cfg.GraphData, in.GraphData, err)
		return "", false, fmt.Errorf("graph-data %s: %w", r.cfg.GraphData, err)
	}
	cats, err := r.readCatalogs(ctx, in)
	if err != nil {
		return "", false, err
	}
	r.m.phase("read", start)
	start = time.Now()
	defer r.m.phase("generate", start)
	out := r.cfg.TreeDir()
	// The tree is begun (locked, its spare and index.json read) while
	// the graph is built; a refresh that stops before Render aborts it.
	started := generator.Start(ctx, writer.DirStore{Dir: out, NoSpare: r.cfg.NoSpare}, generator.StartOptions{Precompress: true, Logger: r.log})
	defer started.Abort()
	built, err := generator.Build(ctx, graphSource{g: g, name: "registry:" + r.cfg.Releases}, gdfs,
		generator.BuildOptions{GraphData: graphdata.DefaultOptions(), Logger: r.log})
	if err != nil {
		return "", false, err
	}
	check, err := guard.New(ctx, guard.Options{Flag: "data", Out: out, Threshold: r.cfg.ShrinkThreshold,
		Force: r.cfg.Force, AllowEmpty: r.cfg.AllowEmpty})
	if err != nil {
		return "", false, err
	}
	checkNext := func(next *manifest.Manifest) error {
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
	var signer func([]byte, *manifest.Manifest) (map[string][]byte, error) // nil without Sign
	if r.cfg.Sign != nil {
		if signer, err = r.cfg.Sign(resolved, at); err != nil {
			return "", false, err
		}
	}
	// The rollouts are computed for the service's now: with
	// SOURCE_DATE_EPOCH fixed, a tree computed for it would be due again
	// at once, every refresh.
	plan, err := generator.RolloutPlan(built, r.cfg.RolloutBuckets, r.cfg.Clock.Now())
	if err != nil {
		return "", false, err
	}
	m, err := generator.Render(ctx, built, generator.RenderOptions{
		Started: started, GeneratedAt: at, Workers: r.cfg.Workers, Logger: r.log,
		Check: checkNext, Catalogs: cats, Sign: signer, Precompress: true, Rollouts: plan,
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
func (r *Service) readGraphData(ctx context.Context, digest string) (fs.FS, error) {
	if r.graphData.fsys != nil && r.graphData.digest == digest {
		return r.graphData.fsys, nil
	}
	var (
		fsys fs.FS
		err  error
	)
	if r.cfg.GraphDataIsImage {
		var ref string
		if ref, err = pinned(r.client, r.cfg.GraphData, digest); err == nil {
			fsys, err = graphdata.OpenImage(ctx, r.client, ref)
		}
	} else {
		fsys, err = graphdata.Open(r.cfg.GraphData)
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
func (r *Service) readCatalogs(ctx context.Context, in serviceInputs) ([]*catviews.Catalog, error) {
	var cats []*catviews.Catalog
	for _, s := range r.cfg.Catalogs {
		digest := in.Catalogs[s.Name]
		if lc, ok := r.catalogs[s.Name]; ok && lc.digest == digest {
			cats = append(cats, lc.catalog)
			continue
		}
		src, err := r.catalogSource(s)
		if err != nil {
			return nil, fmt.Errorf("--catalog %s: %w", s.Name, err)
		}
		lc, err := generator.LoadCatalog(ctx, s.Name, src, r.cfg.ValidOnly, r.log)
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
func (r *Service) serve(ctx context.Context, gen string) error {
	if !r.watching {
		if err := r.Watch(ctx); err != nil {
			return fmt.Errorf("serving %s: %w", r.cfg.TreeDir(), err)
		}
	} else {
		r.h.Rescan()
	}
	if g := r.h.Generation(); g == nil || g.ID != gen {
		return fmt.Errorf("%s: the new generation was written but is not served (see the log)", r.cfg.TreeDir())
	}
	return nil
}

// treeGeneration is the ID of the generation in DIR/tree ("" for none).
func (r *Service) treeGeneration() string {
	index, err := os.ReadFile(filepath.Join(r.cfg.TreeDir(), manifest.FileName))
	if err != nil {
		return ""
	}
	return manifest.Digest(index)
}

func (r *Service) statePath() string { return filepath.Join(r.cfg.Data, StateFile) }

// readState reads DIR/state.json; a missing or unreadable one is an empty
// state, which only costs a generation.
func (r *Service) readState() serviceState {
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
func (r *Service) writeState(st serviceState) error {
	data, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(r.cfg.Data, ".state-*.json")
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
func (r *Service) publishPending(ctx context.Context, st serviceState) error {
	if r.cfg.Publish == nil || st.Generation == "" || st.Published == st.Generation {
		return nil
	}
	start := time.Now()
	err := r.cfg.Publish.publish(ctx, r.cfg.TreeDir(), r.cfg.ShrinkThreshold, r.cfg.Force, r.m, r.log)
	r.m.phase("publish", start)
	if err != nil {
		return fmt.Errorf("--publish %s: %w", r.cfg.Publish.URL, err)
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

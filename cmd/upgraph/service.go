package main

import (
	"fmt"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/upgraph/upgraph/generator"
	"github.com/upgraph/upgraph/release/graphdata"
	"github.com/upgraph/upgraph/site"
	"github.com/upgraph/upgraph/tree/guard"
	"github.com/upgraph/upgraph/tree/manifest"
	"github.com/upgraph/upgraph/tree/s3tree"
)

// The directories and files of --data DIR.
const (
	serviceTreeDir   = "tree"       // the generation served
	serviceCacheDir  = "cache"      // release scrapes, catalog images
	serviceStateFile = "state.json" // the inputs the tree was made from
)

func serviceCommand() *cli.Command {
	return &cli.Command{
		Name:  "service",
		Usage: "the update service in one process: scrape, apply graph-data, generate and serve, every --interval",
		Description: `A drop-in for the OpenShift Update Service (operator, graph-builder,
policy-engine and graph-data init container) in one process. Its inputs are
named as an UpdateService resource names them: --releases is
spec.releases, the repository release images are scraped from, and
--graph-data-image is spec.graphDataImage (or --graph-data DIR for a
directory or .tar.gz); --catalog NAME=SOURCE adds operator catalogs as
generate does.

Every --interval (counted from the end of the previous refresh), each input
is resolved to a digest: every tag of the releases repository with one
HEAD request (release images already read are remembered in DIR/cache, by
manifest digest), the graph-data image and catalog images by tag, as OLM's
catalog polling does, and directories by their content. When a digest
differs from the served generation's, the tree is generated again into
DIR/tree, files unchanged since the previous generation linked rather than
written, and served as soon as it is complete. A new generation that would
drop more than --shrink-threshold of the served one's releases, channels
or per-version graphs, or any architecture, or an operator catalog, is
refused (as generate refuses it) and the previous one keeps being served;
the same inputs are not tried again until one of them changes. An input
that cannot be read (a registry outage) leaves the served generation as it
is and is counted in /metrics.

/readyz answers 200 while a generation is served (at once after a restart:
the tree and the caches in DIR survive it, so a restarted process serves
again without scraping anything but one HEAD per tag); /healthz while the
process runs; /metrics adds, to serve's series, each input's digest and
state, refresh results and the time each phase took.

With --publish s3://BUCKET/PREFIX (--endpoint, --path-style, --region as
publish's) every new generation is also published, incrementally: only
the objects that changed are uploaded, index.json last. A failed publish
is retried at the next refresh.

Registry credentials come from the docker configuration
($DOCKER_CONFIG/config.json); --ca-file adds the mirror registry's CA.

--sign KEYDIR signs each generation as generate --sign does (tuf/ in
DIR/tree, versions one more than the previous one's; docs/signing.md).

With phased rollouts in graph-data (rollouts/, docs/rollouts.md), each
generation is computed for its time with --rollout-buckets buckets, and the
next one is made when the next bucket opens (index.json's
rollouts.nextChange) even if no input changed, without waiting for
--interval.`,
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "releases", Usage: "the release images' repository, HOST/REPO (UpdateService spec.releases)"},
			&cli.StringFlag{Name: "graph-data-image", Usage: "the graph-data image, by tag or digest (UpdateService spec.graphDataImage)"},
			&cli.StringFlag{Name: "graph-data", Usage: "a graph-data directory or .tar.gz, instead of --graph-data-image"},
			&cli.StringSliceFlag{Name: "catalog", Usage: "an operator catalog to publish under operators/NAME/, as NAME=SOURCE (repeatable), as for generate: SOURCE is " + catalogSourceSyntax},
			&cli.BoolFlag{Name: "catalog-valid-only", Usage: "publish the packages of a catalog that have no error instead of refusing the catalog"},
			catalogPlatformFlag(),
			&cli.StringFlag{Name: "data", Required: true, Usage: "working directory: the tree served (DIR/tree), the caches (DIR/cache) and the inputs' digests (DIR/state.json); kept across restarts"},
			&cli.DurationFlag{Name: "interval", Value: time.Minute, Usage: "time between the end of one refresh and the start of the next (upstream's graph-builder: 5m)"},
			&cli.StringFlag{Name: "listen", Value: "127.0.0.1:8080", Usage: "address to listen on, HOST:PORT"},
			&cli.StringSliceFlag{Name: "prefix", Usage: `path prefixes (default "" and /api/upgrades_info)`},
			&cli.Int64Flag{Name: "cache-mb", Value: 512, Usage: "file content kept in memory, MiB; 0 keeps none"},
			&cli.BoolFlag{Name: "access-log", Usage: "log every request"},
			&cli.StringFlag{Name: "ca-file", Usage: "PEM bundle of extra trusted registry CAs"},
			&cli.BoolFlag{Name: "plain-http", Usage: "talk plain HTTP to the registry (loopback registries already are)"},
			&cli.BoolFlag{Name: "skip-broken", Usage: "go on without the tags that still fail after retries (each is logged) instead of failing the refresh"},
			&cli.IntFlag{Name: "workers", Usage: "concurrency of scraping and of rendering and writing; 0: 16 tags at a time, 2 × CPUs for rendering"},
			rolloutBucketsFlag(),
			&cli.DurationFlag{Name: "scrape-timeout", Value: 5 * time.Minute, Usage: "deadline for one refresh's scrape (upstream's scrape_timeout_secs: 300); 0: none"},
			&cli.StringFlag{Name: "payload-repo", Usage: "repository clusters pull releases from, when not --releases"},
			&cli.StringFlag{Name: "publish", Usage: "also publish every new generation to s3://BUCKET/PREFIX, incrementally"},
			&cli.StringFlag{Name: "endpoint", Usage: "--publish: URL of an S3-compatible store (default: AWS S3)"},
			&cli.BoolFlag{Name: "path-style", Usage: "--publish: address buckets as ENDPOINT/BUCKET/KEY (most S3-compatible stores need it)"},
			&cli.StringFlag{Name: "region", Usage: "--publish: region (default: from the AWS configuration, else " + s3tree.DefaultRegion + ")"},
		}, append(guardFlags(), signFlags()...)...),
		Action: withLog(runService),
	}
}

// serviceConfig is service's flags, checked.
type serviceConfig struct {
	releases    string // HOST/REPO
	graphData   string // image reference or path
	isImage     bool
	catalogs    []generator.CatalogSpec
	data        string
	interval    time.Duration
	listen      string
	prefixes    []string
	cacheBytes  int64
	publishTo   string // s3://BUCKET/PREFIX or ""
	threshold   float64
	force       bool
	allowEmpty  bool
	validOnly   bool
	platform    string
	scrapeLimit time.Duration
}

func (cfg *serviceConfig) treeDir() string  { return filepath.Join(cfg.data, serviceTreeDir) }
func (cfg *serviceConfig) cacheDir() string { return filepath.Join(cfg.data, serviceCacheDir) }

// serviceFlags checks every flag before anything is started.
func serviceFlags(c *cli.Context) (*serviceConfig, error) {
	cfg := &serviceConfig{
		data: c.String("data"), interval: c.Duration("interval"), listen: c.String("listen"),
		force: c.Bool("force"), allowEmpty: c.Bool("allow-empty"),
		validOnly: c.Bool("catalog-valid-only"), platform: c.String("catalog-platform"), scrapeLimit: c.Duration("scrape-timeout"),
	}
	if c.NArg() > 0 {
		return nil, fmt.Errorf("service: unexpected argument %q (every input is a flag)", c.Args().First())
	}
	// Empty values are refused rather than read as "not given": given
	// explicitly, "" is most likely an unset shell variable.
	releases, _, err := given(c, "releases")
	if err != nil {
		return nil, err
	}
	image, _, err := given(c, "graph-data-image")
	if err != nil {
		return nil, err
	}
	dir, _, err := given(c, "graph-data")
	if err != nil {
		return nil, err
	}
	if cfg.publishTo, _, err = given(c, "publish"); err != nil {
		return nil, err
	}
	// --releases as UpdateService spells it, HOST/REPO; generate's
	// registry: prefix is accepted too.
	cfg.releases = strings.TrimPrefix(releases, "registry:")
	if cfg.releases == "" {
		return nil, fmt.Errorf("--releases is required: the release images' repository, HOST/REPO (UpdateService spec.releases)")
	}
	if err := checkRepository("releases", cfg.releases); err != nil {
		return nil, err
	}
	switch {
	case image != "" && dir != "":
		return nil, fmt.Errorf("--graph-data-image and --graph-data: give one")
	case image != "":
		cfg.graphData, cfg.isImage = strings.TrimPrefix(image, graphdata.ImagePrefix), true
		if err := checkImageRef("graph-data-image", cfg.graphData); err != nil {
			return nil, err
		}
	case dir != "":
		cfg.graphData = dir
		if err := checkGraphData(c, false); err != nil {
			return nil, err
		}
	default:
		return nil, fmt.Errorf("--graph-data-image is required (UpdateService spec.graphDataImage), or --graph-data DIR")
	}
	specs, err := catalogSpecs(c)
	if err != nil {
		return nil, err
	}
	cfg.catalogs = specs
	threshold, err := shrinkThreshold(c)
	if err != nil {
		return nil, err
	}
	cfg.threshold = threshold
	if err := firstError(
		checkOutputDir(c, "data"), checkListen("listen", cfg.listen), checkGenerateCatalogs(c), checkWorkers(c),
		checkCAFile(c), checkPayloadRepo(c), checkTimeout(c, "scrape-timeout"), checkS3ClientFlags(c), checkRolloutFlags(c),
	); err != nil {
		return nil, err
	}
	if cfg.interval <= 0 {
		return nil, fmt.Errorf("--interval %v: want a positive duration", cfg.interval)
	}
	for _, p := range c.StringSlice("prefix") {
		prefix, err := servePrefix(p)
		if err != nil {
			return nil, fmt.Errorf("--prefix %q: %w", p, err)
		}
		cfg.prefixes = append(cfg.prefixes, prefix)
	}
	mb := c.Int64("cache-mb")
	if mb < 0 || mb > 1<<40 {
		return nil, fmt.Errorf("--cache-mb %d: want 0 (no cache) or a positive number of MiB", mb)
	}
	cfg.cacheBytes = mb << 20
	if cfg.publishTo != "" {
		if _, _, err := s3tree.ParseURL(cfg.publishTo); err != nil {
			return nil, fmt.Errorf("--publish: %w", err)
		}
	}
	// DIR/tree must be new, empty or a generation: the same rule as
	// generate's --out, checked now rather than at the first refresh.
	if _, err := guard.PreviousTree(cfg.treeDir()); err != nil && !cfg.force {
		return nil, fmt.Errorf("--data %s: %s: %w", cfg.data, serviceTreeDir, err)
	}
	// --sign's keys are read now, so a wrong directory fails at start;
	// each refresh reads them and the previous versions again.
	if _, err := generationSigner(c, "", time.Now()); err != nil {
		return nil, err
	}
	return cfg, nil
}

// runService serves DIR/tree and refreshes it every --interval until the
// command's context ends.
func runService(c *cli.Context, log *slog.Logger) error {
	cfg, err := serviceFlags(c)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(cfg.cacheDir(), 0o755); err != nil {
		return fmt.Errorf("--data %s: %w", cfg.data, err)
	}
	ln, err := net.Listen("tcp", cfg.listen)
	if err != nil {
		return fmt.Errorf("--listen %s: %w", cfg.listen, err)
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(serviceMemoryLimit(cfg.cacheBytes, cgroupMemoryMax))
	}
	cacheBytes := cfg.cacheBytes
	if cacheBytes == 0 {
		cacheBytes = -1
	}
	m := newServiceMetrics()
	var guard *site.Guard
	if !cfg.force {
		guard = &site.Guard{ShrinkThreshold: cfg.threshold}
	}
	h := site.NewHandler(site.Options{Prefixes: cfg.prefixes, CacheBytes: cacheBytes, VerifyAhead: true,
		Guard: guard, Logger: log, Metrics: m.write})
	r, err := newRefresher(c, cfg, h, m, log)
	if err != nil {
		ln.Close()
		h.Close()
		return err
	}
	// A generation left by a previous run is served at once, before the
	// first refresh: a restart does not wait for a scrape.
	if _, err := os.Stat(filepath.Join(cfg.treeDir(), manifest.FileName)); err == nil {
		if err := r.watch(); err != nil {
			log.Error("the generation in --data does not load; waiting for the first refresh", "dir", cfg.treeDir(), "err", err)
		}
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		r.loop(c.Context)
	}()
	err = serveUntilDone(c, h, ln, cfg.treeDir(), log)
	<-done
	return err
}

// cgroupMemoryMax is the container's memory limit (cgroup v2).
const cgroupMemoryMax = "/sys/fs/cgroup/memory.max"

// serviceMemoryLimit is service's Go memory limit when GOMEMLIMIT is not
// set: as serve's, the cache and its gzip copies, plus room for a
// generation being built (373 MiB peak at real scale, docs/openshift.md);
// and at most 90 % of the container's limit (read from maxFile), so that
// the collector works harder before the kernel kills the process rather
// than after.
func serviceMemoryLimit(cacheBytes int64, maxFile string) int64 {
	limit := cacheBytes + cacheBytes/4 + 512<<20
	if data, err := os.ReadFile(maxFile); err == nil {
		if n, err := strconv.ParseInt(strings.TrimSpace(string(data)), 10, 64); err == nil && n > 0 && n/10*9 < limit {
			limit = n / 10 * 9
		}
	}
	return limit
}

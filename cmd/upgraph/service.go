package main

import (
	"fmt"
	"log/slog"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/upgraph/upgraph/internal/cliflag"
	"github.com/upgraph/upgraph/registry"
	"github.com/upgraph/upgraph/service"
	"github.com/upgraph/upgraph/tree/manifest"
	"github.com/upgraph/upgraph/tree/s3tree"
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
			&cli.BoolFlag{Name: "no-spare", Usage: "remove the generation a refresh replaces instead of keeping it beside the tree as the next refresh's spare (docs/incremental.md)"},
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

// serviceConfig is service's flags, checked: the service's and serving's.
type serviceConfig struct {
	service.Config
	service.Serving
}

// serviceFlags checks every flag before anything is started.
func serviceFlags(c *cli.Context) (*serviceConfig, error) {
	cfg := &serviceConfig{Config: service.Config{
		Data: c.String("data"), Interval: c.Duration("interval"),
		Force: c.Bool("force"), AllowEmpty: c.Bool("allow-empty"),
		ValidOnly: c.Bool("catalog-valid-only"), Platform: c.String("catalog-platform"), ScrapeTimeout: c.Duration("scrape-timeout"),
		Registry:    registry.Options{CAFile: c.String("ca-file"), PlainHTTP: c.Bool("plain-http")},
		PayloadRepo: c.String("payload-repo"), Workers: c.Int("workers"), SkipBroken: c.Bool("skip-broken"), NoSpare: c.Bool("no-spare"), RolloutBuckets: c.Int("rollout-buckets"),
		Version: version,
	}, Serving: service.Serving{Listen: c.String("listen")}}
	if c.NArg() > 0 {
		return nil, fmt.Errorf("service: unexpected argument %q (every input is a flag)", c.Args().First())
	}
	// Empty values are refused rather than read as "not given": given
	// explicitly, "" is most likely an unset shell variable.
	releases, _, err := cliflag.Given(c, "releases")
	if err != nil {
		return nil, err
	}
	image, _, err := cliflag.Given(c, "graph-data-image")
	if err != nil {
		return nil, err
	}
	dir, _, err := cliflag.Given(c, "graph-data")
	if err != nil {
		return nil, err
	}
	publishTo, _, err := cliflag.Given(c, "publish")
	if err != nil {
		return nil, err
	}
	if err := cfg.SetInputs(service.Inputs{Releases: releases, GraphDataImage: image, GraphData: dir}); err != nil {
		return nil, err
	}
	specs, err := catalogSpecs(c)
	if err != nil {
		return nil, err
	}
	cfg.Catalogs = specs
	threshold, err := shrinkThreshold(c)
	if err != nil {
		return nil, err
	}
	cfg.ShrinkThreshold = threshold
	if err := cliflag.FirstError(
		cliflag.CheckOutputDir(c, "data"), cliflag.CheckListen("listen", cfg.Listen), checkGenerateCatalogs(c), checkWorkers(c),
		checkCAFile(c), checkPayloadRepo(c), cliflag.CheckTimeout(c, "scrape-timeout"), checkS3ClientFlags(c), checkRolloutFlags(c),
	); err != nil {
		return nil, err
	}
	if err := cfg.SetOutputs(&cfg.Serving, service.Outputs{Prefixes: c.StringSlice("prefix"), CacheMB: c.Int64("cache-mb"), Publish: publishTo}); err != nil {
		return nil, err
	}
	// DIR/tree must be new, empty or a generation (generate's rule for
	// --out), checked now rather than at the first refresh.
	if err := cfg.Config.Check(); err != nil {
		return nil, err
	}
	// --sign's keys are read now, so a wrong directory fails at start;
	// each refresh reads them and the previous versions again.
	if _, err := generationSigner(c, "", time.Now()); err != nil {
		return nil, err
	}
	cfg.Sign = func(dir string, at time.Time) (func([]byte, *manifest.Manifest) (map[string][]byte, error), error) {
		return generationSigner(c, dir, at)
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
	cfg.Logger = log
	if cfg.Publish != nil {
		if cfg.Publish.Client, err = s3tree.NewClient(c.Context, s3ClientOptions(c)); err != nil {
			return err
		}
	}
	service.SetMemoryLimit(cfg.CacheBytes)
	p, err := service.Start(c.Context, cfg.Config, cfg.Serving)
	if err != nil {
		return err
	}
	err = serveUntilDone(c, p.Handler, p.Listener, cfg.TreeDir(), log)
	p.Wait()
	return err
}

package main

import (
	"context"
	"fmt"
	"io/fs"
	"regexp"
	"time"

	"github.com/urfave/cli/v2"

	catviews "github.com/upgraph/upgraph/catalog/views"
	"github.com/upgraph/upgraph/generator"
	"github.com/upgraph/upgraph/internal/cliflag"
	"github.com/upgraph/upgraph/internal/gcbudget"
	"github.com/upgraph/upgraph/release/graphdata"
	"github.com/upgraph/upgraph/release/source"
	"github.com/upgraph/upgraph/tools/airgap"
	"github.com/upgraph/upgraph/tree/writer"
)

func generateCommand() *cli.Command {
	return &cli.Command{
		Name:        "generate",
		Usage:       "write every channel × arch graph and per-version graph, and operator catalogs, into a folder",
		Description: help("generate"),
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "releases", Usage: "release source: " + source.Kinds + ", or " + generator.MirrorPrefix + "URL (mirror a Cincinnati endpoint)"},
			&cli.StringFlag{Name: "graph-data", Usage: "graph-data directory, .tar.gz, or image:REF (a graph-data container image)"},
			&cli.StringFlag{Name: "signatures", Usage: "release signatures to publish besides graph-data's: a directory of sha256/<hex>/signature-<N> or sha256=<hex>/signature-<N>"},
			&cli.BoolFlag{Name: "demo", Usage: "use the embedded demo releases and graph-data"},
			&cli.StringFlag{Name: "out", Aliases: []string{"o"}, Required: true, Usage: "output directory"},
			&cli.StringFlag{Name: "channel", Usage: "only channels matching this regular expression"},
			&cli.StringSliceFlag{Name: "channels", Usage: "cincinnati: sources: the channels to fetch when there is no --graph-data (comma-separated or repeated)"},
			&cli.StringSliceFlag{Name: "arch", Usage: "only these architectures (comma-separated or repeated)"},
			&cli.BoolFlag{Name: "skip-invalid", Usage: "skip graph-data files that do not parse, with a warning, as upstream does, instead of failing"},
			&cli.BoolFlag{Name: "upstream-quirks", Usage: "reproduce upstream's accidental behaviours (see README)"},
			&cli.BoolFlag{Name: "no-viewer", Usage: "leave the static viewer (index.html, viewer/) out of the tree"},
			&cli.BoolFlag{Name: "no-precompress", Usage: "leave out the gzip copy (FILE.gz, deterministic, best compression) written beside every graph file and every catalog file of 1 KiB and more, from which serve, nginx and CDNs answer clients that accept gzip; without them, such clients get the plain file"},
			&cli.BoolFlag{Name: "full", Usage: "render every graph, even those whose inputs DIR's generation lists unchanged (by default their files are taken over from DIR: docs/incremental.md)"},
			&cli.BoolFlag{Name: "no-spare", Usage: "remove the generation replaced instead of keeping it beside DIR as .DIR.upgraph-spare, from which the next run takes the files it shares with DIR without linking them again (docs/incremental.md); the spare costs the space of the files that changed between the last two generations"},
			&cli.IntFlag{Name: "workers", Usage: "concurrency of scraping and of rendering and writing; 0: 16 tags at a time when scraping, 2 × CPUs for rendering and writing"},
			&cli.StringSliceFlag{Name: "catalog", Usage: "an operator catalog to publish under operators/NAME/, as NAME=SOURCE (repeatable; NAME a DNS-1123 label): SOURCE is " + catalogSourceSyntax},
			catalogSetFlag("operator catalogs with their priorities: a YAML or JSON file of catalogs {name, source, priority} (docs/operators.md, schema/cli/catalog-set.schema.json); each is published as --catalog NAME=SOURCE is"),
			&cli.BoolFlag{Name: "catalog-valid-only", Usage: "publish the packages of a catalog that have no error, listing each package left out with its errors, instead of failing"},
			catalogPlatformFlag(),
		}, append(append(append(guardFlags(), signFlags()...), scrapeFlags()...), rolloutFlags()...)...),
		Action: runGenerate,
	}
}

func runGenerate(c *cli.Context) error {
	log, err := logger(c)
	if err != nil {
		return err
	}
	gdOpts := graphdata.DefaultOptions()
	if c.Bool("skip-invalid") {
		gdOpts = graphdata.UpstreamOptions()
	}
	var channels *regexp.Regexp
	if expr := c.String("channel"); expr != "" {
		if channels, err = regexp.Compile(expr); err != nil {
			return fmt.Errorf("--channel: %w", err)
		}
	}
	if c.NArg() > 0 {
		// urfave/cli stops parsing flags at the first argument: a flag
		// after it would be ignored without a word.
		return fmt.Errorf("generate: unexpected argument %q (generate takes flags only; a flag after it would have been ignored)", c.Args().First())
	}
	arches := cliflag.List(c, "arch")
	if err := cliflag.FirstError(
		checkReleases(c, true), checkGraphData(c, true), cliflag.CheckInput(c, "signatures", cliflag.WantDir),
		cliflag.CheckOutputDir(c, "out"), cliflag.CheckList(c, "channels", channelName), cliflag.CheckList(c, "arch", archName),
		checkWorkers(c), checkGenerateCatalogs(c), checkScrapeFlags(c), checkRolloutFlags(c),
	); err != nil {
		return err
	}
	specs, err := catalogSpecs(c)
	if err != nil {
		return err
	}
	releases := c.Bool("demo") || c.String("releases") != "" || c.String("graph-data") != ""
	if !releases && len(specs) == 0 {
		return fmt.Errorf("--releases is required (or --demo, or --catalog NAME=SOURCE or --catalog-set FILE for operator catalogs)")
	}
	at, err := generator.GeneratedAt()
	if err != nil {
		return err
	}
	out := c.String("out")
	resolved, err := writer.Resolve(out)
	if err != nil {
		return fmt.Errorf("--out: %w", err)
	}
	signer, err := generationSigner(c, resolved, at)
	if err != nil {
		return err
	}
	check, err := generationGuard(c.Context, c, "out", out, false)
	if err != nil {
		return err
	}
	defer gcbudget.Apply(generator.HeapBudget)()
	start := time.Now()
	// The output is begun (locked, its spare and index.json read) while
	// the inputs are read; a run that stops before Render aborts it.
	started := generator.Start(c.Context, writer.DirStore{Dir: out, Trace: phaseTrace(log), NoSpare: c.Bool("no-spare")},
		generator.StartOptions{Full: c.Bool("full"), Precompress: !c.Bool("no-precompress"), Logger: log})
	defer started.Abort()
	// Catalogs first: a catalog that fails validation fails the run
	// before releases are scraped.
	var cats []*catviews.Catalog
	if len(specs) > 0 {
		opts, err := catalogOptions(c, log)
		if err == nil {
			cats, err = generator.LoadCatalogs(c.Context, specs, opts, c.Bool("catalog-valid-only"), c.App.ErrWriter, log)
		}
		if err != nil {
			return interrupted(c, err, out)
		}
	}
	var built *generator.Built
	if releases {
		if built, arches, err = generator.BuildInputs(c.Context, generator.Inputs{
			Demo: c.Bool("demo"), Releases: c.String("releases"), GraphData: c.String("graph-data"), Signatures: c.String("signatures"),
			GraphDataOptions: gdOpts, UpstreamQuirks: c.Bool("upstream-quirks"),
			SourceOptions: func() (source.Options, error) { return sourceOptions(c, log) },
			Mirror: func(ctx context.Context, url string, gd fs.FS) (*generator.Built, []string, error) {
				return airgap.BuildEndpoint(ctx, airgap.EndpointOptions{URL: url, GraphData: gd, GraphDataOptions: gdOpts, Channels: channels,
					EndpointChannels: cliflag.List(c, "channels"), Arches: arches, Workers: c.Int("workers"), Logger: log})
			},
			Arches: arches, Logger: log,
		}); err != nil {
			return interrupted(c, err, out)
		}
	}
	plan, err := rolloutPlan(c, built, at)
	if err != nil {
		return err
	}
	m, err := generator.Render(c.Context, built, generator.RenderOptions{
		Channels: channels, Arches: arches, Started: started,
		GeneratedAt: at, Workers: c.Int("workers"), NoViewer: c.Bool("no-viewer"), Logger: log,
		Check: check, Catalogs: cats, Sign: signer, Precompress: !c.Bool("no-precompress"), Rollouts: plan,
		Full: c.Bool("full"),
	})
	if err != nil {
		return interrupted(c, err, out)
	}
	log.Info("generated", "out", c.String("out"), "graphs", m.Counts.Graphs, "versionGraphs", m.Counts.VersionGraphs,
		"signatures", m.Counts.Signatures, "files", m.Counts.Files, "bytes", m.Counts.Bytes, "duration", time.Since(start).Round(time.Millisecond))
	fmt.Fprint(c.App.Writer, generator.Summary(m, built != nil, cats, c.String("out")))
	return nil
}

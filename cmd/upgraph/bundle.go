package main

import (
	"fmt"
	"log/slog"
	"time"

	"github.com/urfave/cli/v2"

	catviews "github.com/upgraph/upgraph/catalog/views"
	"github.com/upgraph/upgraph/generator"
	"github.com/upgraph/upgraph/internal/cliflag"
	"github.com/upgraph/upgraph/tools/airgap"
	"github.com/upgraph/upgraph/tree"
	"github.com/upgraph/upgraph/tree/sign"
	"github.com/upgraph/upgraph/tree/writer"
)

func mirrorTreeCommand() *cli.Command {
	return &cli.Command{
		Name:        "mirror",
		Usage:       "copy a tree, or part of it, for an air-gapped site: as a directory or one .tar.gz bundle",
		Description: help("mirror"),
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "from", Required: true, Usage: "a tree or a graph endpoint (see the description)"},
			&cli.StringFlag{Name: "out", Aliases: []string{"o"}, Usage: "write a tree directory"},
			&cli.StringFlag{Name: "bundle", Usage: "write a .tar.gz bundle (and BUNDLE.sha256)"},
			&cli.BoolFlag{Name: "no-spare", Usage: "with --out: remove the generation replaced instead of keeping it beside the directory as the next run's spare (docs/incremental.md)"},
			&cli.StringFlag{Name: "channel", Usage: "only channels matching this regular expression"},
			&cli.StringSliceFlag{Name: "arch", Usage: "only these architectures (comma-separated or repeated)"},
			&cli.StringSliceFlag{Name: "payload-mirror", Usage: "SRC=DST: pull payloads under repository prefix SRC from DST (repeatable)"},
			&cli.StringSliceFlag{Name: "catalog", Usage: "trees only: only these operator catalogs, by name (comma-separated or repeated; default: all)"},
			&cli.StringSliceFlag{Name: "package", Usage: "trees only: only these packages of the catalogs (comma-separated or repeated; default: all); a catalog with none of them is left out"},
			&cli.StringSliceFlag{Name: "channels", Usage: "graph endpoints only: the channels to fetch (comma-separated or repeated)"},
			&cli.IntFlag{Name: "workers", Usage: "concurrency of reading and of rendering and writing; 0: 4 reads at a time, 2 × CPUs for rendering and writing"},
			&cli.BoolFlag{Name: "no-viewer", Usage: "leave the static viewer (index.html, viewer/) out; default: as the source tree (graph endpoints: with it)"},
			&cli.BoolFlag{Name: "viewer", Usage: "write the static viewer even if the source tree has none"},
			&cli.BoolFlag{Name: "no-precompress", Usage: "leave out the gzip copies of graph and catalog files (FILE.gz); default: as the source tree (graph endpoints: with them)"},
			&cli.BoolFlag{Name: "precompress", Usage: "write the gzip copies of graph and catalog files even if the source tree has none"},
		}, append(append(guardFlags(), treeFlags()...), append(trustFlags(), signFlags()...)...)...),
		Action: withLog(runMirrorTree),
	}
}

func runMirrorTree(c *cli.Context, log *slog.Logger) error {
	opts := airgap.Options{
		From: c.String("from"), Out: c.String("out"), Bundle: c.String("bundle"),
		Arches: cliflag.List(c, "arch"), EndpointChannels: cliflag.List(c, "channels"),
		Catalogs: cliflag.List(c, "catalog"), Packages: cliflag.List(c, "package"),
		Workers: c.Int("workers"), NoSpare: c.Bool("no-spare"), Logger: log,
	}
	if err := opts.SetFlags(airgap.Flags{
		Viewer: c.Bool("viewer"), NoViewer: c.Bool("no-viewer"), Precompress: c.Bool("precompress"), NoPrecompress: c.Bool("no-precompress"),
		Channel: c.String("channel"), PayloadMirrors: c.StringSlice("payload-mirror"),
	}); err != nil {
		return err
	}
	var err error
	// Only a graph endpoint lacks a generation time of its own.
	if opts.GeneratedAt, err = generator.GeneratedAt(); err != nil {
		return err
	}
	if err := cliflag.FirstError(
		tree.CheckLocation("--from", c.String("from"), true), cliflag.CheckOutputDir(c, "out"), cliflag.CheckOutputFile(c, "bundle"),
		cliflag.CheckList(c, "arch", archName), cliflag.CheckList(c, "channels", channelName), checkWorkers(c), checkTreeFlags(c),
		checkNonEmpty(c, "catalog"), cliflag.CheckList(c, "catalog", catviews.CheckName), checkNonEmpty(c, "package"), cliflag.CheckList(c, "package", nil),
	); err != nil {
		return err
	}
	switch {
	case opts.Out != "" && opts.Bundle != "", opts.Out == "" && opts.Bundle == "":
		return fmt.Errorf("want exactly one of --out (a tree directory) and --bundle (a .tar.gz)")
	case opts.Out != "":
		if _, err := writer.Resolve(opts.Out); err != nil {
			return fmt.Errorf("--out: %w", err)
		}
		opts.Check, err = generationGuard(c.Context, c, "out", opts.Out, false)
		opts.Trace = phaseTrace(log)
	default:
		opts.Check, err = generationGuard(c.Context, c, "bundle", opts.Bundle, true)
	}
	if err != nil {
		return err
	}
	check, err := trustCheck(c)
	if err != nil {
		return err
	}
	opts.Verify = check.Verifier(false)
	// The versions follow a tree output's previous generation; a bundle
	// has none to follow (a scratch directory is signed).
	prev := ""
	if opts.Out != "" {
		if prev, err = writer.Resolve(opts.Out); err != nil {
			return fmt.Errorf("--out: %w", err)
		}
	}
	if opts.Sign, err = generationSigner(c, prev, opts.GeneratedAt); err != nil {
		return err
	}
	start := time.Now()
	opts.Tree = treeOptions(c, log)
	res, err := airgap.Mirror(c.Context, opts)
	if err != nil {
		return err
	}
	m := res.Manifest
	log.Info("mirrored", "from", opts.From, "channels", len(m.Channels), "arches", len(m.Arches),
		"payloadsRewritten", res.Rewrite.Rewritten, "signatures", m.Counts.Signatures, "duration", time.Since(start).Round(time.Millisecond))
	return res.WriteText(c.App.Writer, opts.Out)
}

// checkNonEmpty refuses a list flag given with nothing in it.
func checkNonEmpty(c *cli.Context, name string) error {
	if c.IsSet(name) && len(cliflag.List(c, name)) == 0 {
		return fmt.Errorf("--%s: empty value", name)
	}
	return nil
}

func verifyCommand() *cli.Command {
	return &cli.Command{
		Name:        "verify",
		Usage:       "check a tree, wherever it lives, against its index.json",
		ArgsUsage:   "LOCATION",
		Description: help("verify"),
		Flags:       append(treeFlags(), trustFlags()...),
		Action:      withLog(runVerify),
	}
}

func runVerify(c *cli.Context, log *slog.Logger) error {
	if c.NArg() != 1 {
		return fmt.Errorf("verify: want one LOCATION, got %d arguments (flags go before it)", c.NArg())
	}
	p := c.Args().First()
	if err := cliflag.FirstError(tree.CheckLocation("LOCATION", p, false), checkTreeFlags(c)); err != nil {
		return err
	}
	check, err := trustCheck(c)
	if err != nil {
		return err
	}
	line, err := sign.VerifyTree(c.Context, p, treeOptions(c, log), check)
	if err != nil {
		return err
	}
	_, err = fmt.Fprint(c.App.Writer, line)
	return err
}

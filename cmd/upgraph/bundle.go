package main

import (
	"fmt"
	"log/slog"
	"regexp"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/upgraph/upgraph/generator/bundle"
	"github.com/upgraph/upgraph/generator/mirror"
	"github.com/upgraph/upgraph/generator/writer"
	"github.com/upgraph/upgraph/site"
)

func mirrorTreeCommand() *cli.Command {
	return &cli.Command{
		Name:  "mirror",
		Usage: "copy a tree, or part of it, for an air-gapped site: as a directory or one .tar.gz bundle",
		Description: `Reads SRC, keeps the channels and arches selected, rewrites payload pull
specs to their mirrors, renders the graphs again (so index.json and every
digest describe what is written) and writes a tree (atomically) or a
deterministic bundle with a sha256sum file beside it (FILE.sha256).

SRC is a tree directory, a bundle, an http(s):// URL of a host publishing a
tree (its index.json), an s3://BUCKET/PREFIX a tree was published to
(upgraph publish; --endpoint, --path-style, --region as publish's), or of
a Cincinnati graph endpoint (a URL ending in
/graph, or a host without index.json such as upgraph serve; name its
channels with --channels). Release signatures of the releases kept are
carried over from trees, and so is the static viewer (index.html,
viewer/) when the source tree has it (graph endpoints: always);
--no-viewer leaves it out, --viewer adds it. --payload-mirror SRC=DST replaces the repository
prefix SRC by DST, longest match first, keeping digests:
  quay.io/openshift-release-dev=registry.local:5000/ocp`,
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "from", Required: true, Usage: "tree directory, bundle, http(s):// URL, or s3://BUCKET/PREFIX (see --endpoint)"},
			&cli.StringFlag{Name: "out", Aliases: []string{"o"}, Usage: "write a tree directory"},
			&cli.StringFlag{Name: "bundle", Usage: "write a .tar.gz bundle (and BUNDLE.sha256)"},
			&cli.StringFlag{Name: "channel", Usage: "only channels matching this regular expression"},
			&cli.StringSliceFlag{Name: "arch", Usage: "only these architectures (comma-separated or repeated)"},
			&cli.StringSliceFlag{Name: "payload-mirror", Usage: "SRC=DST: pull payloads under repository prefix SRC from DST (repeatable)"},
			&cli.StringSliceFlag{Name: "channels", Usage: "graph endpoints only: the channels to fetch (comma-separated or repeated)"},
			&cli.IntFlag{Name: "workers", Usage: "concurrency of reading and of rendering and writing; 0: 4 reads at a time, 2 × CPUs for rendering and writing"},
			&cli.BoolFlag{Name: "no-viewer", Usage: "leave the static viewer (index.html, viewer/) out; default: as the source tree (graph endpoints: with it)"},
			&cli.BoolFlag{Name: "viewer", Usage: "write the static viewer even if the source tree has none"},
		}, append(guardFlags(), s3ClientFlags()...)...),
		Action: runMirrorTree,
	}
}

func runMirrorTree(c *cli.Context) error {
	log, err := logger(c)
	if err != nil {
		return err
	}
	opts := bundle.Options{
		From: c.String("from"), Out: c.String("out"), Bundle: c.String("bundle"),
		Arches: listFlag(c, "arch"), EndpointChannels: listFlag(c, "channels"),
		Workers: c.Int("workers"), Logger: log,
	}
	switch {
	case c.Bool("viewer") && c.Bool("no-viewer"):
		return fmt.Errorf("--viewer and --no-viewer: give one")
	case c.Bool("viewer"), c.Bool("no-viewer"):
		v := c.Bool("viewer")
		opts.Viewer = &v
	}
	if expr := c.String("channel"); expr != "" {
		if opts.Channels, err = regexp.Compile(expr); err != nil {
			return fmt.Errorf("--channel: %w", err)
		}
	}
	for _, s := range c.StringSlice("payload-mirror") {
		pm, err := mirror.ParsePayloadMirror(s)
		if err != nil {
			return fmt.Errorf("--payload-mirror: %w", err)
		}
		opts.Payloads = append(opts.Payloads, pm)
	}
	// Only a graph endpoint lacks a generation time of its own.
	if opts.GeneratedAt, err = generatedAt(); err != nil {
		return err
	}
	if err := firstError(
		checkTreeSource(c, "from", true), checkOutputDir(c, "out"), checkOutputFile(c, "bundle"),
		checkList(c, "arch", archName), checkList(c, "channels", channelName), checkWorkers(c), checkS3ClientFlags(c),
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
	start := time.Now()
	res, err := bundle.Mirror(s3Context(c), opts)
	if err != nil {
		return err
	}
	m := res.Manifest
	log.Info("mirrored", "from", opts.From, "channels", len(m.Channels), "arches", len(m.Arches),
		"payloadsRewritten", res.Rewrite.Rewritten, "signatures", m.Counts.Signatures, "duration", time.Since(start).Round(time.Millisecond))
	if res.Bundle != nil {
		fmt.Fprintf(c.App.Writer, "wrote %s: %d bytes, sha256 %s (%d files, %d channel × arch graphs)\n",
			res.Bundle.Path, res.Bundle.Size, res.Bundle.SHA256, m.Counts.Files, m.Counts.Graphs)
		return nil
	}
	fmt.Fprintf(c.App.Writer, "wrote %d files (%d channel × arch graphs) to %s\n", m.Counts.Files, m.Counts.Graphs, opts.Out)
	return nil
}

func verifyCommand() *cli.Command {
	return &cli.Command{
		Name:      "verify",
		Usage:     "check a tree directory or bundle against its index.json",
		ArgsUsage: "PATH",
		Description: `Checks that index.json is consistent, that every file it lists is present
with its size and sha256, that nothing else is there, and, for a bundle,
that it matches PATH.sha256 when that file exists. Every bad file is named;
the exit status is 1 if there is any.`,
		Action: runVerify,
	}
}

func runVerify(c *cli.Context) error {
	if c.NArg() != 1 {
		return fmt.Errorf("verify: want one PATH, got %d arguments", c.NArg())
	}
	p := c.Args().First()
	sum, err := bundle.Verify(c.Context, p, bundle.Limits{})
	if err != nil {
		return err
	}
	m := sum.Manifest
	what := "tree"
	if sum.Bundle {
		what = "bundle, no checksum file"
		if sum.Checksummed {
			what = "bundle, checksum file matches"
		}
	}
	fmt.Fprintf(c.App.Writer, "ok %s (%s): %d files, %d bytes, %d channel × arch graphs, generated %s\n",
		p, what, m.Counts.Files, m.Counts.Bytes, m.Counts.Graphs, m.GeneratedAt)
	return nil
}

// serveBundle verifies and extracts a bundle into a private directory and
// serves it; stop closes the generation and removes the directory.
func serveBundle(c *cli.Context, h *site.Handler, file string, log *slog.Logger) (stop func(), err error) {
	u, err := bundle.Unpack(c.Context, file, "", bundle.Limits{})
	if err != nil {
		return nil, err
	}
	g, err := site.Load(u.Dir, log)
	if err != nil {
		u.Close()
		return nil, err
	}
	h.SetGeneration(g)
	log.Info("serving bundle", "bundle", file, "sha256", u.Summary.SHA256, "id", g.ID, "graphs", len(g.Manifest.Graphs), "generatedAt", g.Manifest.GeneratedAt)
	return func() {
		g.Close()
		if err := u.Close(); err != nil {
			log.Warn("removing the extracted bundle", "dir", u.Dir, "err", err)
		}
	}, nil
}

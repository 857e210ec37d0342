package main

import (
	"fmt"
	"log/slog"

	"github.com/urfave/cli/v2"

	"github.com/upgraph/upgraph/catalog/upgrade"
	"github.com/upgraph/upgraph/internal/cliflag"
	"github.com/upgraph/upgraph/release/policy"
	"github.com/upgraph/upgraph/tools/opcat"
	"github.com/upgraph/upgraph/tools/path"
	"github.com/upgraph/upgraph/tree"
)

// Exit statuses of the commands whose status answers a question, as
// diff(1)'s does, which scripts and CI jobs test for: 0 yes (diff: no
// difference; path: a path), 1 no, and trouble (a bad flag, an unreadable
// source, an unknown version or channel) 2.
const (
	answerNo      = 1
	answerTrouble = 2
)

// answerAction runs a command whose exit status answers a question: run
// says the answer, or why there is none. The output says it all.
func answerAction(run func(*cli.Context, *slog.Logger) (bool, error)) cli.ActionFunc {
	return func(c *cli.Context) error {
		log, err := logger(c)
		var yes bool
		if err == nil {
			yes, err = run(c, log)
		}
		switch {
		case err != nil:
			return cli.Exit(err, answerTrouble)
		case !yes:
			return cli.Exit("", answerNo)
		}
		return nil
	}
}

// exitTrouble is their OnUsageError: a bad flag must not exit with 1.
func exitTrouble(_ *cli.Context, err error, _ bool) error { return cli.Exit(err, answerTrouble) }

func pathCommand() *cli.Command {
	return &cli.Command{
		Name:        "path",
		Usage:       "the update path a cautious admin would take from one release to another in a channel",
		Description: help("path"),
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "from", Usage: "the release the cluster runs (required); with --catalog, the installed bundle: a version or a bundle name"},
			&cli.StringFlag{Name: "to", Usage: "the release to reach (required); with --catalog, a version, a bundle name or \"head\" (the default)"},
			&cli.StringFlag{Name: "channel", Usage: "the channel, e.g. stable-4.16 (required); with --catalog, a channel of --package (optional)"},
			&cli.StringFlag{Name: "arch", Value: policy.DefaultArch, Usage: "the architecture"},
			&cli.StringFlag{Name: "source", Value: ".", Usage: "a tree directory, s3://BUCKET/PREFIX, or the http(s) URL of a static host serving one or of a graph endpoint"},
			&cli.BoolFlag{Name: "via-eus", Usage: "also search the EUS channels between the two releases' minor versions"},
			&cli.BoolFlag{Name: "unconditional-only", Usage: "ignore conditional edges"},
			&cli.StringFlag{Name: "format", Value: "text", Usage: "text or json"},
			&cli.StringFlag{Name: "catalog", Usage: "an operator path instead: the catalog, a source (dir:PATH, file:PATH, an image) or the name of a catalog of the tree at --source"},
			catalogSetFlag("an operator path over a catalog set instead: a YAML or JSON file of catalogs {name, source, priority} (sources as --catalog takes them); --catalog then names the installed operator's catalog (optional when one catalog has --package)"),
			&cli.StringFlag{Name: "package", Usage: "with --catalog: the operator package (required)"},
			&cli.StringFlag{Name: "olm", Value: string(upgrade.V0), Usage: "with --catalog: v0 (a Subscription) or v1 (a ClusterExtension)"},
			catalogPlatformFlag(),
		}, append(clusterFlags(), treeFlags()...)...),
		OnUsageError: exitTrouble,
		Action:       answerAction(runPath),
	}
}

// catalogPathFlags are the flags that make path answer for an operator.
var catalogPathFlags = []string{"catalog", "catalog-set", "package", "olm", "catalog-platform"}

// runPath reports whether a path was found.
func runPath(c *cli.Context, log *slog.Logger) (bool, error) {
	if c.NArg() != 0 {
		return false, fmt.Errorf("path takes no arguments, got %q (flags go before them)", c.Args().Slice())
	}
	for _, name := range catalogPathFlags {
		if c.IsSet(name) {
			return runCatalogPath(c, log)
		}
	}
	format := c.String("format")
	if err := path.CheckGiven(c.String("from"), c.String("to"), c.String("channel"), format); err != nil {
		return false, err
	}
	req := path.Request{
		From: c.String("from"), To: c.String("to"), Channel: c.String("channel"), Arch: c.String("arch"),
		ViaEUS: c.Bool("via-eus"), Options: path.Options{UnconditionalOnly: c.Bool("unconditional-only")},
	}
	if err := cliflag.FirstError(req.Check(), tree.CheckLocation("--source", c.String("source"), true), checkTreeFlags(c), cluster(c).Check()); err != nil {
		return false, err
	}
	src, err := openGraphSource(c, c.String("source"), log)
	if err != nil {
		return false, fmt.Errorf("--source: %w", err)
	}
	defer src.Close()
	r, err := path.Find(c.Context, src, req)
	if err != nil {
		return false, err
	}
	avail, err := path.Availability(src, c.String("source"), r, cluster(c))
	if err != nil {
		return false, err
	}
	if err := path.WriteWithCluster(c.App.Writer, format, "path", r, avail); err != nil {
		return false, err
	}
	fmt.Fprint(c.App.ErrWriter, path.Hint(src, req, r))
	return r.Found, nil
}

// runCatalogPath answers path --catalog: whether the runtime reaches the
// target.
func runCatalogPath(c *cli.Context, log *slog.Logger) (bool, error) {
	olm, arg, err := opcat.PathFlags{
		Catalog: c.String("catalog"), CatalogSet: c.String("catalog-set"), Platform: c.String("catalog-platform"),
		Package: c.String("package"), From: c.String("from"), To: c.String("to"), Channel: c.String("channel"),
		OLM: c.String("olm"), Format: c.String("format"), Set: c.IsSet,
	}.Check()
	if err != nil {
		return false, err
	}
	format := c.String("format")
	if c.IsSet("catalog-set") {
		return runCatalogSetPath(c, log, olm, format)
	}
	src, closeSrc, err := openCatalogTree(c, arg.Tree, false, log)
	if err != nil {
		return false, err
	}
	defer closeSrc()
	q := upgrade.Query{Package: c.String("package"), Channel: c.String("channel"), From: c.String("from"), To: c.String("to"), OLM: olm}
	r, err := opcat.FindPath(c.Context, src, arg, q, catalogOpts(c, log))
	if err != nil {
		return false, err
	}
	return r.Found, writeFormat(c, format, r.WriteText, r.WriteJSON)
}

// runCatalogSetPath answers path --catalog-set: the installed operator's
// catalog (--catalog, or the only one with the package) for OLM v0, the
// whole set for OLM v1.
func runCatalogSetPath(c *cli.Context, log *slog.Logger, olm upgrade.Runtime, format string) (bool, error) {
	file := c.String("catalog-set")
	set, err := opcat.ReadSet(file)
	if err != nil {
		return false, err
	}
	src, closeSrc, err := openCatalogTree(c, opcat.SetNeedsTree(set, ""), false, log)
	if err != nil {
		return false, err
	}
	defer closeSrc()
	q := upgrade.Query{Package: c.String("package"), Channel: c.String("channel"), From: c.String("from"), To: c.String("to"), OLM: olm}
	r, err := opcat.FindPathInSet(c.Context, src, file, set, c.String("catalog"), q, c.String("catalog-platform"), catalogOpts(c, log))
	if err != nil {
		return false, err
	}
	return r.Found, writeFormat(c, format, r.WriteText, r.WriteJSON)
}

package main

import (
	"fmt"
	"log/slog"

	"github.com/urfave/cli/v2"

	"github.com/upgraph/upgraph/catalog/views"
	"github.com/upgraph/upgraph/internal/cliflag"
	"github.com/upgraph/upgraph/release/policy"
	"github.com/upgraph/upgraph/tools/dot"
	"github.com/upgraph/upgraph/tools/path"
	"github.com/upgraph/upgraph/tree"
)

func dotCommand() *cli.Command {
	return &cli.Command{
		Name:        "dot",
		Usage:       "draw a channel × arch update graph, or an operator package's, in Graphviz's DOT language (or Mermaid)",
		Description: help("dot"),
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "channel", Usage: "the channel, e.g. stable-4.16 (required without --catalog); with --catalog, a channel of --package (optional)"},
			&cli.StringFlag{Name: "arch", Value: policy.DefaultArch, Usage: "the architecture"},
			&cli.StringFlag{Name: "source", Value: ".", Usage: "a tree or a graph endpoint (see the description)"},
			&cli.BoolFlag{Name: "blocked", Usage: "also draw the edges graph-data removes, dotted grey"},
			&cli.StringFlag{Name: "catalog", Usage: "draw an operator package of this catalog of the tree (with --package)"},
			&cli.StringFlag{Name: "package", Usage: "the operator package to draw (with --catalog)"},
			&cli.StringFlag{Name: "format", Value: string(dot.FormatDOT), Usage: "with --catalog: dot, or mermaid (opm alpha render-graph's conventions)"},
		}, treeFlags()...),
		Action: withLog(func(c *cli.Context, log *slog.Logger) error {
			if c.NArg() != 0 {
				return fmt.Errorf("dot takes no arguments, got %q (flags go before them)", c.Args().Slice())
			}
			// --format dot is the default of both drawings; only another
			// format (or --catalog, --package) draws an operator package.
			if c.IsSet("catalog") || c.IsSet("package") || c.IsSet("format") && c.String("format") != string(dot.FormatDOT) {
				return dotCatalog(c, log)
			}
			channel, arch := c.String("channel"), c.String("arch")
			if channel == "" {
				return fmt.Errorf("--channel is required")
			}
			if err := cliflag.FirstError(path.CheckGraph(channel, arch), tree.CheckLocation("--source", c.String("source"), true), checkTreeFlags(c)); err != nil {
				return err
			}
			src, err := openGraphSource(c, c.String("source"), log)
			if err != nil {
				return fmt.Errorf("--source: %w", err)
			}
			defer src.Close()
			g, err := path.Read(c.Context, src, channel, arch)
			if err != nil {
				return err
			}
			return dot.Write(c.App.Writer, g, dot.Options{
				Title: fmt.Sprintf("%s (%s)", channel, arch), Blocked: c.Bool("blocked"), Arch: arch,
			})
		}),
	}
}

// dotCatalog draws an operator package (dot --catalog).
func dotCatalog(c *cli.Context, log *slog.Logger) error {
	format := dot.CatalogFormat(c.String("format"))
	catalog, pkg := c.String("catalog"), c.String("package")
	switch {
	case format != dot.FormatDOT && format != dot.FormatMermaid:
		return fmt.Errorf("--format %q: want dot or mermaid", format)
	case c.IsSet("catalog") && catalog == "":
		return fmt.Errorf("--catalog: empty value: want a catalog name of the tree")
	case catalog == "" && c.IsSet("package"):
		return fmt.Errorf("--package needs --catalog")
	case catalog == "":
		return fmt.Errorf("--format %s needs --catalog (release graphs are drawn in DOT only)", format)
	case views.CheckName(catalog) != nil:
		return fmt.Errorf("--catalog: %w", views.CheckName(catalog))
	case pkg == "":
		return fmt.Errorf("--package is required with --catalog")
	case c.IsSet("arch") || c.IsSet("blocked"):
		return fmt.Errorf("--arch and --blocked are for release graphs, not with --catalog")
	}
	if err := cliflag.FirstError(tree.CheckLocation("--source", c.String("source"), false), checkTreeFlags(c)); err != nil {
		return err
	}
	src, err := openGraphSource(c, c.String("source"), log)
	if err != nil {
		return fmt.Errorf("--source: %w", err)
	}
	defer src.Close()
	return dot.WriteCatalog(c.Context, c.App.Writer, src.Tree, dot.CatalogQuery{
		Catalog: catalog, Package: pkg, Channel: c.String("channel"), Format: format,
	})
}

package main

import (
	"fmt"
	"io"
	"log/slog"

	"github.com/urfave/cli/v2"

	"github.com/upgraph/upgraph/generator"
	"github.com/upgraph/upgraph/internal/cliflag"
	"github.com/upgraph/upgraph/release/source"
)

func validateCommand() *cli.Command {
	return &cli.Command{
		Name:        "validate",
		Usage:       "check graph-data as its CI does, and operator catalogs as opm validate does, plus the mistakes upstream accepts silently",
		Description: help("validate"),
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "graph-data", Usage: "graph-data directory, .tar.gz, or image:REF (a graph-data container image); required unless --catalog is given"},
			&cli.StringFlag{Name: "releases", Usage: "release source to check graph-data's versions against: " + source.Kinds},
			&cli.StringFlag{Name: "catalog", Usage: "an operator catalog to check: " + catalogSourceSyntax},
			catalogPlatformFlag(),
			&cli.StringFlag{Name: "format", Value: "text", Usage: "text or json"},
		}, scrapeFlags()...),
		Action: runValidate,
	}
}

func runValidate(c *cli.Context) error {
	format := c.String("format")
	if format != "text" && format != "json" {
		return fmt.Errorf("--format: want text or json, got %q", format)
	}
	if err := cliflag.FirstError(checkGraphData(c, true), checkReleases(c, false), checkValidateCatalog(c), checkScrapeFlags(c)); err != nil {
		return err
	}
	if c.String("graph-data") == "" && c.String("catalog") == "" {
		if c.IsSet("releases") {
			return fmt.Errorf(`Required flag "graph-data" not set: --releases checks graph-data's versions`)
		}
		return fmt.Errorf(`Required flag "graph-data" not set: give --graph-data, --catalog SOURCE, or both`)
	}
	log, err := validateLogger(c)
	if err != nil {
		return err
	}
	v := generator.Validation{GraphData: c.String("graph-data"), Catalog: c.String("catalog")}
	if v.GraphData != "" {
		srcOpts, err := sourceOptions(c, log)
		if err != nil {
			return err
		}
		if v.GraphDataProblems, err = generator.ValidateGraphData(c.Context, v.GraphData, c.String("releases"), srcOpts); err != nil {
			return err
		}
	}
	if v.Catalog != "" {
		opts, err := catalogOptions(c, log)
		if err != nil {
			return err
		}
		if v.CatalogProblems, v.CatalogEmpty, err = generator.ValidateCatalog(c.Context, v.Catalog, opts, log); err != nil {
			return err
		}
	}
	ps := v.Problems()
	if err := writeFormat(c, format, ps.WriteText, ps.WriteJSON); err != nil {
		return err
	}
	return v.Err()
}

// writeFormat writes in the format asked for (text or json).
func writeFormat(c *cli.Context, format string, text, json func(io.Writer) error) error {
	if format == "json" {
		return json(c.App.Writer)
	}
	return text(c.App.Writer)
}

// checkValidateCatalog checks validate's --catalog and --catalog-platform.
func checkValidateCatalog(c *cli.Context) error {
	if err := checkCatalogPlatform(c); err != nil {
		return err
	}
	spec, ok, err := cliflag.Given(c, "catalog")
	if !ok {
		return err
	}
	return generator.CheckCatalogSource("catalog", spec, c.String("catalog-platform"))
}

// validateLogger is the app's logger, or a default one when the command
// runs in an app without the global logging flags (as in tests).
func validateLogger(c *cli.Context) (*slog.Logger, error) {
	if c.String("log-level") == "" {
		return slog.New(slog.NewTextHandler(c.App.ErrWriter, &slog.HandlerOptions{Level: slog.LevelWarn})), nil
	}
	return logger(c)
}

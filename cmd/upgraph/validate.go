package main

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/upgraph/upgraph/catalog/model"
	"github.com/upgraph/upgraph/generator"
	"github.com/upgraph/upgraph/internal/cliflag"
	"github.com/upgraph/upgraph/internal/english"
	"github.com/upgraph/upgraph/release/source"
	"github.com/upgraph/upgraph/release/validate"
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
	var gdProblems validate.Problems
	if c.String("graph-data") != "" {
		srcOpts, err := sourceOptions(c, log)
		if err != nil {
			return err
		}
		if gdProblems, err = generator.ValidateGraphData(c.Context, c.String("graph-data"), c.String("releases"), srcOpts); err != nil {
			return err
		}
	}
	var catProblems model.Problems
	catEmpty := false
	if spec := c.String("catalog"); spec != "" {
		opts, err := catalogOptions(c, log)
		if err != nil {
			return err
		}
		if catProblems, catEmpty, err = generator.ValidateCatalog(c.Context, spec, opts, log); err != nil {
			return err
		}
	}
	switch {
	case c.String("catalog") == "":
		err = writeFormat(c, format, gdProblems.WriteText, gdProblems.WriteJSON)
	case c.String("graph-data") == "":
		err = writeFormat(c, format, catProblems.WriteText, catProblems.WriteJSON)
	default:
		// One list: graph-data's problems, then the catalog's, which
		// have the same fields and may name what they are about.
		all := append(slices.Clip(gdProblems), catProblems...)
		err = writeFormat(c, format, all.WriteText, all.WriteJSON)
	}
	if err != nil {
		return err
	}
	var failed []string
	if n := gdProblems.Count(validate.Error); n > 0 {
		failed = append(failed, fmt.Sprintf("graph-data %s: %s, %s", c.String("graph-data"), english.Count(n, "error"), english.Count(gdProblems.Count(validate.Warning), "warning")))
	}
	if n := catProblems.Count(model.Error); n > 0 {
		failed = append(failed, fmt.Sprintf("catalog %s: %s, %s", c.String("catalog"), english.Count(n, "error"), english.Count(catProblems.Count(model.Warning), "warning")))
	}
	if catEmpty {
		// As generate refuses it: a catalog without a package.
		failed = append(failed, fmt.Sprintf("catalog %s: no blob at all (an empty directory or file): no package to publish", c.String("catalog")))
	}
	if len(failed) > 0 {
		return errors.New(strings.Join(failed, "; "))
	}
	return nil
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

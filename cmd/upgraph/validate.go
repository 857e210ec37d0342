package main

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/upgraph/upgraph/catalog/model"
	catsource "github.com/upgraph/upgraph/catalog/source"
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
	var gdErr error
	if c.String("graph-data") != "" {
		gdProblems, gdErr = validateGraphData(c, log)
		if gdErr != nil {
			return gdErr
		}
	}
	var catProblems model.Problems
	catEmpty := false
	if spec := c.String("catalog"); spec != "" {
		opts, err := catalogOptions(c, log)
		if err != nil {
			return err
		}
		src, err := catsource.Parse(spec, opts)
		if err != nil {
			return fmt.Errorf("--catalog: %w", err)
		}
		lc, err := generator.LoadCatalog(c.Context, "", src, false, log)
		if err != nil {
			return fmt.Errorf("--catalog: %w", err)
		}
		catProblems = lc.Problems
		catEmpty = lc.Blobs == 0 && catProblems.Count(model.Error) == 0
	}
	switch {
	case c.String("catalog") == "":
		err = writeProblems(c, format, gdProblems.WriteText, gdProblems.WriteJSON)
	case c.String("graph-data") == "":
		err = writeProblems(c, format, catProblems.WriteText, catProblems.WriteJSON)
	default:
		// One list: graph-data's problems, then the catalog's, which
		// have the same fields and may name what they are about.
		all := append(slices.Clip(gdProblems), catProblems...)
		err = writeProblems(c, format, all.WriteText, all.WriteJSON)
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

// writeProblems writes problems in the format asked for.
func writeProblems(c *cli.Context, format string, text, json func(io.Writer) error) error {
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
	return checkCatalogSource("catalog", spec, c.String("catalog-platform"))
}

// validateGraphData runs validate's graph-data checks (and, with
// --releases, R1 and L-multi-arch).
func validateGraphData(c *cli.Context, log *slog.Logger) (validate.Problems, error) {
	srcOpts, err := sourceOptions(c, log)
	if err != nil {
		return nil, err
	}
	gdfs, err := generator.OpenGraphData(c.Context, c.String("graph-data"), srcOpts.Registry)
	if err != nil {
		return nil, err
	}
	var opts validate.Options
	if spec := c.String("releases"); spec != "" {
		src, err := source.Parse(spec, srcOpts)
		if err != nil {
			return nil, err
		}
		g, err := src.Graph(c.Context)
		if err != nil {
			return nil, err
		}
		opts = validate.ReleaseOptions(g)
	}
	ps := validate.Validate(gdfs, opts)
	showPaths(ps, c.String("graph-data"))
	return ps, nil
}

// showPaths makes the paths of a graph-data directory relative to the
// working directory, so editors and CI annotations open the right file.
// Paths inside an archive or image stay relative to its root.
func showPaths(ps validate.Problems, gd string) {
	if st, err := os.Stat(gd); err != nil || !st.IsDir() {
		return
	}
	for i := range ps {
		ps[i].File = filepath.Join(gd, filepath.FromSlash(ps[i].File))
	}
}

// validateLogger is the app's logger, or a default one when the command
// runs in an app without the global logging flags (as in tests).
func validateLogger(c *cli.Context) (*slog.Logger, error) {
	if c.String("log-level") == "" {
		return slog.New(slog.NewTextHandler(c.App.ErrWriter, &slog.HandlerOptions{Level: slog.LevelWarn})), nil
	}
	return logger(c)
}

package main

import (
	"fmt"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/urfave/cli/v2"

	"github.com/upgraph/upgraph/generator/source"
	"github.com/upgraph/upgraph/generator/validate"
)

func validateCommand() *cli.Command {
	return &cli.Command{
		Name:  "validate",
		Usage: "check graph-data as its CI does, against its schemas, and for mistakes upstream accepts silently",
		Description: `Runs graph-data CI's offline checks (B1–B14 of hack/validate-blocked-edges.py,
Y1, Y2 and C1 of graph-data.rs), the hard errors of upstream's parser, the
JSON schemas of channels, blocked edges and raw/metadata.json, and lints
(L-…): regexes that match no known version, blocks into versions no channel
serves, files upstream ignores, channel versions out of order. With
--releases, also R1: every version graph-data names is among the releases.

Prints one line per problem, file:line: severity: message [rule], sorted by
file and line (--format json: an array of {file, line, severity, rule,
message}). Exits 1 when there is an error; warnings alone exit 0.`,
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "graph-data", Required: true, Usage: "graph-data directory, .tar.gz, or image:REF (a graph-data container image)"},
			&cli.StringFlag{Name: "releases", Usage: "release source to check graph-data's versions against: " + source.Kinds},
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
	if err := firstError(checkGraphData(c, true), checkReleases(c, false), checkScrapeFlags(c)); err != nil {
		return err
	}
	log, err := validateLogger(c)
	if err != nil {
		return err
	}
	srcOpts, err := sourceOptions(c, log)
	if err != nil {
		return err
	}
	gdfs, err := openGraphData(c, srcOpts.Registry)
	if err != nil {
		return err
	}
	var opts validate.Options
	if spec := c.String("releases"); spec != "" {
		src, err := source.Parse(spec, srcOpts)
		if err != nil {
			return err
		}
		g, err := src.Graph(c.Context)
		if err != nil {
			return err
		}
		opts.Releases = validate.ReleaseVersions(g)
	}
	ps := validate.Validate(gdfs, opts)
	showPaths(ps, c.String("graph-data"))
	if format == "json" {
		err = ps.WriteJSON(c.App.Writer)
	} else {
		err = ps.WriteText(c.App.Writer)
	}
	if err != nil {
		return err
	}
	if n := ps.Count(validate.Error); n > 0 {
		return fmt.Errorf("graph-data %s: %s, %s", c.String("graph-data"), countNoun(n, "error"), countNoun(ps.Count(validate.Warning), "warning"))
	}
	return nil
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

func countNoun(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

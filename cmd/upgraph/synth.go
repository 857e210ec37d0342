package main

import (
	"fmt"
	"os"

	"github.com/urfave/cli/v2"

	"github.com/upgraph/upgraph/internal/cliflag"
	"github.com/upgraph/upgraph/internal/synth"
	"github.com/upgraph/upgraph/release/graphdata"
)

// synthCommand writes release metadata for every version a graph-data
// tree's channels name: real-scale input for benchmarks and load tests.
func synthCommand() *cli.Command {
	return &cli.Command{
		Name:        "synth-releases",
		Usage:       "write synthetic release metadata (metadata:DIR) for a graph-data tree, for benchmarks",
		Description: help("synth-releases"),
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "graph-data", Required: true, Usage: "a graph-data directory or archive whose channels name the versions"},
			&cli.StringFlag{Name: "out", Required: true, Usage: "a new directory for the release metadata (read it as --releases metadata:DIR)"},
		},
		Action: func(c *cli.Context) error {
			if err := cliflag.FirstError(checkGraphData(c, false), cliflag.CheckOutputDir(c, "out")); err != nil {
				return err
			}
			fsys, err := graphdata.Open(c.String("graph-data"))
			if err != nil {
				return err
			}
			rs, err := synth.FromGraphData(fsys)
			if err != nil {
				return err
			}
			if err := os.MkdirAll(c.String("out"), 0o755); err != nil {
				return err
			}
			if err := synth.WriteDir(c.String("out"), rs); err != nil {
				return err
			}
			fmt.Fprintf(c.App.Writer, "wrote %d release-metadata documents to %s\n", len(rs), c.String("out"))
			return nil
		},
	}
}

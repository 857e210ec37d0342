package main

import (
	"fmt"
	"os"

	"github.com/urfave/cli/v2"

	"github.com/upgraph/upgraph/generator/graphdata"
	"github.com/upgraph/upgraph/generator/synth"
)

// synthCommand writes release metadata for every version a graph-data
// tree's channels name: real-scale input for benchmarks and load tests.
func synthCommand() *cli.Command {
	return &cli.Command{
		Name:   "synth-releases",
		Usage:  "write synthetic release metadata (metadata:DIR) for a graph-data tree, for benchmarks",
		Hidden: true,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "graph-data", Required: true},
			&cli.StringFlag{Name: "out", Required: true},
		},
		Action: func(c *cli.Context) error {
			if err := firstError(checkGraphData(c, false), checkOutputDir(c, "out")); err != nil {
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

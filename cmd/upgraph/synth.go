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
		Name:  "synth-releases",
		Usage: "write synthetic release metadata (metadata:DIR) for a graph-data tree, for benchmarks",
		Description: `Writes one release-metadata document per version the channels of
--graph-data name, for the architectures each minor had (amd64 and s390x,
ppc64le from 4.3, arm64 from 4.9, multi from 4.11), with previous = the
earlier releases of the same minor and the GA releases of the previous
minor: real-scale input for generate --releases metadata:DIR in benchmarks
and load tests (make bench); nothing is read from a registry.`,
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

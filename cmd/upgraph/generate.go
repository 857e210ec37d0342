package main

import (
	"fmt"
	"io/fs"
	"os"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/upgraph/upgraph"
	"github.com/upgraph/upgraph/generator"
	"github.com/upgraph/upgraph/generator/graphdata"
	"github.com/upgraph/upgraph/generator/source"
	"github.com/upgraph/upgraph/generator/writer"
)

func generateCommand() *cli.Command {
	return &cli.Command{
		Name:  "generate",
		Usage: "write every channel × arch graph and per-version graph into a folder",
		Description: `Reads releases and graph-data, applies graph-data exactly as the upstream
graph-builder does, and writes DIR/graph/<arch>/<channel>.json, one
DIR/graph/<arch>/<channel>/<version>.json per release, and DIR/index.json.
The new tree replaces DIR atomically; on any error DIR is left untouched.`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "releases", Usage: "release source: " + source.Kinds},
			&cli.StringFlag{Name: "graph-data", Usage: "graph-data directory or .tar.gz"},
			&cli.BoolFlag{Name: "demo", Usage: "use the embedded demo releases and graph-data"},
			&cli.StringFlag{Name: "out", Aliases: []string{"o"}, Required: true, Usage: "output directory"},
			&cli.StringFlag{Name: "channel", Usage: "only channels matching this regular expression"},
			&cli.StringSliceFlag{Name: "arch", Usage: "only these architectures (comma-separated or repeated)"},
			&cli.BoolFlag{Name: "skip-invalid", Usage: "skip graph-data files that do not parse, with a warning, as upstream does (default: fail)"},
			&cli.BoolFlag{Name: "upstream-quirks", Usage: "reproduce upstream's accidental behaviours (see README)"},
			&cli.IntFlag{Name: "workers", Usage: "rendering and writing concurrency (default 2 × CPUs)"},
		},
		Action: runGenerate,
	}
}

func runGenerate(c *cli.Context) error {
	log, err := logger(c)
	if err != nil {
		return err
	}
	var releases source.Source
	var gdfs fs.FS
	switch {
	case c.Bool("demo"):
		if c.IsSet("releases") || c.IsSet("graph-data") {
			return fmt.Errorf("--demo replaces --releases and --graph-data")
		}
		releases = &source.MetadataDir{Dir: "demo", FS: upgraph.DemoReleases(), Logger: log}
		gdfs = upgraph.DemoGraphData()
	case c.String("releases") == "" || c.String("graph-data") == "":
		return fmt.Errorf("--releases and --graph-data are required (or --demo)")
	default:
		if releases, err = source.Parse(c.String("releases"), source.Options{Logger: log}); err != nil {
			return err
		}
		if gdfs, err = graphdata.Open(c.String("graph-data")); err != nil {
			return err
		}
	}
	gdOpts := graphdata.DefaultOptions()
	if c.Bool("skip-invalid") {
		gdOpts = graphdata.UpstreamOptions()
	}
	var channels *regexp.Regexp
	if expr := c.String("channel"); expr != "" {
		if channels, err = regexp.Compile(expr); err != nil {
			return fmt.Errorf("--channel: %w", err)
		}
	}
	var arches []string
	for _, a := range c.StringSlice("arch") {
		for _, s := range strings.Split(a, ",") {
			if s = strings.TrimSpace(s); s != "" {
				arches = append(arches, s)
			}
		}
	}
	at, err := generatedAt()
	if err != nil {
		return err
	}
	start := time.Now()
	built, err := generator.Build(c.Context, releases, gdfs, generator.BuildOptions{
		GraphData: gdOpts, UpstreamQuirks: c.Bool("upstream-quirks"), Logger: log,
	})
	if err != nil {
		return err
	}
	m, err := generator.Render(c.Context, built, generator.RenderOptions{
		Channels: channels, Arches: arches, Store: writer.DirStore{Dir: c.String("out")},
		GeneratedAt: at, Workers: c.Int("workers"), Logger: log,
	})
	if err != nil {
		return err
	}
	log.Info("generated", "out", c.String("out"), "graphs", m.Counts.Graphs, "versionGraphs", m.Counts.VersionGraphs,
		"files", m.Counts.Files, "bytes", m.Counts.Bytes, "duration", time.Since(start).Round(time.Millisecond))
	fmt.Fprintf(c.App.Writer, "wrote %d files (%d channel × arch graphs, %d per-version graphs) to %s\n",
		m.Counts.Files, m.Counts.Graphs, m.Counts.VersionGraphs, c.String("out"))
	return nil
}

// generatedAt honours SOURCE_DATE_EPOCH so builds can be reproducible.
func generatedAt() (time.Time, error) {
	s, ok := os.LookupEnv("SOURCE_DATE_EPOCH")
	if !ok || s == "" {
		return time.Now(), nil
	}
	sec, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return time.Time{}, fmt.Errorf("SOURCE_DATE_EPOCH=%q: want seconds since the epoch", s)
	}
	return time.Unix(sec, 0), nil
}

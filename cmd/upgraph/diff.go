package main

import (
	"errors"
	"fmt"
	"log/slog"

	"github.com/urfave/cli/v2"

	"github.com/upgraph/upgraph/internal/cliflag"
	"github.com/upgraph/upgraph/release/mirror"
	"github.com/upgraph/upgraph/tools/diff"
)

func diffCommand() *cli.Command {
	return &cli.Command{
		Name:        "diff",
		Usage:       "compare the update graphs two trees or endpoints serve, channel × arch by channel × arch, and their operator catalogs",
		ArgsUsage:   "OLD NEW",
		Description: help("diff"),
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "format", Value: string(diff.Text), Usage: "text, markdown (a pull-request comment: a summary table and a collapsed section per graph) or json"},
			&cli.StringSliceFlag{Name: "channels", Usage: "only these channels (comma-separated or repeated); needed when neither side has an index.json"},
			&cli.StringSliceFlag{Name: "arch", Usage: "only these architectures (comma-separated or repeated)"},
			&cli.IntFlag{Name: "max-bytes", Value: 60000, Usage: "markdown: leave out the details of graphs past this size, so that the output fits a GitHub comment (65536 characters); 0: no limit"},
			&cli.IntFlag{Name: "workers", Usage: "concurrent reads (0: the default, 4)"},
		}, append(treeFlags(), trustFlags()...)...),
		// 1 means "differences", so a bad flag must not exit with it.
		OnUsageError: exitTrouble,
		Action:       answerAction(runDiff),
	}
}

// runDiff reports whether the sides are the same.
func runDiff(c *cli.Context, log *slog.Logger) (bool, error) {
	if c.NArg() != 2 {
		return false, fmt.Errorf("diff wants OLD and NEW, got %d arguments (flags go before them)", c.NArg())
	}
	format, err := diff.ParseFormat(c.String("format"))
	if err != nil {
		return false, fmt.Errorf("--format: %w", err)
	}
	if err := cliflag.FirstError(
		cliflag.CheckList(c, "channels", channelName), cliflag.CheckList(c, "arch", archName),
		cliflag.CheckInt(c, "max-bytes", 0, "0 (no limit) or more"), checkWorkers(c), checkTreeFlags(c),
	); err != nil {
		return false, err
	}
	check, err := trustCheck(c)
	if err != nil {
		return false, err
	}
	sides, closeSides, err := diff.OpenSides(c.Context, [2]string{c.Args().Get(0), c.Args().Get(1)},
		mirror.SourceOptions{Tree: treeOptions(c, log), Logger: log}, check.Verifier(false))
	if err != nil {
		return false, err
	}
	defer closeSides()
	r, err := diff.Compare(c.Context, sides[0], sides[1], diff.Options{
		Channels: cliflag.List(c, "channels"), Arches: cliflag.List(c, "arch"), Workers: c.Int("workers"),
	})
	if errors.Is(err, diff.ErrNoChannels) {
		return false, fmt.Errorf("%w with --channels", err)
	}
	if err != nil {
		return false, err
	}
	if err := r.Write(c.App.Writer, format, diff.WriteOptions{MaxBytes: c.Int("max-bytes")}); err != nil {
		return false, err
	}
	return r.Empty(), nil
}

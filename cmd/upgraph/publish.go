package main

import (
	"fmt"
	"log/slog"
	"os"

	"github.com/urfave/cli/v2"

	"github.com/upgraph/upgraph/internal/cliflag"
	"github.com/upgraph/upgraph/internal/progress"
	"github.com/upgraph/upgraph/site/publish"
	"github.com/upgraph/upgraph/tree"
	"github.com/upgraph/upgraph/tree/s3tree"
)

func publishCommand() *cli.Command {
	return &cli.Command{
		Name:        "publish",
		Usage:       "upload a generated tree to S3 or an S3-compatible store, incrementally",
		ArgsUsage:   "SRC s3://BUCKET[/PREFIX]",
		Description: help("publish"),
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "headers", Usage: "YAML or JSON file of header rules tried before the built-in ones (see docs/publishing.md)"},
			&cli.BoolFlag{Name: "delete", Usage: "after index.json is replaced, delete objects under the prefix that the tree does not have"},
			&cli.IntFlag{Name: "max-deletes", Value: publish.DefaultMaxDeletes, Usage: "with --delete: refuse to delete more objects than this (-1: no limit)"},
			&cli.Float64Flag{Name: "shrink-threshold", Value: publish.DefaultShrinkThreshold, Usage: "refuse a tree that drops more than this fraction of the published releases, channels or per-version graphs (or any architecture)"},
			&cli.BoolFlag{Name: "force", Usage: "publish despite the shrink guard or an unreadable published index.json"},
			&cli.BoolFlag{Name: "verify", Usage: "check every published object's sha256 and headers (one HEAD each) instead of trusting the published index.json"},
			&cli.BoolFlag{Name: "dry-run", Usage: "print the plan (one line per upload or deletion, with the reason) and change nothing"},
			&cli.IntFlag{Name: "workers", Value: publish.DefaultWorkers, Usage: "concurrent requests (0: the default)"},
			&cli.IntFlag{Name: "max-attempts", Value: 10, Usage: "attempts per request, with backoff, on 5xx, SlowDown and connection errors"},
		}, append(treeFlags(), trustFlags()...)...),
		Action: withLog(runPublish),
	}
}

func runPublish(c *cli.Context, log *slog.Logger) error {
	if err := cliflag.FirstError(
		checkTreeFlags(c), cliflag.CheckInput(c, "headers", cliflag.WantFile),
		cliflag.CheckInt(c, "max-deletes", -1, "-1 (no limit), 0 or more"), checkWorkers(c),
		cliflag.CheckInt(c, "max-attempts", 1, "1 or more"),
	); err != nil {
		return err
	}
	if c.NArg() != 2 {
		return fmt.Errorf("want SRC s3://BUCKET[/PREFIX], got %d arguments (flags go before them)", c.NArg())
	}
	src := c.Args().Get(0)
	if err := tree.CheckLocation("SRC", src, false); err != nil {
		return err
	}
	bucket, prefix, err := s3tree.ParseURL(c.Args().Get(1))
	if err != nil {
		return err
	}
	if _, err := shrinkThreshold(c); err != nil { // NaN too
		return err
	}
	var rules *publish.Rules
	if file := c.String("headers"); file != "" {
		if rules, err = publish.LoadRules(file); err != nil {
			return fmt.Errorf("--headers: %w", err)
		}
	}
	opts := treeOptions(c, log)
	opts.S3.MaxAttempts = c.Int("max-attempts")
	client, err := s3tree.NewClient(c.Context, opts.S3)
	if err != nil {
		return err
	}
	check, err := trustCheck(c)
	if err != nil {
		return err
	}
	t, err := tree.Open(c.Context, src, opts)
	if err != nil {
		return err
	}
	defer t.Close()
	// Every file publish reads is checked against index.json, which this
	// checks against the signed targets.
	if verify := check.Verifier(false); verify != nil {
		if err := verify(c.Context, t); err != nil {
			return err
		}
	}
	rep, err := publish.Publish(c.Context, publish.Options{
		Tree: t, Client: client, Bucket: bucket, Prefix: prefix, Rules: rules,
		Delete: c.Bool("delete"), MaxDeletes: c.Int("max-deletes"),
		ShrinkThreshold: c.Float64("shrink-threshold"), Force: c.Bool("force"),
		Verify: c.Bool("verify"), DryRun: c.Bool("dry-run"), Workers: c.Int("workers"),
		Logger: log, Progress: progress.Reporter(os.Stderr, log, "publish", "objects"),
	})
	err = publish.FlagHint(err)
	if rep != nil {
		if werr := rep.WriteText(c.App.Writer, c.Args().Get(1)); werr != nil && rep.DryRun {
			return werr
		}
	}
	return err
}

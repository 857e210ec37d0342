package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/upgraph/upgraph/generator"
	"github.com/upgraph/upgraph/release/rollout"
	"github.com/upgraph/upgraph/site/edge"
	"github.com/upgraph/upgraph/tree/manifest"
)

// rolloutFlags are generate's phased-rollout flags (docs/rollouts.md).
func rolloutFlags() []cli.Flag {
	return []cli.Flag{
		rolloutBucketsFlag(),
		&cli.StringFlag{Name: "at", Usage: "phased rollouts: the time the buckets are computed for, RFC 3339 or Unix seconds (default: SOURCE_DATE_EPOCH, else now)"},
	}
}

// checkRolloutFlags refuses a bad --rollout-buckets or --at before any
// input is read.
func checkRolloutFlags(c *cli.Context) error {
	if err := rollout.CheckBuckets(c.Int("rollout-buckets")); err != nil {
		return err
	}
	if c.IsSet("at") && c.String("at") == "" {
		return fmt.Errorf("--at is empty: want RFC 3339 (2026-11-28T08:00:00Z) or Unix seconds")
	}
	_, err := parseAt(c.String("at"), time.Time{})
	return err
}

func rolloutBucketsFlag() cli.Flag {
	return &cli.IntFlag{Name: "rollout-buckets", Value: rollout.DefaultBuckets, Usage: "phased rollouts (graph-data rollouts/, docs/rollouts.md): the number N of client buckets, each offered a rolling release once its share is reached; a divisor of 10000"}
}

// rolloutPlan is the generation's rollout plan (generator.RolloutPlan)
// for --at, else generatedAt.
func rolloutPlan(c *cli.Context, built *generator.Built, generatedAt time.Time) (*rollout.Plan, error) {
	at, err := parseAt(c.String("at"), generatedAt)
	if err != nil {
		return nil, err
	}
	return generator.RolloutPlan(built, c.Int("rollout-buckets"), at)
}

// parseAt reads --at: RFC 3339 or Unix seconds; empty is def.
func parseAt(s string, def time.Time) (time.Time, error) {
	if s == "" {
		return def, nil
	}
	if sec, err := strconv.ParseInt(s, 10, 64); err == nil {
		return time.Unix(sec, 0), nil
	}
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return time.Time{}, fmt.Errorf("--at %q: want RFC 3339 (2026-11-28T08:00:00Z) or Unix seconds", s)
	}
	return t, nil
}

// rolloutSummary is generate's line about the rollouts.
func rolloutSummary(ro *manifest.Rollouts) string {
	next := "no further change"
	if ro.NextChange != "" {
		next = "next change " + ro.NextChange
	}
	return fmt.Sprintf("%d rollouts over %d buckets at %s: %d graph files shared, %d per-bucket copies (%d distinct), %s",
		len(ro.Releases), ro.Buckets, ro.At, ro.SharedFiles, ro.VariantFiles, ro.DistinctVariants, next)
}

func kvsFlag() cli.Flag {
	return &cli.StringFlag{Name: "kvs", Usage: "with --root, a tree with phased rollouts: write the CloudFront KeyValueStore import file of its per-bucket copies to this file, which the graph function reads (docs/rollouts.md)"}
}

// checkKVSFlag refuses --kvs but for the graph function of a tree
// (--root without --catalogs), and an empty one.
func checkKVSFlag(c *cli.Context) error {
	if !c.IsSet("kvs") {
		return nil
	}
	switch {
	case c.String("kvs") == "":
		return fmt.Errorf("--kvs is empty: want the file to write the KeyValueStore import file to")
	case c.Bool("catalogs") || !c.IsSet("root"):
		return fmt.Errorf("--kvs %s: only for the graph function of a tree with phased rollouts (--root without --catalogs)", c.String("kvs"))
	}
	return nil
}

// edgeCloudFrontRollouts prints the graph function for the tree at --root,
// which must have phased rollouts (the only reason to name a tree for the
// graph function), and writes its KeyValueStore import file to --kvs.
func edgeCloudFrontRollouts(c *cli.Context) error {
	root, kvs := c.String("root"), c.String("kvs")
	fn, store, err := edge.CloudFrontRollouts(root)
	if err != nil {
		return fmt.Errorf("--root: %w; --root without --catalogs is for a tree with phased rollouts", err)
	}
	if kvs == "" {
		return fmt.Errorf("--root %s: the rollout function reads its table from a CloudFront KeyValueStore: give --kvs FILE for the store's import file", root)
	}
	if err := replaceFile(kvs, store); err != nil {
		return fmt.Errorf("--kvs %s: %w", kvs, err)
	}
	_, err = fmt.Fprint(c.App.Writer, fn)
	return err
}

// replaceFile writes data to name through a temporary file beside it, so
// name is never half written.
func replaceFile(name string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(name), ".upgraph-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if err := tmp.Chmod(0o644); err != nil {
		tmp.Close()
		return err
	}
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), name)
}

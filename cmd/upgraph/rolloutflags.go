package main

import (
	"fmt"
	"strconv"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/upgraph/upgraph/generator"
	"github.com/upgraph/upgraph/release/rollout"
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

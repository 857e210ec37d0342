package main

import (
	"time"

	"github.com/urfave/cli/v2"

	"github.com/upgraph/upgraph/generator"
	"github.com/upgraph/upgraph/release/rollout"
)

// rolloutFlags are generate's phased-rollout flags (docs/rollouts.md).
func rolloutFlags() []cli.Flag {
	return []cli.Flag{
		rolloutBucketsFlag(),
		&cli.StringFlag{Name: "at", Usage: "phased rollouts: the time the buckets are computed for, RFC 3339 or Unix seconds (default: SOURCE_DATE_EPOCH, else now)"},
	}
}

// checkRolloutFlags refuses a bad --rollout-buckets or --at before any
// input is read (generator.CheckRolloutFlags).
func checkRolloutFlags(c *cli.Context) error {
	return generator.CheckRolloutFlags(c.Int("rollout-buckets"), c.String("at"), c.IsSet("at"))
}

func rolloutBucketsFlag() cli.Flag {
	return &cli.IntFlag{Name: "rollout-buckets", Value: rollout.DefaultBuckets, Usage: "phased rollouts (graph-data rollouts/, docs/rollouts.md): the number N of client buckets, each offered a rolling release once its share is reached; a divisor of 10000"}
}

// rolloutPlan is the generation's rollout plan (generator.RolloutPlan)
// for --at, else generatedAt.
func rolloutPlan(c *cli.Context, built *generator.Built, generatedAt time.Time) (*rollout.Plan, error) {
	at, err := generator.ParseAt(c.String("at"), generatedAt)
	if err != nil {
		return nil, err
	}
	return generator.RolloutPlan(built, c.Int("rollout-buckets"), at)
}

func kvsFlag() cli.Flag {
	return &cli.StringFlag{Name: "kvs", Usage: "with --root, a tree with phased rollouts: write the CloudFront KeyValueStore import file of its per-bucket copies to this file, which the graph function reads (docs/rollouts.md)"}
}

package main

import (
	"github.com/urfave/cli/v2"

	"github.com/upgraph/upgraph/tools/path"
)

// clusterFlags name the cluster whose phased-rollout bucket path answers
// for (docs/rollouts.md).
func clusterFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "id", Usage: "phased rollouts: the cluster's id (spec.clusterID); say when each hop becomes available to it"},
		&cli.StringFlag{Name: "wariness", Usage: "phased rollouts: the cluster's rollout_wariness, a decimal from 0 to 1, instead of --id"},
	}
}

// cluster is the cluster --id or --wariness names.
func cluster(c *cli.Context) path.Cluster {
	return path.Cluster{ID: c.String("id"), Wariness: c.String("wariness"), HasID: c.IsSet("id"), HasWariness: c.IsSet("wariness")}
}
